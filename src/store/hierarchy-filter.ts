/**
 * The uidp filter and the caller's visibility as WHERE conditions, for any table whose rows have
 * a uid and a parent uid (DESIGN 1.4). Every present member narrows the result.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { HierarchyFilter } from "../domain/hierarchy.js";

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

/** Rows whose uid is one of tops or lies below one of them. */
export function visibleUnder(uidColumn: string, tops: readonly string[]): Expression<SqlBool> {
  if (tops.length === 0) return NOTHING;
  const uid = sql.ref(uidColumn);
  const each = tops.map((top) => sql<SqlBool>`(${uid} = ${top} or ${strictlyBelow(uidColumn, top)})`);
  return sql<SqlBool>`(${sql.join(each, sql` or `)})`;
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
