/**
 * The SQLite store keeps the planner's statistics of the tables listed below a group in another
 * order than uid (dialect.ts, PLANNED_BY_STATISTICS): a page of most of the table walks the
 * order's index, a page of a few rows reads their range of uids, and the reader plans by
 * statistics the writer took. Without statistics SQLite read and sorted the whole range for an
 * organization's page (20 ms at 100,000 groups, docs/architecture.md "Planner statistics").
 * PostgreSQL is not concerned: its autovacuum analyzes a table again as it changes.
 */
import { CompiledQuery, Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GroupFilter } from "../../src/domain/groups.js";
import { createStore } from "../../src/store/create-store.js";
import { engineSetup, type EngineSetup } from "../../src/store/dialect.js";
import { createGroupStore, type GroupStore } from "../../src/store/group-store.js";
import type { RowWindow } from "../../src/store/row-window.js";
import { ScopeMemory } from "../../src/store/scope-memory.js";
import type { Store } from "../../src/store/store.js";
import type { Database } from "../../src/store/tables.js";
import { engines, type EngineContext, type TestLocation } from "../support/engines.js";
import { bulkChildrenSql, childUid, group, rootUid } from "../support/groups.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

const BIG = rootUid(0xe0);
const SMALL = rootUid(0xe1);
const IN_BIG = 3_000;

const below = (uid: string): GroupFilter => ({ uidp: { descendantsOf: uid } });
const byName: RowWindow = { order: [{ field: "name", desc: false }], offset: 0, limit: 51 };

describe("the planner's statistics of the hierarchy tables [sqlite]", () => {
  const sqlite = engines.find((e) => e.name === "sqlite");
  let location: TestLocation;
  let store: Store;
  let setup: EngineSetup;
  let db: Kysely<Database>;
  let groups: GroupStore;
  const sent: CompiledQuery[] = [];
  const t = { engine: "sqlite", options: () => location.options } as EngineContext;

  /** The plan, on the reader, of the page statement the group store sends for filter. */
  async function pagePlan(filter: GroupFilter): Promise<string> {
    sent.length = 0;
    await groups.list(filter, byName);
    const page = sent.find((q) => /^\s*select \* from "groups"/.test(q.sql) && /order by "name"/.test(q.sql));
    if (page === undefined) throw new Error(`no page statement among ${sent.map((q) => q.sql).join("; ")}`);
    // An EXPLAIN only reads: the driver runs it on the reader, with the page's own parameters.
    const { rows } = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${page.sql}`, [...page.parameters]));
    return rows.map((r) => r.detail).join("\n");
  }

  beforeAll(async () => {
    if (sqlite === undefined) throw new Error("the suite always has SQLite");
    location = await sqlite.location();
    store = await createStore(location.options);
    await store.groups.insert(group(BIG, "big"));
    await store.groups.insert(group(SMALL, "small"));
    for (let i = 1; i <= 3; i++) await store.groups.insert(group(childUid(SMALL, i), `s-${i}`));
    await store.groups.insert(group(childUid(BIG, 1), "g-1"));
    // Statistics of a store of six groups, as a server's first refresh would take them.
    setup = engineSetup(location.options);
    db = new Kysely<Database>({ dialect: setup.dialect, log: (e) => void sent.push(e.query) });
    groups = createGroupStore(db, "sqlite", () => undefined, new ScopeMemory());
    await groups.list(below(BIG), byName);
    expect(await setup.refreshStatistics()).toContain("groups");
    // Then the table grows five hundredfold.
    await execRaw(t, bulkChildrenSql(BIG, 2, IN_BIG - 1));
  });
  afterAll(async () => {
    await db?.destroy();
    await store?.close();
    await location?.dispose();
  });

  it("analyzes a table grown tenfold, and the reader plans by it: the big range walks the names", async () => {
    // The statistics of six groups: the page reads the range and sorts it.
    expect(await pagePlan(below(BIG))).toMatch(/USE TEMP B-TREE FOR ORDER BY/);
    expect(await setup.refreshStatistics()).toEqual(["groups"]);
    const [stat] = await rawRows(t, "select stat from sqlite_stat1 where idx = 'groups_name_uid_idx'");
    expect(String(stat?.stat)).toMatch(new RegExp(`^${IN_BIG + 5} `));
    const big = await pagePlan(below(BIG));
    expect(big).toMatch(/SCAN groups USING INDEX groups_name_uid_idx/);
    expect(big).not.toMatch(/TEMP B-TREE/);
    // A few rows of the same table: their range, sorted.
    expect(await pagePlan(below(SMALL))).toMatch(/SEARCH groups USING INDEX sqlite_autoindex_groups_1 \(uid>\? AND uid<\?\)/);
    expect((await groups.list(below(BIG), byName)).map((g) => g.name).slice(0, 3)).toEqual(["g-1", "g-10", "g-100"]);
  });

  it("analyzes nothing again until a table's size changes tenfold", async () => {
    expect(await setup.refreshStatistics()).toEqual([]);
    await store.groups.insert(group(childUid(SMALL, 4), "s-4"));
    expect(await setup.refreshStatistics()).toEqual([]);
  });

  it("plans by statistics another connection wrote, as an operator's ANALYZE", async () => {
    // SMALL grows to most of the table, short of a tenfold change: nothing is due.
    await execRaw(t, bulkChildrenSql(SMALL, 100, 20_000));
    expect(await setup.refreshStatistics()).toEqual([]);
    // By the statistics of the refresh before, SMALL's range is a few rows.
    expect(await pagePlan(below(SMALL))).toMatch(/USE TEMP B-TREE FOR ORDER BY/);
    await execRaw(t, "analyze groups");
    expect(await setup.refreshStatistics()).toEqual([]);
    expect(await pagePlan(below(SMALL))).toMatch(/SCAN groups USING INDEX groups_name_uid_idx/);
  });

  it("is what the store's refresh runs", async () => {
    const fresh = await (sqlite as (typeof engines)[number]).location();
    const other = await createStore(fresh.options);
    try {
      await other.groups.insert(group(rootUid(0xe2), "fresh"));
      expect(await other.refreshPlannerStatistics()).toContain("groups");
      expect(await other.refreshPlannerStatistics()).toEqual([]);
    } finally {
      await other.close();
      await fresh.dispose();
    }
  });
});

const postgres = engines.find((e) => e.name === "postgres");
describe.skipIf(postgres?.skipReason !== undefined)("the planner's statistics [postgres]", () => {
  it("are left to autovacuum: the store's refresh analyzes nothing", async () => {
    const location = await (postgres as (typeof engines)[number]).location();
    const store = await createStore(location.options);
    try {
      expect(await store.refreshPlannerStatistics()).toEqual([]);
    } finally {
      await store.close();
      await location.dispose();
    }
  });
});
