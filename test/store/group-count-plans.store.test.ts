/**
 * Every statement that reads `group_descendant_counts` by ancestor reads that ancestor's rows
 * through its index, whatever SQLite's statistics say. ANALYZE taken while one ancestor held all
 * of the table's rows (a bulk load, before its first count folds them into one) tells SQLite that
 * a key matches the whole table; the counts then scanned the whole table on every page, growing
 * with every group made anywhere (S8, bench/findings.md). Read off SQLite's plan for each
 * statement the group store sent, with stale statistics of just that shape. PostgreSQL is not
 * concerned: its autovacuum analyzes a table again as it changes.
 */
import { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GroupFilter } from "../../src/domain/groups.js";
import { createStore } from "../../src/store/create-store.js";
import { engineSetup } from "../../src/store/dialect.js";
import { createGroupStore, type GroupStore } from "../../src/store/group-store.js";
import { ScopeMemory } from "../../src/store/scope-memory.js";
import type { Store } from "../../src/store/store.js";
import type { Database } from "../../src/store/tables.js";
import { engines, type EngineContext, type TestLocation } from "../support/engines.js";
import { bulkChildrenSql, childUid, group, rootUid } from "../support/groups.js";
import { execRaw, planLines, rawRows } from "../support/raw-sql.js";

const A = rootUid(0xd0);
const B = rootUid(0xd1);
const PARENT = childUid(B, 1);
const IN_A = 2_000;
const IN_PARENT = 3_000;
/** More scopes than FEW_SCOPES, each a child of A: the many-scope count (group-pages.ts). */
const SCOPES = Object.freeze(Array.from({ length: 20 }, (_, i) => childUid(A, i + 1)));

const below = (uid: string, visibleUnder?: readonly string[]): GroupFilter => ({
  uidp: { descendantsOf: uid },
  ...(visibleUnder !== undefined && { visibleUnder }),
});

describe("descendant counts' plans under stale statistics [sqlite]", () => {
  const sqlite = engines.find((e) => e.name === "sqlite");
  let location: TestLocation;
  let store: Store;
  let db: Kysely<Database>;
  let groups: GroupStore;
  const sent: { sql: string; parameters: readonly unknown[] }[] = [];
  const t = { engine: "sqlite", options: () => location.options } as EngineContext;

  beforeAll(async () => {
    if (sqlite === undefined) throw new Error("the suite always has SQLite");
    location = await sqlite.location();
    store = await createStore(location.options);
    await store.groups.insert(group(A, "a"));
    await store.groups.insert(group(B, "b"));
    await execRaw(t, bulkChildrenSql(A, 1, IN_A));
    // The statistics of that moment: one ancestor, every row of the table.
    await execRaw(t, "analyze");
    const [stat] = await rawRows(t, "select stat from sqlite_stat1 where idx = 'group_descendant_counts_ancestor_uid_idx'");
    expect(stat?.stat).toBe(`${IN_A} ${IN_A}`);
    // Its first count folds A's rows into one; then groups are made elsewhere.
    expect(await store.groups.count(below(A))).toBe(IN_A);
    await store.groups.insert(group(PARENT, "parent"));
    await execRaw(t, bulkChildrenSql(PARENT, 1, IN_PARENT));
    db = new Kysely<Database>({
      dialect: engineSetup(location.options).dialect,
      log: (e) => void sent.push({ sql: e.query.sql, parameters: e.query.parameters }),
    });
    groups = createGroupStore(db, "sqlite", () => undefined, new ScopeMemory());
  });
  afterAll(async () => {
    await db?.destroy();
    await store?.close();
    await location?.dispose();
  });

  it("counts, folds and versions read one ancestor's rows by the index, never the whole table", async () => {
    expect(await groups.count(below(A))).toBe(IN_A);
    // 3,001 rows of B's: the count folds them.
    expect(await groups.count(below(B))).toBe(IN_PARENT + 1);
    // The many-scope count: the version of A's counts, then the sums, in group-pages.ts.
    expect(await groups.count(below(A, SCOPES))).toBe(SCOPES.length);
    const reads = sent.filter((s) => /group_descendant_counts/.test(s.sql) && !/^\s*insert/i.test(s.sql));
    // The single-scope sum, the fold's read and delete, the version and the many-scope sums.
    expect(new Set(reads.map((s) => s.sql.replace(/\s+/g, " ").slice(0, 60))).size).toBeGreaterThanOrEqual(5);
    for (const statement of reads) {
      const lines = (await planLines(t, statement)).join("\n");
      expect(lines, statement.sql).toMatch(/group_descendant_counts USING (COVERING )?INDEX group_descendant_counts_ancestor_uid_idx/);
      expect(lines, statement.sql).not.toMatch(/SCAN group_descendant_counts/);
    }
  });
});
