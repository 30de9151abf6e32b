/**
 * The uidp filter and the caller's visibility as WHERE conditions, for any table whose rows have
 * a uid and a parent uid (DESIGN 1.4). Every present member narrows the result.
 */
import { sql, type Expression, type RawBuilder, type SqlBool } from "kysely";
import type { HierarchyFilter } from "../domain/hierarchy.js";
import type { Engine } from "./dialect.js";

/** Where a row's uid and its parent's uid are. */
export interface HierarchyColumns {
  uid: string;
  /** The parent uid's column, or an expression yielding it for a table that has none. */
  parent: string | Expression<string | null>;
}

const NOTHING = sql<SqlBool>`1 = 0`;

/** The conditions a row must meet, to be ANDed with the resource's own. */
export function hierarchyConditions(filter: HierarchyFilter, columns: HierarchyColumns): Expression<SqlBool>[] {
  const uid = sql.ref(columns.uid);
  const parent = typeof columns.parent === "string" ? sql.ref(columns.parent) : columns.parent;
  const all: Expression<SqlBool>[] = [];
  if (filter.descendantsOf !== undefined) all.push(strictlyBelow(columns.uid, filter.descendantsOf));
  if (filter.childrenOf !== undefined) all.push(sql<SqlBool>`${parent} = ${filter.childrenOf}`);
  if (filter.inRoot === true) all.push(sql<SqlBool>`${parent} is null`);
  if (filter.ids !== undefined) {
    // `in ()` would not even parse on PostgreSQL.
    all.push(filter.ids.length === 0 ? NOTHING : sql<SqlBool>`${uid} in (${sql.join(filter.ids)})`);
  }
  return all;
}

/**
 * Up to this many scopes, one index range per scope; beyond it, one membership test per row
 * prefix (docs/benchmarks.md, "VISIBILITY": ranges win up to about 16 scopes, lose from 64).
 */
export const FEW_SCOPES = 16;

/**
 * Rows whose uid is one of tops or lies below one of them; tops are uids, none below another.
 * A few scopes are index ranges; more are tested by membership, so the statement's size and a
 * row's cost do not grow with the number of scopes (docs/architecture.md, "How visibility is
 * computed").
 */
export function visibleUnder(uidColumn: string, tops: readonly string[]): Expression<SqlBool> {
  if (tops.length === 0) return NOTHING;
  return tops.length <= FEW_SCOPES ? inRanges(uidColumn, tops) : byMembership(uidColumn, tops);
}

/** visibleUnder as one index range per top (exported for the benchmark comparing the forms). */
export function inRanges(uidColumn: string, tops: readonly string[]): Expression<SqlBool> {
  const each = tops.map((top) => selfOrBelow(uidColumn, top));
  return sql<SqlBool>`(${sql.join(each, sql` or `)})`;
}

/**
 * visibleUnder as membership: a uid's ancestors-or-self are its prefixes at segment ends, so a
 * row is visible when its prefix as long as a top is that top: one set lookup per distinct top
 * length (a depth, at most 32 for groups), whatever the number of tops.
 */
export function byMembership(uidColumn: string | Expression<string>, tops: readonly string[]): Expression<SqlBool> {
  const uid = typeof uidColumn === "string" ? sql.ref(uidColumn) : uidColumn;
  // coalesce keeps the test a condition on the row: a bare `in (select ...)` alone in its WHERE
  // is turned by PostgreSQL into a join that, misjudging json_each, re-reads the whole set for
  // every row (S9: 1.8 s a page at 100 scopes); as a condition the set is hashed once.
  const each = setsByLength(tops).map(
    ([length, keys]) => sql<SqlBool>`coalesce(substr(${uid}, 1, ${sql.lit(length)}) in (${keySet(keys)}), false)`,
  );
  return sql<SqlBool>`(${sql.join(each, sql` or `)})`;
}

/**
 * The tops by length, each length's as the JSON text uidSet binds; remembered for a frozen array
 * (Permissions.scopes, and what visible-scopes.ts narrows it to), which cannot change, so a
 * caller with 10,000 scopes does not have them serialised again on every page.
 */
function setsByLength(tops: readonly string[]): (readonly [number, string])[] {
  const known = Object.isFrozen(tops) ? serialised.get(tops) : undefined;
  if (known !== undefined) return known;
  const byLength = new Map<number, string[]>();
  for (const top of tops) {
    const same = byLength.get(top.length);
    if (same === undefined) byLength.set(top.length, [top]);
    else same.push(top);
  }
  const sets = [...byLength].map(([length, same]) => [length, uidKeys(same)] as const);
  if (Object.isFrozen(tops)) serialised.set(tops, sets);
  return sets;
}

const serialised = new WeakMap<readonly string[], (readonly [number, string])[]>();

/**
 * The uids as a subquery over one bound parameter, a JSON object keyed by them: `json_each` reads
 * an object's keys on both engines, in one pass, and both evaluate the subquery once per
 * statement (SQLite into an index, PostgreSQL into a hash), so the statement keeps one size
 * whatever their number.
 */
export function uidSet(uids: readonly string[]): Expression<string> {
  return keySet(uidKeys(uids));
}

/**
 * The rows of table whose column lies in one of the subtrees, each subtree one range of the
 * column's index read once: its top and everything below it, or with `below` only what is below.
 * The subtrees are a set bound as one parameter (uidSet) and read first, SQLite by CROSS JOIN
 * (its LIMIT of none, -1, keeps the subquery from being flattened into the query around it),
 * PostgreSQL by a lateral subquery that OFFSET 0 keeps from flattening: left to choose, both
 * took another index and tested every row of the organization against each subtree (89 ms a
 * page for 100 scopes in S9). `where` narrows the rows further, given the row's alias. The list
 * of a caller who sees few rows, and the audit log's counts and pages of many subtrees, read so.
 */
export function rowsInSubtrees(
  engine: Engine,
  table: string,
  column: string,
  subtrees: readonly string[],
  options: { below?: boolean; where?: (row: string) => Expression<SqlBool> } = {},
): RawBuilder<Record<string, unknown>> {
  const col = sql.ref(`r.${column}`);
  const range = options.below
    ? sql<SqlBool>`${col} > s."key" || '/' and ${col} < s."key" || '0'`
    : sql<SqlBool>`${col} >= s."key" and ${col} < s."key" || '0'`;
  const where = options.where === undefined ? range : sql<SqlBool>`${range} and ${options.where("r")}`;
  return engine === "postgres"
    ? sql`select t.* from (${uidSet(subtrees)}) as s cross join lateral (
        select r.* from ${sql.table(table)} as r where ${where} offset 0) as t`
    : sql`select r.* from (${uidSet(subtrees)}) as s cross join ${sql.table(table)} as r on ${where} limit -1`;
}

/**
 * The uids as the one parameter of uidSet: a JSON object keyed by them (so each once). Remembered
 * for a frozen array (a caller's scopes, what visible-scopes.ts narrows them to), which cannot
 * change: 1,000 scopes took about 220 µs to serialise, on every page of S9's 1,000-binding caller.
 */
export function uidKeys(uids: readonly string[]): string {
  const known = Object.isFrozen(uids) ? keysOf.get(uids) : undefined;
  if (known !== undefined) return known;
  const keys = JSON.stringify(Object.fromEntries(uids.map((uid) => [uid, 1])));
  if (Object.isFrozen(uids)) keysOf.set(uids, keys);
  return keys;
}

const keysOf = new WeakMap<readonly string[], string>();

function keySet(keys: string): Expression<string> {
  return sql<string>`select "key" from json_each(${keys})`;
}

/**
 * uid and everything below it, as one index range: no uid character sorts below '/', so nothing
 * lies between uid and `uid/`.
 */
export function selfOrBelow(uidColumn: string, uid: string): Expression<SqlBool> {
  const ref = sql.ref(uidColumn);
  return sql<SqlBool>`(${ref} >= ${uid} and ${ref} < ${`${uid}0`})`;
}

/**
 * Everything below uid at any depth: the uids that start with `uid/`. As a range rather than
 * LIKE, so it is an index range scan: '/' is 0x2F and '0' is 0x30, and no uid character sorts
 * between them.
 */
export function strictlyBelow(uidColumn: string, uid: string): Expression<SqlBool> {
  const ref = sql.ref(uidColumn);
  return sql<SqlBool>`(${ref} > ${`${uid}/`} and ${ref} < ${`${uid}0`})`;
}
