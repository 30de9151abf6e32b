import { describe, expect, it } from "vitest";
import { Code, isApiError } from "../../src/domain/errors.js";
import { PAGE_TOKEN_TTL_MS, PageTokens } from "../../src/domain/page-token.js";

const secret = Buffer.alloc(32, 7);

function fixedClock(start: number) {
  const clock = { t: start, now: () => clock.t };
  return clock;
}

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return isApiError(e) ? e.code : -1;
  }
}

describe("page tokens", () => {
  it("round-trips the key and position for the same query", () => {
    const tokens = new PageTokens(secret, fixedClock(1_000));
    const q = tokens.digest("groups", { name: "a" }, "name asc,uid asc");
    const token = tokens.issue(q, ["b", "abc"], 50);
    expect(token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(tokens.read(token, q, 2)).toEqual({ key: ["b", "abc"], position: 50 });
  });

  it("silently restarts after three days", () => {
    const clock = fixedClock(1_000);
    const tokens = new PageTokens(secret, clock);
    const q = tokens.digest("groups", {}, "name asc");
    const token = tokens.issue(q, ["x"], 5);
    clock.t += PAGE_TOKEN_TTL_MS;
    expect(tokens.read(token, q, 1)).toEqual({ key: ["x"], position: 5 });
    clock.t += 1;
    expect(tokens.read(token, q, 1)).toBeUndefined();
  });

  it.each([
    ["another filter", { name: "b" }, "name asc", 1],
    ["another order", { name: "a" }, "name desc", 1],
    ["an order of more keys", { name: "a" }, "name asc,uid asc", 2],
  ])("restarts an expired token sent with %s rather than refusing it (spec, List rule 3)", (_, filter, order, keys) => {
    const clock = fixedClock(1_000);
    const tokens = new PageTokens(secret, clock);
    const token = tokens.issue(tokens.digest("groups", { name: "a" }, "name asc"), ["k"], 1);
    const other = tokens.digest("groups", filter, order);
    expect(codeOf(() => tokens.read(token, other, keys))).toBe(Code.INVALID_ARGUMENT);
    clock.t += PAGE_TOKEN_TTL_MS + 1;
    expect(tokens.read(token, other, keys)).toBeUndefined();
  });

  it("still refuses a forged token that claims to have expired", () => {
    const clock = fixedClock(1_000);
    const tokens = new PageTokens(secret, clock);
    const q = tokens.digest("groups", {}, "name asc");
    const [, tag] = tokens.issue(q, ["k"], 1).split(".");
    const forged = `${Buffer.from(JSON.stringify({ v: 1, q, k: ["k"], p: 1, t: 0 })).toString("base64url")}.${tag}`;
    clock.t += PAGE_TOKEN_TTL_MS + 1;
    expect(codeOf(() => tokens.read(forged, q, 1))).toBe(Code.INVALID_ARGUMENT);
  });

  it.each([
    ["another filter", (t: PageTokens, tok: string) => t.read(tok, t.digest("groups", { name: "b" }, "name asc"), 1)],
    ["another order", (t: PageTokens, tok: string) => t.read(tok, t.digest("groups", { name: "a" }, "name desc"), 1)],
    ["another resource", (t: PageTokens, tok: string) => t.read(tok, t.digest("roles", { name: "a" }, "name asc"), 1)],
    [
      "a forged tag",
      (t: PageTokens, tok: string) =>
        t.read(`${tok.split(".")[0]}.AAAAAAAAAAAAAAAAAAAAAA`, t.digest("groups", { name: "a" }, "name asc"), 1),
    ],
    ["a changed body", (t: PageTokens, tok: string) => t.read(`x${tok}`, t.digest("groups", { name: "a" }, "name asc"), 1)],
    ["garbage", (t: PageTokens) => t.read("not-a-token", t.digest("groups", { name: "a" }, "name asc"), 1)],
    ["a key of the wrong length", (t: PageTokens, tok: string) => t.read(tok, t.digest("groups", { name: "a" }, "name asc"), 2)],
  ])("refuses a token with %s as INVALID_ARGUMENT", (_, read) => {
    const tokens = new PageTokens(secret, fixedClock(1_000));
    const token = tokens.issue(tokens.digest("groups", { name: "a" }, "name asc"), ["k"], 1);
    expect(codeOf(() => read(tokens, token))).toBe(Code.INVALID_ARGUMENT);
  });

  it("refuses a token made with another secret", () => {
    const a = new PageTokens(secret, fixedClock(1));
    const b = new PageTokens(Buffer.alloc(32, 8), fixedClock(1));
    const q = a.digest("groups", {}, "name asc");
    expect(codeOf(() => b.read(a.issue(q, ["k"], 1), q, 1))).toBe(Code.INVALID_ARGUMENT);
  });
});
