/**
 * `arbor advisories list|get|check` through the API, next to `import` (which writes to the store):
 * the feed fixtures imported into a real server, then listed with filters and pages and fetched
 * by id.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCli, type TestCli } from "../support/cli.js";
import { engines } from "../support/engines.js";
import { FEED_IDS, importPaths, OSV } from "../support/osv.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0] as (typeof engines)[number];

// Every step spawns the CLI, which is slow on a loaded machine.
describe("arbor advisories list, get and check", { timeout: 120_000 }, () => {
  let t: TestServer;
  let cli: TestCli;
  const json = async (args: string[]): Promise<any> => JSON.parse(await cli.ok([...args, "-o", "json"]));

  beforeAll(async () => {
    t = await startTestServer(engine);
    await importPaths(t.server.store, [OSV.feed]);
    cli = testCli(t.url, (await t.organization("acme")).token);
  });
  afterAll(async () => {
    cli?.dispose();
    await t?.close();
  });

  it("lists every advisory by id, one page at a time or all of them", async () => {
    expect((await cli.ok(["advisories", "list", "--all", "-o", "id"])).trim().split("\n")).toEqual(FEED_IDS);
    const first = await cli.run(["advisories", "list", "--page-size", "4", "-o", "id"]);
    expect(first.stdout.trim().split("\n")).toEqual(FEED_IDS.slice(0, 4));
    expect(first.stderr).toContain(`showing 4 of ${FEED_IDS.length} advisories`);
  });

  it("filters by ecosystem and gets one advisory by its id", async () => {
    const npm = await json(["advisories", "list", "--ecosystem", "npm"]);
    expect(npm.length).toBeGreaterThan(0);
    for (const a of npm) expect(a.affected.some((x: any) => x.ecosystem === "npm")).toBe(true);
    const one = await json(["advisories", "get", npm[0].advisoryId]);
    expect(one).toEqual(npm[0]);
    const table = await cli.ok(["advisories", "list", "--ecosystem", "npm", "-o", "table"]);
    expect(table.split("\n")[0]).toMatch(/^ID +ALIASES +MODIFIED +SUMMARY$/);
  });

  it("checks package versions: a row per advisory, JSON with -o json, exit 1 under --fail-on-affected", async () => {
    const table = await cli.run([
      "advisories",
      "check",
      "npm/lodash@4.17.15",
      "npm/lodash@4.17.19",
      "SUSE:Linux Enterprise Server 15 SP5/openssl-3@3.0.8-150500.5.19.1",
      "-o",
      "table",
    ]);
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^PACKAGE +VERSION +ADVISORY +FIXED IN +SUMMARY$/);
    expect(lines[1]).toMatch(/^npm\/lodash +4\.17\.15 +GHSA-p6mc-m468-83gw +4\.17\.19 +Prototype Pollution in lodash$/);
    expect(lines[2]).toMatch(/^npm\/lodash +4\.17\.19 +no advisory affects it$/);
    expect(lines[3]).toContain("SUSE-SU-2024:0001-1 (UNDECIDED)");
    const results = await json(["advisories", "check", "PyPI/urllib3@1.26.4"]);
    expect(results[0].advisories.map((a: any) => a.advisoryId)).toEqual(["PYSEC-2021-108"]);
    expect((await cli.run(["advisories", "check", "--fail-on-affected", "npm/lodash@4.17.15", "-o", "id"])).code).toBe(1);
    expect((await cli.run(["advisories", "check", "--fail-on-affected", "npm/lodash@4.17.19", "-o", "id"])).code).toBe(0);
  });

  it("reads package versions from a file, and refuses a malformed one before calling (exit 2)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-check-"));
    const list = join(dir, "packages.txt");
    writeFileSync(list, "# a lockfile's worth\nnpm/lodash@4.17.15\n\nGo/stdlib@1.19.0\n");
    const results = await json(["advisories", "check", "--file", list]);
    expect(results.map((r: any) => r.advisories.map((a: any) => a.advisoryId))).toEqual([["GHSA-p6mc-m468-83gw"], ["GO-2022-0969"]]);
    writeFileSync(list, JSON.stringify([{ ecosystem: "crates.io", name: "openssl", version: "0.10.54" }]));
    expect((await json(["advisories", "check", "-f", list]))[0].advisories[0].advisoryId).toBe("RUSTSEC-2023-0044");
    const bad = await cli.run(["advisories", "check", "lodash@4.17.15"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"lodash@4.17.15" is not ECOSYSTEM/NAME@VERSION');
    expect((await cli.run(["advisories", "check"])).code).toBe(2);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a malformed --modified-since before calling (exit 2), and reports an unknown id (exit 1)", async () => {
    expect((await cli.run(["advisories", "list", "--modified-since", "yesterday"])).code).toBe(2);
    const missing = await cli.run(["advisories", "get", "GHSA-0000-0000-0000"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("(gRPC code 5 NOT_FOUND)");
  });
});
