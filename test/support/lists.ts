/**
 * List tests: what a filter must match, the order a store must produce, and paging through a
 * list the way the services do, each page starting after the sort key of the last row before it.
 */
import { expect } from "vitest";
import type { OrderKey } from "../../src/domain/list.js";
import type { RowWindow } from "../../src/store/row-window.js";

/** What every store lists. */
export interface Lister<F, R extends { uid: string }> {
  list(filter: F, window: RowWindow): Promise<R[]>;
  count(filter: F): Promise<number>;
}

/** Asserts that list and count agree on exactly the records with uids want. */
export async function expectMatches<F, R extends { uid: string }>(store: Lister<F, R>, filter: F, want: readonly string[]): Promise<void> {
  expect(uids(await store.list(filter, window([key("uid")])))).toEqual([...want].sort());
  expect(await store.count(filter)).toBe(want.length);
}

/** The value of a record's sort field, by canonical field name. */
export type SortValue<R> = (record: R, field: string) => string | number;

/** The value of a record's sort field, read from its camelCase property (create_time: createTime). */
export function propertyValue(record: object, field: string): string | number {
  const key = field.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  const value = (record as Record<string, unknown>)[key];
  if (typeof value !== "string" && typeof value !== "number") throw new RangeError(`records have no sort value for ${field}`);
  return value;
}

/** A sort key. */
export const key = (field: string, desc = false): OrderKey => ({ field, desc });

/** The order the store must produce, by byte-wise comparison (JS compares ASCII by code unit). */
export function sortedBy<R extends object>(records: readonly R[], order: readonly OrderKey[], valueOf: SortValue<R> = propertyValue): R[] {
  return [...records].sort((a, b) => {
    for (const k of order) {
      const x = valueOf(a, k.field);
      const y = valueOf(b, k.field);
      if (x !== y) return (x < y ? -1 : 1) * (k.desc ? -1 : 1);
    }
    return 0;
  });
}

/** A window over order: everything from the start unless told otherwise. */
export function window(order: readonly OrderKey[], more: { after?: (string | number)[]; offset?: number; limit?: number } = {}): RowWindow {
  return { order, offset: more.offset ?? 0, limit: more.limit ?? 1000, ...(more.after && { after: more.after }) };
}

/** The uids of records, in their order. */
export const uids = (records: readonly { uid: string }[]): string[] => records.map((r) => r.uid);

/** Lists page by page, each page starting after the last row of the one before; the uids seen. */
export async function pageThrough<R extends { uid: string }>(
  list: (window: RowWindow) => Promise<R[]>,
  order: readonly OrderKey[],
  size: number,
  valueOf: SortValue<R> = propertyValue,
): Promise<string[]> {
  const seen: string[] = [];
  let after: (string | number)[] | undefined;
  for (let page = 0; page <= 10_000; page++) {
    const rows = await list(window(order, { limit: size, ...(after && { after }) }));
    seen.push(...uids(rows));
    const last = rows.at(-1);
    if (rows.length < size || last === undefined) return seen;
    after = order.map((k) => valueOf(last, k.field));
  }
  throw new Error("paging did not end");
}
