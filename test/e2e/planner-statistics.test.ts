/**
 * A server started on a SQLite store that was never analyzed (every store before this was kept,
 * and one loaded in bulk) analyzes its hierarchy tables by itself at start, without an operator's
 * ANALYZE (test/store/planner-statistics.store.test.ts holds what the statistics decide).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStore } from "../../src/store/create-store.js";
import { engines, type EngineContext, type TestLocation } from "../support/engines.js";
import { bulkChildrenSql, group, rootUid } from "../support/groups.js";
import { execRaw, rawRows } from "../support/raw-sql.js";
import { startTestServer, storeAt, type TestServer } from "../support/server.js";

const ORG = rootUid(0xe5);
const GROUPS = 2_000;

/** The stat1 rows of an index, read beside the server; none before any ANALYZE made the table. */
async function statOf(t: EngineContext, index: string): Promise<string[]> {
  if ((await rawRows(t, "select 1 from sqlite_schema where name = 'sqlite_stat1'")).length === 0) return [];
  return (await rawRows(t, `select stat from sqlite_stat1 where idx = '${index}'`)).map((r) => String(r.stat));
}

const sqlite = engines.find((e) => e.name === "sqlite");
describe("a server on a store without planner statistics [sqlite]", () => {
  let location: TestLocation;
  let t: TestServer | undefined;
  const context = { engine: "sqlite", options: () => location.options } as EngineContext;

  beforeAll(async () => {
    if (sqlite === undefined) throw new Error("the suite always has SQLite");
    location = await sqlite.location();
    const store = await createStore(location.options);
    await store.groups.insert(group(ORG, "bulk"));
    await store.close();
    await execRaw(context, bulkChildrenSql(ORG, 1, GROUPS));
  });
  afterAll(async () => {
    await t?.close();
    await location?.dispose();
  });

  it("analyzes its groups at start", async () => {
    expect(await statOf(context, "groups_name_uid_idx")).toEqual([]);
    t = await startTestServer(sqlite as NonNullable<typeof sqlite>, storeAt(location.options));
    const server = t;
    const said = () => server.logs.find((line) => line.msg === "analyzed the query planner's statistics");
    const deadline = Date.now() + 10_000;
    while (said() === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(said()?.tables).toContain("groups");
    // Every group: the organization and its children.
    expect((await statOf(context, "groups_name_uid_idx")).map((stat) => Number(stat.split(" ")[0]))).toEqual([GROUPS + 1]);
  });
});
