/**
 * Keyset windows (DESIGN 1.4): order by the window's keys, start strictly after the last key
 * seen, then offset and limit. Shared by every listed resource.
 */
import { sql, type Expression, type RawBuilder, type SelectQueryBuilder, type SqlBool } from "kysely";
import type { OrderKey } from "../domain/list.js";

/** One page's worth of a keyset query, as planned by domain/list.ts. */
export interface RowWindow {
  order: readonly OrderKey[];
  /** Sort key (one value per order key) of the row the window starts after. */
  after?: readonly (string | number)[];
  offset: number;
  limit: number;
}

interface SortColumn {
  ref: RawBuilder<unknown>;
  desc: boolean;
}

/**
 * Applies a window to a query. columnOf maps each order key's field to its column and throws
 * for a field the resource cannot sort by.
 */
export function applyWindow<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  window: RowWindow,
  columnOf: (field: string) => string,
): SelectQueryBuilder<DB, TB, O> {
  const keys = window.order.map((k) => ({ ref: sql.ref(columnOf(k.field)), desc: k.desc }));
  let q = window.after === undefined ? query : query.where(after(keys, window.after));
  for (const k of keys) q = q.orderBy(k.ref, k.desc ? "desc" : "asc");
  return q.limit(window.limit).offset(window.offset);
}

/** Rows strictly after `values` in the order of `keys`. */
function after(keys: readonly SortColumn[], values: readonly (string | number)[]): Expression<SqlBool> {
  const first = keys[0];
  if (first === undefined || values.length !== keys.length) {
    throw new RangeError(`a window key has ${values.length} values for ${keys.length} order keys`);
  }
  if (keys.every((k) => k.desc === first.desc)) {
    // One direction: a row-value comparison, which both engines run as a range scan of the
    // composite index.
    return sql<SqlBool>`(${sql.join(keys.map((k) => k.ref))}) ${beyond(first)} (${sql.join(values)})`;
  }
  // Mixed directions have no row-value form: k1 beyond v1, or k1 = v1 and k2 beyond v2, and so on.
  const terms = keys.map((key, i) => {
    const equal = keys.slice(0, i).map((k, j) => sql<SqlBool>`${k.ref} = ${values[j]}`);
    return sql<SqlBool>`(${sql.join([...equal, sql`${key.ref} ${beyond(key)} ${values[i]}`], sql` and `)})`;
  });
  return sql<SqlBool>`(${sql.join(terms, sql` or `)})`;
}

function beyond(key: SortColumn): RawBuilder<unknown> {
  return sql.raw(key.desc ? "<" : ">");
}
