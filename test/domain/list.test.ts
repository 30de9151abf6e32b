import { describe, expect, it } from "vitest";
import { Code, isApiError } from "../../src/domain/errors.js";
import { groupSortable } from "../../src/domain/groups.js";
import { finishPage, parseOrderBy, planPage, resolvePageSize, skippedCount } from "../../src/domain/list.js";
import { PageTokens } from "../../src/domain/page-token.js";

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    if (isApiError(e) && e.code === Code.INVALID_ARGUMENT) return e.details.fieldViolations?.[0]?.field;
    throw e;
  }
  return undefined;
}

describe("page_size", () => {
  it.each([
    [0, 50],
    [1, 1],
    [50, 50],
    [200, 200],
    [201, 200],
    [100_000, 200],
  ])("%i resolves to %i", (given, want) => expect(resolvePageSize(given)).toBe(want));

  it("refuses negatives naming page_size", () => expect(fieldOf(() => resolvePageSize(-1))).toBe("page_size"));
});

describe("order_by", () => {
  it.each([
    [
      "",
      [
        ["name", false],
        ["uid", false],
      ],
    ],
    [
      "name",
      [
        ["name", false],
        ["uid", false],
      ],
    ],
    [
      "name desc",
      [
        ["name", true],
        ["uid", true],
      ],
    ],
    [
      "name asc",
      [
        ["name", false],
        ["uid", false],
      ],
    ],
    [
      "created_at desc",
      [
        ["create_time", true],
        ["uid", true],
      ],
    ],
    [
      "create_time",
      [
        ["create_time", false],
        ["uid", false],
      ],
    ],
    [
      "updated_at",
      [
        ["update_time", false],
        ["uid", false],
      ],
    ],
    [
      "update_time DESC",
      [
        ["update_time", true],
        ["uid", true],
      ],
    ],
    [
      "name desc, created_at",
      [
        ["name", true],
        ["create_time", false],
        ["uid", false],
      ],
    ],
    ["uid desc", [["uid", true]]],
    [
      "  name   desc  ",
      [
        ["name", true],
        ["uid", true],
      ],
    ],
  ])("%j parses", (text, want) => {
    expect(parseOrderBy(text, groupSortable).map((k) => [k.field, k.desc])).toEqual(want);
  });

  it.each(["nope", "name sideways", "name desc extra", ",", "name,name", "name,created_at,create_time", "description"])(
    "%j is INVALID_ARGUMENT naming order_by",
    (text) => expect(fieldOf(() => parseOrderBy(text, groupSortable))).toBe("order_by"),
  );
});

describe("planPage and finishPage", () => {
  const clock = { now: () => 10_000 };
  const tokens = new PageTokens(Buffer.alloc(32, 1), clock);
  const req = { pageSize: 2, pageToken: "", orderBy: "", skip: 0 };
  const rows = ["a", "b", "c", "d", "e"].map((name) => ({ name, uid: `u-${name}` }));
  const keyOf = (r: { name: string; uid: string }) => [r.name, r.uid];

  it("issues a token only when more rows follow", () => {
    const plan = planPage(req, groupSortable, "groups", {}, tokens);
    expect(plan).toMatchObject({ offset: 0, limit: 3, pageSize: 2, start: 0 });
    const page = finishPage(rows.slice(0, 3), plan, tokens, keyOf);
    expect(page.items.map((r) => r.name)).toEqual(["a", "b"]);
    expect(page.nextPageToken).toBeTypeOf("string");
    expect(finishPage(rows.slice(0, 2), plan, tokens, keyOf).nextPageToken).toBeUndefined();
  });

  it("continues after the token's key, and the same skip again is a plain continuation", () => {
    const first = planPage({ ...req, skip: 1 }, groupSortable, "groups", {}, tokens);
    expect(first).toMatchObject({ offset: 1, start: 1 });
    const page = finishPage(rows.slice(1, 4), first, tokens, keyOf);
    const next = planPage({ ...req, skip: 1, pageToken: page.nextPageToken as string }, groupSortable, "groups", {}, tokens);
    expect(next).toMatchObject({ after: ["c", "u-c"], offset: 0, start: 3, skip: 1 });
  });

  it("a skip beyond the token's position jumps the difference", () => {
    const page = finishPage(rows.slice(0, 3), planPage(req, groupSortable, "groups", {}, tokens), tokens, keyOf);
    const next = planPage({ ...req, skip: 4, pageToken: page.nextPageToken as string }, groupSortable, "groups", {}, tokens);
    expect(next).toMatchObject({ after: ["b", "u-b"], offset: 2, start: 4 });
  });

  it("a token from another filter is INVALID_ARGUMENT naming page_token", () => {
    const page = finishPage(rows.slice(0, 3), planPage(req, groupSortable, "groups", {}, tokens), tokens, keyOf);
    const again = { ...req, pageToken: page.nextPageToken as string };
    expect(fieldOf(() => planPage(again, groupSortable, "groups", { name: "x" }, tokens))).toBe("page_token");
    expect(fieldOf(() => planPage({ ...again, orderBy: "name desc" }, groupSortable, "groups", {}, tokens))).toBe("page_token");
    expect(planPage({ ...again, pageSize: 5 }, groupSortable, "groups", {}, tokens).after).toEqual(["b", "u-b"]);
  });

  it.each([
    [10, 14, 10],
    [14, 14, 14],
    [500, 210, 210],
    [3, 0, 0],
  ])("skip %i over %i matches skipped %i", (skip, total, skipped) => {
    expect(skippedCount(planPage({ ...req, skip }, groupSortable, "groups", {}, tokens), total)).toBe(skipped);
  });

  it("refuses a negative skip naming skip", () => {
    expect(fieldOf(() => planPage({ ...req, skip: -1 }, groupSortable, "groups", {}, tokens))).toBe("skip");
  });
});
