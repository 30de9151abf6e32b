/**
 * The CLI's pure pieces, table-tested: output format defaults, colour rules, table layout,
 * readable times, flag value parsers and the group tree.
 */
import { describe, expect, it } from "vitest";
import { buildForest, drawTree } from "../../src/cli/iam/groups-tree.js";
import { readableTime } from "../../src/cli/output/cells.js";
import { resolveFormat } from "../../src/cli/output/format.js";
import { colorAllowed, tableWidth, type CliIo } from "../../src/cli/output/io.js";
import { renderTable } from "../../src/cli/output/table.js";
import { shortenUids } from "../../src/cli/output/uids.js";
import { duration, timestamp } from "../../src/cli/resource/parsers.js";
import type { CommandContext } from "../../src/cli/resource/context.js";

const io = (isTTY: boolean, env: Record<string, string> = {}): CliIo => ({
  stdout: { write: () => true, isTTY },
  stderr: { write: () => true },
  stdinIsTty: false,
  confirm: () => Promise.resolve(false),
  env,
});
const ctx = {} as CommandContext;

describe("output", () => {
  it.each([
    [undefined, true, "table"],
    [undefined, false, "json"],
    ["yaml", true, "yaml"],
    ["id", false, "id"],
    ["wide", false, "wide"],
  ] as const)("-o %s with a terminal=%s is %s", (flag, tty, format) => {
    expect(resolveFormat(flag, tty)).toBe(format);
  });

  it("refuses an unknown format", () => {
    expect(() => resolveFormat("xml", true)).toThrow(/not one of table, wide, json, yaml, id/);
  });

  it.each([
    [true, {}, true],
    [false, {}, false],
    [true, { NO_COLOR: "1" }, false],
    [true, { NO_COLOR: "" }, true],
  ] as const)("colour on a terminal=%s with %j: %s", (tty, env, allowed) => {
    expect(colorAllowed(io(tty, env))).toBe(allowed);
  });

  it("aligns columns under their headers, without trailing spaces", () => {
    const columns = [
      { header: "NAME", value: (r: string[]) => r[0] as string },
      { header: "UID", value: (r: string[]) => r[1] as string },
      { header: "NOTE", value: (r: string[]) => r[2] as string },
    ];
    expect(
      renderTable(columns, [
        ["engineering", "a1", "x\ny"],
        ["qa", "b22", ""],
      ]),
    ).toBe("NAME         UID  NOTE\nengineering  a1   x y\nqa           b22\n");
  });

  const fitted = [
    { header: "NAME", value: (r: string[]) => r[0] as string },
    { header: "UID", value: (r: string[]) => r[1] as string, kind: "uid" as const },
    { header: "DESCRIPTION", value: (r: string[]) => r[2] as string, priority: 3 },
    { header: "CREATED", value: (r: string[]) => r[3] as string, kind: "fixed" as const, priority: 2 },
  ];
  const org = "0123456789abcdef0123456789abcdef01234567";
  const rows = [
    ["engineering", `${org}/00000000000000aa`, "the people who build and run every service we sell", "2026-03-27 13:55:00 UTC"],
    ["sales", `${org}/00000000000000bb`, "", "2026-03-27 13:55:00 UTC"],
  ];
  const widthOf = (table: string) => Math.max(...table.split("\n").map((l) => [...l].length));

  it("fits the width: long cells are cut with an ellipsis before any column goes", () => {
    const table = renderTable(fitted, rows, { width: 80 });
    expect(widthOf(table)).toBeLessThanOrEqual(80);
    expect(table).toContain("…/00000000000000aa");
    expect(table).toMatch(/the people who b\S*…/);
    expect(table).toContain("2026-03-27 13:55:00 UTC");
  });

  it("drops the least important column first when cutting is not enough, never the name or uid", () => {
    const at62 = renderTable(fitted, rows, { width: 62 });
    expect(at62.split("\n")[0]).toBe("NAME         UID                 CREATED");
    expect(widthOf(at62)).toBeLessThanOrEqual(62);
    const at20 = renderTable(fitted, rows, { width: 20 });
    // Nothing left to drop: names are cut to their floor, and the row is as short as it can be.
    expect(at20.split("\n").slice(0, 2)).toEqual(["NAME        UID", "engineeri…  …/00000000000000aa"]);
  });

  it("shows every column whole without a width (a pipe), and full uids too when wide", () => {
    const wide = renderTable(fitted, rows, { width: 40, wide: true });
    const piped = renderTable(fitted, rows);
    for (const table of [wide, piped]) expect(table).toContain("the people who build and run every service we sell");
    expect(wide).toContain(`${org}/00000000000000aa`);
    expect(piped).not.toContain(`${org}/00000000000000aa`);
  });

  it.each([
    [
      [`${org}/00000000000000aa`, `${org}/00000000000000bb`],
      ["…/00000000000000aa", "…/00000000000000bb"],
    ],
    [
      [org, `${org}/00000000000000aa`],
      ["0123456789ab…", "…/00000000000000aa"],
    ],
    // Same last segment under two parents: shortening would make them look alike, so all stay whole.
    [
      [`${org}/00000000000000aa`, `${org}/00000000000000bb/00000000000000aa`],
      [`${org}/00000000000000aa`, `${org}/00000000000000bb/00000000000000aa`],
    ],
  ])("shortens uids %j as %j", (uids, shown) => {
    expect(shortenUids(uids)).toEqual(shown);
  });

  it.each([
    [{ COLUMNS: "100" }, false, undefined, 100],
    [{}, false, undefined, undefined],
    [{ COLUMNS: "wide" }, false, undefined, undefined],
    [{ COLUMNS: "100" }, true, 132, 132],
  ] as const)("table width with %j, terminal=%s of %s columns: %s", (env, tty, columns, width) => {
    expect(tableWidth({ ...io(tty, env), stdout: { write: () => true, isTTY: tty, columns } })).toBe(width);
  });

  it.each([
    ["2026-03-27T13:55:00.423Z", "2026-03-27 13:55:00 UTC"],
    ["2026-03-27T13:55:00Z", "2026-03-27 13:55:00 UTC"],
    ["not a time", "not a time"],
    [undefined, ""],
  ])("reads %s as %s", (value, shown) => {
    expect(readableTime(value)).toBe(shown);
  });
});

describe("flag values", () => {
  it.each([
    ["30m", "1800s"],
    ["24h", "86400s"],
    ["7d", "604800s"],
    ["1d12h", "129600s"],
  ])("--ttl %s is %s", async (text, json) => {
    expect(await duration("--ttl")(text, ctx)).toBe(json);
  });

  it.each(["", "soon", "7", "7w", "1d x"])("--ttl %j is refused", (text) => {
    expect(() => duration("--ttl")(text, ctx)).toThrow(/not a duration/);
  });

  it("takes RFC 3339 times only", () => {
    expect(timestamp("--t")("2026-01-01T00:00:00+02:00", ctx)).toBe("2025-12-31T22:00:00.000Z");
    expect(() => timestamp("--t")("2026-01-01", ctx)).toThrow(/RFC 3339/);
  });
});

describe("groups tree", () => {
  const root = "0".repeat(40);
  const g = (uid: string, name: string) => ({ uid, name });

  it("nests groups under their parents, siblings by name, orphans as roots", () => {
    const forest = buildForest([
      g(`${root}/${"2".repeat(16)}`, "sales"),
      g(root, "acme"),
      g(`${root}/${"1".repeat(16)}`, "engineering"),
      g(`${root}/${"1".repeat(16)}/${"3".repeat(16)}`, "backend"),
      g(`${"9".repeat(40)}/${"4".repeat(16)}`, "visible-alone"),
    ]);
    expect(forest.map((t) => t.name)).toEqual(["acme", "visible-alone"]);
    expect(drawTree(forest[0]!)).toBe("acme\n├── engineering\n│   └── backend\n└── sales\n");
  });
});
