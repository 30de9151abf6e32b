/**
 * Pages and counts of groups for a caller with many scopes (more than FEW_SCOPES visible
 * subtrees): what keeps a list's cost bounded by the page rather than by the caller's bindings
 * (issue 22; docs/architecture.md, "How visibility is computed").
 *
 * Everything here takes the caller's scopes as Permissions.scopes hands them out: sorted, none
 * below another, and the same frozen array while the caller's permissions hold. What is derived
 * from them (their set, the count below a group) is remembered in the store's ScopeMemory under
 * that array, so a caller with 10,000 bindings pays for them once, not on every page. A page is
 * read one of four ways, the cheapest that applies:
 *
 * - in uid order: scope by scope (seek), at most one scope per row of the page;
 * - few visible groups (at most MAX_READ_ROWS): all of them (gather), ordered here;
 * - visible groups dense enough that a page reads at most MAX_READ_ROWS rows: in the page's
 *   order, each row's sort keys tested here against the remembered set (tested), then the page's
 *   groups read whole;
 * - otherwise the engine tests each row (hierarchy-filter.ts, byMembership).
 *
 * The totalCount is the sum over the scopes of their descendant counts (0008), remembered with
 * the version of the listed group's counts (0015) and served while that version holds.
 */
import { sql, type RawBuilder } from "kysely";
import { groupSortValue, type GroupFilter, type GroupRecord } from "../domain/groups.js";
import type { NamedRecord } from "../domain/named-sort-value.js";
import { inOrder, scopesBelow, scopesFrom } from "../domain/visible-scopes.js";
import type { Executor, GroupsTable } from "./tables.js";
import {
  descendantCounts,
  descendantCountsVersion,
  descendantCountsVersionColumns,
  foldDescendantCounts,
  groupsInScopes,
  versionOf,
  type Engine,
  type VersionColumns,
} from "./dialect.js";
import { FEW_SCOPES, uidSet } from "./hierarchy-filter.js";
import type { RememberedCount, ScopeMemory } from "./scope-memory.js";
import { compareKeys, MAX_READ_ROWS, testedPage } from "./page-reads.js";
import { guard } from "./translate-error.js";
import type { RowWindow } from "./row-window.js";

/** An ancestor's count rows are folded into one once a count reads more than this many. */
export const FOLD_AT = 64;

/** The most rows a page read here may read (page-reads.ts); re-exported for the tests. */
export { MAX_READ_ROWS };

/** What the pages read besides the scopes: the groups matching a filter, in a window, and by uid. */
export interface GroupRows {
  list(filter: GroupFilter, window: RowWindow): Promise<GroupRecord[]>;
  /** As list, only `uid` and the columns the window sorts by (ResourceTable.listSortKeys). */
  listSortKeys(filter: GroupFilter, window: RowWindow): Promise<Record<string, unknown>[]>;
  getMany(uids: readonly string[]): Promise<GroupRecord[]>;
}

/** The columns a group sorts by, as gather reads them. */
type SortColumns = Pick<GroupsTable, "uid" | "name" | "create_time" | "update_time">;

/** Many-scope pages and counts of groups; undefined where the ordinary statements serve. */
export interface ManyScopeGroups {
  list(filter: GroupFilter, window: RowWindow): Promise<GroupRecord[] | undefined>;
  count(filter: GroupFilter): Promise<number | undefined>;
}

/** Many-scope pages and counts over db; rows reads groups by filter, toGroup maps a row. */
export function manyScopeGroups(
  db: Executor,
  engine: Engine,
  memory: ScopeMemory,
  rows: GroupRows,
  toGroup: (row: GroupsTable) => GroupRecord,
): ManyScopeGroups {
  return {
    async list(filter, window) {
      const many = manyScopes(filter);
      if (many === undefined) return undefined;
      const [key, ...more] = window.order;
      const need = window.offset + window.limit;
      if (key?.field === "uid" && more.length === 0 && need <= MAX_READ_ROWS) return seek(many.below, window, key.desc);
      if (many.under === undefined) return undefined;
      // Only to choose how to read: a remembered count, even one a change has made stale, is as
      // good as a fresh one and costs no statement (the page is exact either way).
      const { count, all } = memory.count(many.scopes, many.under) ?? (await remembered(many.scopes, many.under, many.below));
      const tested = (need * all) / Math.max(count, 1);
      if (Math.min(count, tested) > MAX_READ_ROWS) return undefined;
      if (count <= tested) return gather(many.below, window);
      // The expected rows and a little more: a short page reads another batch.
      return test(filter, many.scopes, window, Math.min(MAX_READ_ROWS, Math.ceil(tested) + 16));
    },

    async count(filter) {
      const many = manyScopes(filter);
      if (many?.under === undefined) return undefined;
      return (await remembered(many.scopes, many.under, many.below)).count;
    },
  };

  /**
   * The visible groups below `under` with their total there: remembered with the version of
   * `under`'s counts and served again while it holds, which is until a group below `under` is
   * made or removed. A change of the caller's bindings gives it other scopes (a new array), so
   * nothing remembered outlives what it was computed from.
   */
  async function remembered(scopes: readonly string[], under: string, below: readonly string[]): Promise<RememberedCount> {
    // Inside a transaction the version may be one a rollback takes back: count, remember nothing.
    if (db.isTransaction) return guard(() => sumOver(under, below));
    const now = await guard(() => descendantCountsVersion(db, engine, under));
    const known = memory.count(scopes, under);
    if (known !== undefined && known.version === now.version) return known;
    // The version and the sums in one statement: one snapshot on both engines.
    const fresh = await guard(() => sumOver(under, below));
    memory.remember(scopes, under, fresh);
    // Folding only makes the next read cheaper, so a fold that fails (a busy store) waits for a later one.
    if (now.rows > FOLD_AT) await foldDescendantCounts(db, engine, under).catch(() => undefined);
    return fresh;
  }

  async function sumOver(under: string, below: readonly string[]): Promise<RememberedCount> {
    const { rows } = await sql<VersionColumns & { all: string | number; below: string | number; tops: string | number }>`
      select
        ${descendantCountsVersionColumns(engine, under)},
        (select coalesce(sum(delta), 0) from ${descendantCounts(engine)} where ancestor_uid = ${under}) as "all",
        (select coalesce(sum(delta), 0) from ${descendantCounts(engine)} where ancestor_uid in (${uidSet(below)})) as below,
        (select count(*) from groups where uid in (${uidSet(below)})) as tops`.execute(db);
    const row = rows[0];
    if (row === undefined) throw new Error("a scalar select returned no row");
    return { version: versionOf(row).version, count: Number(row.below) + Number(row.tops), all: Number(row.all) };
  }

  /**
   * A page in uid order, scope by scope: a visible subtree's groups are one run of uids from its
   * top, so the page's rows lie in the first scopes after its start, each of which holds at least
   * its top. A page of 50 reads the first rows of at most 51 scopes, however many there are and
   * however far apart.
   */
  async function seek(below: readonly string[], window: RowWindow, descending: boolean): Promise<GroupRecord[]> {
    const after = window.after?.[0];
    if (after !== undefined && typeof after !== "string") throw new RangeError("a uid window key is a string");
    const need = window.offset + window.limit;
    const scopes = scopesFrom(below, after, descending);
    const found: GroupsTable[] = [];
    // A scope holds at least its top, so `need` scopes after the one holding `after` (which may
    // hold nothing more) fill the page; another batch is read only for scopes whose group is gone.
    // Every row of a batch comes before the next batch's in the page's order.
    for (let i = 0; i < scopes.length && found.length < need;) {
      const want = need - found.length;
      const batch = scopes.slice(i, i + want + 1);
      i += batch.length;
      found.push(...(await inScopes(batch, want, { after, descending })));
    }
    return found.slice(window.offset).map(toGroup);
  }

  /**
   * A page of a caller who sees few groups: the sort keys of all of them, ordered here, then the
   * page's rows; undefined when they are more than MAX_READ_ROWS after all (groups made since the
   * count the choice was made on).
   */
  async function gather(below: readonly string[], window: RowWindow): Promise<GroupRecord[] | undefined> {
    const found = await inScopes<SortColumns>(
      below,
      MAX_READ_ROWS + 1,
      { after: undefined, descending: false },
      sql`g.uid, g.name, g.create_time, g.update_time`,
    );
    if (found.length > MAX_READ_ROWS) return undefined;
    const read = found.map(sortKeys);
    const keyOf = (g: NamedRecord) => window.order.map((k) => groupSortValue(g, k.field));
    const after = window.after;
    const page = (after === undefined ? read : read.filter((g) => compareKeys(keyOf(g), after, window) > 0))
      .sort((a, b) => compareKeys(keyOf(a), keyOf(b), window))
      .slice(window.offset, window.offset + window.limit);
    return wholeRows(page, window);
  }

  /**
   * The groups of a page whose sort keys were read first, read whole by uid; undefined when one
   * of them was removed or re-sorted between the two reads. The page would then be short, and a
   * short page reads as the last one (list.ts finishPage), or out of its order: the caller reads
   * it again in one statement.
   */
  async function wholeRows(page: readonly NamedRecord[], window: RowWindow): Promise<GroupRecord[] | undefined> {
    const byUid = new Map((await rows.getMany(page.map((g) => g.uid))).map((g) => [g.uid, g]));
    const found: GroupRecord[] = [];
    for (const key of page) {
      const group = byUid.get(key.uid);
      if (group === undefined || window.order.some((k) => groupSortValue(group, k.field) !== groupSortValue(key, k.field)))
        return undefined;
      found.push(group);
    }
    return found;
  }

  /**
   * The first `need` groups in uid order (descending: the last) of the scopes' subtrees, after
   * `after`: one statement joining the scopes (one parameter) to the groups, each scope an index
   * range of uids. Reads every group of the subtrees it is given: callers pass a page's worth of
   * scopes, or scopes whose groups number at most MAX_READ_ROWS.
   */
  async function inScopes<R = GroupsTable>(
    scopes: readonly string[],
    need: number,
    { after, descending }: { after: string | undefined; descending: boolean },
    columns: RawBuilder<unknown> = sql`g.*`,
  ): Promise<R[]> {
    if (scopes.length === 0) return [];
    const direction = sql.raw(descending ? "desc" : "asc");
    const { rows: found } = await guard(() =>
      sql<R>`
        select ${columns} from ${groupsInScopes(engine, uidSet(scopes), { each: need, descending, ...(after !== undefined && { after }) })}
        order by g.uid ${direction} limit ${need}`.execute(db),
    );
    return found;
  }

  /**
   * A page of a caller whose visible groups are dense: read in the page's order, each row tested
   * here. The walk reads the sort keys alone (for the default order, name, the index of names and
   * uids holds them), the page's groups are then read whole: at 10,000 scopes of 100,000 groups a
   * page of 50 walks about 520 rows.
   */
  async function test(
    filter: GroupFilter,
    scopes: readonly string[],
    window: RowWindow,
    batch: number,
  ): Promise<GroupRecord[] | undefined> {
    // Rows are tested as read, and only the page's become records: most of the walk is not seen.
    const reaches = memory.reacher(scopes);
    const read = {
      list: (f: GroupFilter, w: RowWindow) => rows.listSortKeys(f, w),
      everything: { uidp: filter.uidp },
      seen: (row: Record<string, unknown>) => reaches(String(row.uid)),
      sortValue: (row: Record<string, unknown>, field: string) => groupSortValue(sortKeys(row), field),
    };
    return wholeRows((await testedPage(read, filter, window, batch)).map(sortKeys), window);
  }
}

/**
 * A row of sort columns as a record sorts by them (gather's rows hold all of them, listSortKeys's
 * the window's only: a column the read did not take reads as empty, and is never compared).
 */
function sortKeys(row: Record<string, unknown>): NamedRecord {
  return {
    uid: String(row.uid),
    name: typeof row.name === "string" ? row.name : "",
    createTime: Number(row.create_time ?? 0),
    updateTime: Number(row.update_time ?? 0),
  };
}

/** A filter of everything below a group (or everything), seen by a caller with many scopes there. */
interface ManyScopes {
  /** The caller's scopes, as Permissions.scopes handed them out. */
  scopes: readonly string[];
  /** Those below the filter's group (all of them without one). */
  below: readonly string[];
  under: string | undefined;
}

function manyScopes(filter: GroupFilter): ManyScopes | undefined {
  const { childrenOf, inRoot, ids, descendantsOf } = filter.uidp;
  const scopes = filter.visibleUnder;
  if (scopes === undefined || childrenOf !== undefined || inRoot !== undefined || ids !== undefined || filter.name !== undefined)
    return undefined;
  const below = descendantsOf === undefined ? inOrder(scopes) : scopesBelow(scopes, descendantsOf);
  if (below === "all" || below.length <= FEW_SCOPES) return undefined;
  return { scopes, below, under: descendantsOf };
}
