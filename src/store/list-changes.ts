/**
 * Counts and pages of a list for a caller with many scopes (more than FEW_SCOPES visible
 * subtrees), for tables whose rows are visible at a group (role bindings): what keeps such a
 * list's cost bounded by the page and by what changed, not by the caller's bindings (issue 22;
 * docs/architecture.md, "How visibility is computed").
 *
 * The totalCount is taken once, with the moment it was taken (a position in the list's change
 * log, migration 0017), and remembered in the store's ScopeMemory under the caller's scopes
 * array. The next page reads only the log's changes since that moment, moves the count forward by
 * those the caller sees, and remembers the new moment: exact, and as cheap as the changes are
 * few. A count older than the log's horizon (pruned), or with more changes since it than a
 * count would read, is taken again.
 *
 * A page is read in its own order without the visibility condition, each row tested here against
 * the remembered set of the scopes, when the count says visible rows are dense enough that a page
 * reads at most MAX_READ_ROWS rows; a sparse caller's page is left to the engine (hierarchy-filter.ts).
 */
import { sql, type Expression, type SqlBool } from "kysely";
import { inOrder, scopesBelow } from "../domain/visible-scopes.js";
import { type Executor } from "./tables.js";
import { inTransaction } from "./nested-transactions.js";
import type { Engine } from "./dialect.js";
import { FEW_SCOPES, rowsInSubtrees, visibleUnder } from "./hierarchy-filter.js";
import type { ListFilter } from "./resource-filter.js";
import type { ListCount, ScopeMemory } from "./scope-memory.js";
import { compareKeys, MAX_READ_ROWS, testedPage } from "./page-reads.js";
import { guard } from "./translate-error.js";
import type { RowWindow } from "./row-window.js";

/** The most rows a page read here may read, and the most changes a count is moved forward by (page-reads.ts). */
export { MAX_READ_ROWS };

/** Rows per batch of a narrow filter's page: most narrow filters' rows in one statement. */
const NARROW_BATCH = 1_000;

/** What of a list filter this module reads: the caller's scopes and the group listed below. */
export interface PlainFilter {
  /** The caller's scopes, as Permissions.scopes handed them out (undefined: sees everything). */
  scopes: readonly string[] | undefined;
  /** uidp.descendants_of, or undefined for the whole table. */
  under: string | undefined;
}

/** What a table tells this module. */
export interface ChangedTable<F, R> {
  /** The table's name, as the log (and its triggers) name it. */
  name: string;
  /** The filter's plain part; undefined when it holds anything more (an identity, a role, a name...). */
  plain(filter: F): PlainFilter | undefined;
  /**
   * For a filter that is not plain, the caller's scopes and the group the filter reads within
   * (`descendants_of` or `children_of`), when seen() alone decides what of its rows the caller
   * sees; undefined when it does not (people among identities, seen through their bindings).
   */
  narrow(filter: F): { scopes: readonly string[] | undefined; within: string | undefined } | undefined;
  /** Whether the caller sees a record, given whether its scopes reach a uid. */
  seen(record: R, reaches: (uid: string) => boolean): boolean;
  /**
   * The column holding the uid a row is visible at, when that is all there is to its visibility
   * (so a sparse caller's rows can be read scope by scope); undefined otherwise.
   */
  scopeColumn: string | undefined;
  /** The record a row holds. */
  fromRow(row: unknown): R;
  /** The value of a record's sort field. */
  sortValue(record: R, field: string): string | number;
  /** The rows matching a filter, in a window (the table's ordinary list). */
  list(filter: F, window: RowWindow): Promise<R[]>;
  /** The filter without the caller's visibility. */
  everything(filter: F): F;
  /** The conditions of a filter, as the table's list reads them. */
  conditions(filter: F): Expression<SqlBool>[];
  /** The condition that a row is visible under the given scopes. */
  visible(scopes: readonly string[]): Expression<SqlBool>;
}

/** Many-scope pages and counts; undefined where the ordinary statements serve. */
export interface ManyScopeList<F, R> {
  list(filter: F, window: RowWindow): Promise<R[] | undefined>;
  count(filter: F): Promise<number | undefined>;
}

/** Many-scope pages and counts of table over db. */
export function manyScopeList<F, R>(db: Executor, engine: Engine, memory: ScopeMemory, table: ChangedTable<F, R>): ManyScopeList<F, R> {
  return {
    async list(filter, window) {
      const plain = table.plain(filter);
      if (plain === undefined) return narrowList(filter, window);
      const many = manyScopes(plain);
      if (many === undefined) return undefined;
      // Only to choose how to read: a remembered count, even one changes have overtaken, is as
      // good as a fresh one and costs no statement (the page is exact either way).
      const { seen, all } = memory.listCount(many.scopes, keyOf(many)) ?? (await counted(filter, many));
      const need = window.offset + window.limit;
      const reads = (need * all) / Math.max(seen, 1);
      // Few visible rows: all of them, scope by scope, cheaper than testing rows in order.
      if (seen <= reads && seen <= MAX_READ_ROWS && table.scopeColumn !== undefined) {
        const page = await gathered(filter, many, window, table.scopeColumn);
        if (page !== undefined) return page;
      }
      if (reads > MAX_READ_ROWS) return undefined;
      return tested(filter, many.scopes, window, Math.min(MAX_READ_ROWS, Math.ceil(reads) + 16));
    },

    async count(filter) {
      const plain = table.plain(filter);
      if (plain === undefined) return narrowCount(filter);
      const many = manyScopes(plain);
      if (many === undefined) return undefined;
      return (await counted(filter, many)).seen;
    },
  };

  /**
   * The caller's scopes for a filter narrower than the plain one (an identity, a role, a name, a
   * parent), when it sees many subtrees there and seen() decides; else undefined (the engine).
   */
  function narrowScopes(filter: F): readonly string[] | undefined {
    const narrow = table.narrow(filter);
    if (narrow?.scopes === undefined) return undefined;
    const below = narrow.within === undefined ? inOrder(narrow.scopes) : scopesBelow(narrow.scopes, narrow.within);
    if (below === "all" || below.length <= FEW_SCOPES) return undefined;
    return narrow.scopes;
  }

  /** A page of a narrow filter: its rows read in order and tested here, in batches, the engine finishing past MAX_READ_ROWS. */
  async function narrowList(filter: F, window: RowWindow): Promise<R[] | undefined> {
    const scopes = narrowScopes(filter);
    if (scopes === undefined) return undefined;
    return tested(filter, scopes, window, Math.min(MAX_READ_ROWS, Math.max(window.offset + window.limit + 16, NARROW_BATCH)));
  }

  /**
   * The count of a narrow filter: its rows (the filter narrows them by its own index) read and
   * tested here when they are at most MAX_READ_ROWS; else the engine's, and the filter is
   * remembered as broad for the caller so that it is not read again in vain.
   */
  async function narrowCount(filter: F): Promise<number | undefined> {
    const scopes = narrowScopes(filter);
    if (scopes === undefined) return undefined;
    const broad = `${table.name}\u0000broad\u0000${JSON.stringify({ ...table.everything(filter), visibleUnder: undefined })}`;
    if (memory.listCount(scopes, broad) !== undefined) return undefined;
    const rows = await table.list(table.everything(filter), {
      order: [{ field: "uid", desc: false }],
      offset: 0,
      limit: MAX_READ_ROWS + 1,
    });
    if (rows.length > MAX_READ_ROWS) {
      memory.rememberListCount(scopes, broad, { now: "", seen: 0, all: rows.length });
      return undefined;
    }
    const reaches = memory.reacher(scopes);
    return rows.filter((row) => table.seen(row, reaches)).length;
  }

  function keyOf(many: ManyScopes): string {
    return `${table.name}\u0000${many.under ?? ""}`;
  }

  /** The remembered count moved forward to now, or counted afresh. */
  async function counted(filter: F, many: ManyScopes): Promise<ListCount> {
    // Inside a transaction the changes read may be ones a rollback takes back: count, remember nothing.
    if (db.isTransaction) return guard(() => countNow(filter, many));
    const key = keyOf(many);
    const known = memory.listCount(many.scopes, key);
    if (known !== undefined) {
      const moved = await guard(() => moveForward(known, many));
      if (moved !== undefined) {
        memory.rememberListCount(many.scopes, key, moved);
        return moved;
      }
    }
    const fresh = await guard(() => countNow(filter, many));
    memory.rememberListCount(many.scopes, key, fresh);
    return fresh;
  }

  /** Every row under the filter and those the caller sees, with the log's position, in one statement. */
  async function countNow(filter: F, many: ManyScopes): Promise<ListCount> {
    const everything = table.conditions(table.everything(filter));
    const where = everything.length === 0 ? sql<SqlBool>`1 = 1` : sql.join(everything, sql` and `);
    const { rows } = await sql<{ all: number | string; seen: number | string | null; now: string | number }>`
      select count(*) as "all", sum(case when ${table.visible(many.below)} then 1 else 0 end) as seen, ${positionNow(engine)} as now
      from ${sql.table(table.name)} where ${where}`.execute(db);
    const row = rows[0];
    if (row === undefined) throw new Error("an aggregate returned no row");
    return { now: String(row.now), seen: Number(row.seen ?? 0), all: Number(row.all) };
  }

  /**
   * known moved forward by the changes logged since it was taken; undefined when the log has
   * been pruned past it or holds more changes since than a count would read.
   */
  async function moveForward(known: ListCount, many: ManyScopes): Promise<ListCount | undefined> {
    const since = await changesSince(db, engine, table.name, known.now);
    if (since === undefined) return undefined;
    let { seen, all } = known;
    const reaches = memory.reacher(many.scopes);
    for (const [rowUid, scopeUid, delta] of since.changes) {
      if (many.under !== undefined && !rowUid.startsWith(`${many.under}/`)) continue;
      all += delta;
      if (reaches(scopeUid)) seen += delta;
    }
    return { now: since.now, seen, all };
  }

  /**
   * A page of a caller who sees few rows: every visible row read through the scopes (one index
   * range of the scope column each, rowsInSubtrees), ordered here. Undefined when they are more
   * than MAX_READ_ROWS after all (rows made since the count the choice was made on).
   */
  async function gathered(filter: F, many: ManyScopes, window: RowWindow, column: string): Promise<R[] | undefined> {
    const everything = table.conditions(table.everything(filter));
    const where = everything.length === 0 ? sql<SqlBool>`1 = 1` : sql.join(everything, sql` and `);
    const inScopes = rowsInSubtrees(engine, table.name, column, many.below);
    const { rows } = await guard(() =>
      sql<Record<string, unknown>>`select * from (${inScopes}) as t where ${where} limit ${MAX_READ_ROWS + 1}`.execute(db),
    );
    if (rows.length > MAX_READ_ROWS) return undefined;
    const keyOfRecord = (r: R) => window.order.map((k) => table.sortValue(r, k.field));
    const after = window.after;
    const records = rows.map((row) => table.fromRow(row)).map((r) => ({ r, key: keyOfRecord(r) }));
    return (after === undefined ? records : records.filter((x) => compareKeys(x.key, after, window) > 0))
      .sort((a, b) => compareKeys(a.key, b.key, window))
      .slice(window.offset, window.offset + window.limit)
      .map((x) => x.r);
  }

  /** A page read in its order without visibility, each row tested here (page-reads.ts). */
  function tested(filter: F, scopes: readonly string[], window: RowWindow, batch: number): Promise<R[]> {
    const reaches = memory.reacher(scopes);
    return testedPage(
      { list: table.list, everything: table.everything(filter), seen: (row) => table.seen(row, reaches), sortValue: table.sortValue },
      filter,
      window,
      batch,
    );
  }
}

/** A plain filter of a caller who sees many subtrees of what it lists. */
interface ManyScopes {
  scopes: readonly string[];
  /** The scopes below `under` (all of them without it). */
  below: readonly string[];
  under: string | undefined;
}

function manyScopes(plain: PlainFilter | undefined): ManyScopes | undefined {
  if (plain?.scopes === undefined) return undefined;
  const below = plain.under === undefined ? inOrder(plain.scopes) : scopesBelow(plain.scopes, plain.under);
  if (below === "all" || below.length <= FEW_SCOPES) return undefined;
  return { scopes: plain.scopes, below, under: plain.under };
}

/**
 * The log's position now, as a select-list expression: on PostgreSQL the statement's snapshot
 * (which says exactly which transactions' changes it sees), on SQLite the last number given.
 */
function positionNow(engine: Engine) {
  return engine === "postgres"
    ? sql<string>`pg_current_snapshot()::text`
    : sql<number>`coalesce((select seq from sqlite_sequence where name = 'list_changes'), 0)`;
}

/** A change: the row's uid, the group it is visible at, +1 or -1. */
type Change = [rowUid: string, scopeUid: string, delta: number];

/**
 * The changes to table logged since the position `since`, with the position now, in one
 * statement; undefined when the log has been pruned past `since` or holds more than
 * MAX_READ_ROWS changes since.
 */
export async function changesSince(
  db: Executor,
  engine: Engine,
  tableName: string,
  since: string,
): Promise<{ now: string; changes: Change[] } | undefined> {
  const limit = MAX_READ_ROWS + 1;
  const query =
    engine === "postgres"
      ? sql<{ now: string; pruned: boolean; changes: string | Change[] }>`
          select pg_current_snapshot()::text as now,
            (select below from list_change_horizon where id = 1) > pg_snapshot_xmin(${since}::pg_snapshot) as pruned,
            (select coalesce(json_agg(json_build_array(row_uid, scope_uid, delta)), '[]'::json) from (
              select row_uid, scope_uid, delta from list_changes
              where table_name = ${tableName} and xid >= pg_snapshot_xmin(${since}::pg_snapshot)
                and not pg_visible_in_snapshot(xid, ${since}::pg_snapshot)
              limit ${limit}) c) as changes`
      : sql<{ now: string; pruned: number; changes: string | Change[] }>`
          select coalesce((select seq from sqlite_sequence where name = 'list_changes'), 0) as now,
            (select below from list_change_horizon where id = 1) > ${Number(since)} + 1 as pruned,
            (select json_group_array(json_array(row_uid, scope_uid, delta)) from (
              select row_uid, scope_uid, delta from list_changes
              where table_name = ${tableName} and position > ${Number(since)} order by position limit ${limit})) as changes`;
  const { rows } = await query.execute(db);
  const row = rows[0];
  if (row === undefined) throw new Error("a scalar select returned no row");
  if (row.pruned === true || row.pruned === 1) return undefined;
  const changes = typeof row.changes === "string" ? (JSON.parse(row.changes) as Change[]) : row.changes;
  if (changes.length >= limit) return undefined;
  return { now: String(row.now), changes };
}

/**
 * How often the server prunes the log: a count more than one to two intervals old is taken again
 * rather than moved forward, and the log holds about two intervals of changes.
 */
export const LIST_CHANGES_PRUNE_INTERVAL_MS = 10 * 60 * 1000;

/**
 * Drops the changes logged before the previous prune: a count taken since then moves forward
 * over what is left, an older one is taken again. Run now and then (the server's list-changes
 * job); idempotent, and safe beside another replica's.
 */
export async function pruneListChanges(db: Executor, engine: Engine): Promise<void> {
  await guard(() =>
    inTransaction(db, async (tx) => {
      if (engine === "postgres") {
        await sql`update list_change_horizon
          set below = greatest(below, next), next = greatest(next, pg_snapshot_xmin(pg_current_snapshot())) where id = 1`.execute(tx);
        await sql`delete from list_changes where xid < (select below from list_change_horizon where id = 1)`.execute(tx);
        return;
      }
      await sql`
        update list_change_horizon set below = max(below, next),
          next = max(next, coalesce((select seq from sqlite_sequence where name = 'list_changes'), 0) + 1) where id = 1`.execute(tx);
      await sql`delete from list_changes where position < (select below from list_change_horizon where id = 1)`.execute(tx);
    }),
  );
}

/** What ownUidLists needs of a table's store. */
export interface OwnUidTable<F extends ListFilter, R extends { uid: string }> {
  /** The table's name, as the log (and its triggers, migration 0018) name it. */
  name: string;
  /** The table's ordinary list and count. */
  list(filter: F, window: RowWindow): Promise<R[]>;
  count(filter: F): Promise<number>;
  /** The conditions of a filter, as the table's list reads them. */
  matching(filter: F): Expression<SqlBool>[];
  sortValue(record: R, field: string): string | number;
  /** Whether the filter narrows by anything of the table's own (a digest, a key id). */
  narrower(filter: F): boolean;
  /**
   * Whether seen() decides what of a filter's rows the caller sees (by default always; not for
   * identities outside a group, among which people are seen through their bindings).
   */
  testable?(filter: F): boolean;
  /** Rows every caller sees wherever its scopes lie (built-in roles), if any. */
  everyones?: { record(record: R): boolean; condition: Expression<SqlBool> };
  /** The record a row holds (ResourceTable.fromRow). */
  fromRow(row: unknown): R;
}

/**
 * The list and count of a table whose rows are visible where their own uid lies (repos, tags,
 * identity providers, invites, roles but the built-in ones): many-scope callers' through
 * manyScopeList, the rest through the table's own statements.
 */
export function ownUidLists<F extends ListFilter, R extends { uid: string }>(
  db: Executor,
  engine: Engine,
  memory: ScopeMemory,
  table: OwnUidTable<F, R>,
): { list(filter: F, window: RowWindow): Promise<R[]>; count(filter: F): Promise<number> } {
  const many = manyScopeList<F, R>(db, engine, memory, {
    name: table.name,
    plain(filter) {
      const { childrenOf, inRoot, ids, descendantsOf } = filter.uidp;
      const more = [filter.name, childrenOf, inRoot, ids].some((x) => x !== undefined) || table.narrower(filter);
      return more ? undefined : { scopes: filter.visibleUnder, under: descendantsOf };
    },
    narrow(filter) {
      if (table.testable?.(filter) === false) return undefined;
      return { scopes: filter.visibleUnder, within: filter.uidp.descendantsOf ?? filter.uidp.childrenOf };
    },
    seen: (record, reaches) => table.everyones?.record(record) === true || reaches(record.uid),
    // Rows everyone sees lie in no scope: such a table's few-row pages are not read scope by scope.
    scopeColumn: table.everyones === undefined ? "uid" : undefined,
    fromRow: table.fromRow,
    sortValue: table.sortValue,
    list: table.list,
    everything: (filter) => ({ ...filter, visibleUnder: undefined }),
    conditions: table.matching,
    visible: (tops) =>
      table.everyones === undefined
        ? visibleUnder("uid", tops)
        : sql<SqlBool>`(${table.everyones.condition} or ${visibleUnder("uid", tops)})`,
  });
  return {
    list: async (filter, window) => (await many.list(filter, window)) ?? table.list(filter, window),
    count: async (filter) => (await many.count(filter)) ?? table.count(filter),
  };
}
