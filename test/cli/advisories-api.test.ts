/**
 * `arbor advisories list|get` through the API, next to `import` (which writes to the store):
 * the feed fixtures imported into a real server, then listed with filters and pages and fetched
 * by id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCli, type TestCli } from "../support/cli.js";
import { engines } from "../support/engines.js";
import { FEED_IDS, importPaths, OSV } from "../support/osv.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0] as (typeof engines)[number];

// Every step spawns the CLI, which is slow on a loaded machine.
describe("arbor advisories list and get", { timeout: 120_000 }, () => {
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
    expect(table.split("\n")[0]).toMatch(/^ID +ALIASES +MODIFIED \(UTC\) +SUMMARY$/);
  });

  it("refuses a malformed --modified-since before calling (exit 2), and reports an unknown id (exit 1)", async () => {
    expect((await cli.run(["advisories", "list", "--modified-since", "yesterday"])).code).toBe(2);
    const missing = await cli.run(["advisories", "get", "GHSA-0000-0000-0000"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("(code 5 NOT_FOUND)");
  });
});
