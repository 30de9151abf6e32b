/**
 * What the many-scope page reads share (src/store/group-pages.ts for groups, list-changes.ts for
 * the other lists): the bound on the rows a read may take, the window's order applied in the
 * server, and a page read in its order with each row tested here.
 */
import type { RowWindow } from "./row-window.js";

/**
 * The most rows a page read in the server may read (and, for list-changes.ts, the most changes a
 * count is moved forward by); a page that would need more is left to the engine.
 */
export const MAX_READ_ROWS = 5_000;

/**
 * Orders two sort keys as the window's order does: strings as the stores compare them (bytes,
 * the "C" collation; names and uids are ASCII, so UTF-16 order is the same), numbers as numbers.
 */
export function compareKeys(a: readonly (string | number)[], b: readonly (string | number)[], window: RowWindow): number {
  for (const [i, key] of window.order.entries()) {
    const x = a[i] as string | number;
    const y = b[i] as string | number;
    if (x !== y) return (x < y ? -1 : 1) * (key.desc ? -1 : 1);
  }
  return 0;
}

/** How testedPage reads and tests a table's rows. */
export interface TestedRead<F, R> {
  /** The table's ordinary list. */
  list(filter: F, window: RowWindow): Promise<R[]>;
  /** The filter without the caller's visibility. */
  everything: F;
  /** Whether the caller sees a row. */
  seen(row: R): boolean;
  sortValue(row: R, field: string): string | number;
}

/**
 * A page read in the window's order without the visibility condition, `batch` rows at a time,
 * each row tested here; past MAX_READ_ROWS rows (sparser than the counts promised, rows made
 * meanwhile) the engine reads the rest with the filter itself.
 */
export async function testedPage<F, R>(read: TestedRead<F, R>, filter: F, window: RowWindow, batch: number): Promise<R[]> {
  const need = window.offset + window.limit;
  const matched: R[] = [];
  let after = window.after;
  for (let done = 0; matched.length < need;) {
    const from = { order: window.order, ...(after !== undefined && { after }), offset: 0 };
    if (done >= MAX_READ_ROWS) {
      matched.push(...(await read.list(filter, { ...from, limit: need - matched.length })));
      break;
    }
    const rows = await read.list(read.everything, { ...from, limit: batch });
    for (const row of rows) if (matched.length < need && read.seen(row)) matched.push(row);
    const last = rows.at(-1);
    if (rows.length < batch || last === undefined) break;
    done += rows.length;
    after = window.order.map((k) => read.sortValue(last, k.field));
  }
  return matched.slice(window.offset, need);
}
