/**
 * One page of any v2 list: plan it (order, cursor, skip), fetch it and the total count, and
 * cut it, so every resource pages exactly alike (DESIGN 1.4). A service declares each list once
 * (listing()) and asks it for pages.
 */
import { finishPage, planPage, skippedCount, type PageRequest, type Sortable } from "../domain/list.js";
import type { PageTokens } from "../domain/page-token.js";
import { hierarchyFilter, type HierarchyFilter, type UidpInput } from "../domain/hierarchy.js";
import type { RowWindow } from "../store/row-window.js";

/** A store that lists and counts by a filter. */
export interface Listable<F, R> {
  list(filter: F, window: RowWindow): Promise<R[]>;
  count(filter: F): Promise<number>;
}

/** What a list narrows to: the subtrees the caller may see (undefined: everything). */
export interface Visibility {
  visibleUnder?: readonly string[];
}

/** A list as its service declares it. */
export interface ListingSpec<Q, R> {
  /** The resource's name, binding page tokens to it. */
  resource: string;
  sortable: Sortable;
  /** The value of a record's sort field. */
  sortValue: (record: R, field: string) => string | number;
  /**
   * The store the list reads (its filter is the caller's query narrowed to what it may see),
   * asked for at each page: declaring a service touches none of its dependencies.
   */
  source: () => Listable<Q & Visibility, R>;
  tokens: PageTokens;
}

/** The list envelope, before the items are turned into messages. */
export interface ListEnvelope<R> {
  items: R[];
  nextPageToken?: string;
  totalCount: bigint;
  skipped: number;
}

/** A declared list: pages of the caller's query (to which page tokens are bound), within visibleUnder. */
export interface Listing<Q, R> {
  page(request: PageRequest, query: Q, visibleUnder: readonly string[] | undefined): Promise<ListEnvelope<R>>;
}

/** The list a spec declares: each page planned, read (its rows and the total count at once, over one filter) and cut alike. */
export function listing<Q extends object, R>(spec: ListingSpec<Q, R>): Listing<Q, R> {
  return {
    async page(request, query, visibleUnder) {
      const plan = planPage(request, spec.sortable, spec.resource, query, spec.tokens);
      const filter = { ...query, ...(visibleUnder !== undefined && { visibleUnder }) };
      const source = spec.source();
      const [rows, total] = await Promise.all([source.list(filter, plan), source.count(filter)]);
      const page = finishPage(rows, plan, spec.tokens, (r, order) => order.map((k) => spec.sortValue(r, k.field)));
      return {
        items: page.items,
        ...(page.nextPageToken !== undefined && { nextPageToken: page.nextPageToken }),
        totalCount: BigInt(total),
        skipped: skippedCount(plan, total),
      };
    },
  };
}

/** The query of a list filtered by the uidp filter and an exact name, as most IAM lists are. */
export function namedQuery(req: { uidp?: UidpInput; name: string }): { uidp: HierarchyFilter; name?: string } {
  return { uidp: hierarchyFilter(req.uidp), ...(req.name !== "" && { name: req.name }) };
}
