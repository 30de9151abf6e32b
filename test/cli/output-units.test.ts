/**
 * The CLI's pure pieces, table-tested: output format defaults, colour rules, table layout,
 * readable times, flag value parsers and the group tree.
 */
import { describe, expect, it } from "vitest";
import { buildForest, drawTree } from "../../src/cli/iam/groups-tree.js";
import { readableTime } from "../../src/cli/output/cells.js";
import { resolveFormat } from "../../src/cli/output/format.js";
import { colorAllowed, type CliIo } from "../../src/cli/output/io.js";
import { renderTable } from "../../src/cli/output/table.js";
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
  ] as const)("-o %s with a terminal=%s is %s", (flag, tty, format) => {
    expect(resolveFormat(flag, tty)).toBe(format);
  });

  it("refuses an unknown format", () => {
    expect(() => resolveFormat("xml", true)).toThrow(/not one of table, json, yaml, id/);
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
    expect(renderTable(columns, [["engineering", "a1", "x\ny"], ["qa", "b22", ""]])).toBe(
      "NAME         UID  NOTE\nengineering  a1   x y\nqa           b22\n",
    );
  });

  it.each([
    ["2026-03-27T13:55:00.423Z", "2026-03-27 13:55:00"],
    ["2026-03-27T13:55:00Z", "2026-03-27 13:55:00"],
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
