/**
 * One page of any v2 list: plan it (order, cursor, skip), fetch it and the total count, and
 * cut it, so every resource pages exactly alike (DESIGN 1.4).
 */
import { finishPage, planPage, skippedCount, type PageRequest, type Sortable } from "../domain/list.js";
import type { PageTokens } from "../domain/page-token.js";
import type { RowWindow } from "../store/types.js";

/** A store that lists and counts by a filter. */
export interface Listable<F, R> {
  list(filter: F, window: RowWindow): Promise<R[]>;
  count(filter: F): Promise<number>;
}

/** What one list call needs. */
export interface ListPageArgs<Q, F, R> {
  request: PageRequest;
  sortable: Sortable;
  /** The resource's name, binding page tokens to it. */
  resource: string;
  /** The caller's filters: tokens are bound to them. */
  query: Q;
  /** The store filter: the query narrowed to what the caller may see. */
  filter: F;
  source: Listable<F, R>;
  /** The value of a record's sort field. */
  sortValue: (record: R, field: string) => string | number;
  tokens: PageTokens;
}

/** The list envelope, before the items are turned into messages. */
export interface ListEnvelope<R> {
  items: R[];
  nextPageToken?: string;
  totalCount: bigint;
  skipped: number;
}

/** The rows of one page and the total count, read at once over the same filter. */
export async function listPage<Q, F, R>(args: ListPageArgs<Q, F, R>): Promise<ListEnvelope<R>> {
  const plan = planPage(args.request, args.sortable, args.resource, args.query, args.tokens);
  const [rows, total] = await Promise.all([args.source.list(args.filter, plan), args.source.count(args.filter)]);
  const page = finishPage(rows, plan, args.tokens, (r, order) => order.map((k) => args.sortValue(r, k.field)));
  return {
    items: page.items,
    ...(page.nextPageToken !== undefined && { nextPageToken: page.nextPageToken }),
    totalCount: BigInt(total),
    skipped: skippedCount(plan, total),
  };
}
