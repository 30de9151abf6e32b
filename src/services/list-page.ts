/**
 * One page of any v2 list: plan it (order, cursor, skip), fetch it and the total count, and
 * cut it, so every resource pages exactly alike (DESIGN 1.4). A service declares each List RPC
 * once (listRpc(): its store, query, visibility and response); listing() is the page alone.
 */
import type { Capability } from "../domain/capabilities.js";
import { finishPage, planPage, skippedCount, type PageRequest, type Sortable } from "../domain/list.js";
import type { PageTokens } from "../domain/page-token.js";
import { hierarchyFilter, type HierarchyFilter, type UidpInput } from "../domain/hierarchy.js";
import type { RowWindow } from "../store/row-window.js";
import type { CallContext } from "./context.js";

/** A store that lists and counts by a filter. */
export interface Listable<F, R> {
  list(filter: F, window: RowWindow): Promise<R[]>;
  count(filter: F): Promise<number>;
  /** A page and its count together, for a store that reads them at less cost than apart; list and count otherwise. */
  page?(filter: F, window: RowWindow): Promise<{ rows: R[]; total: number }>;
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
      const { rows, total } =
        source.page === undefined
          ? await Promise.all([source.list(filter, plan), source.count(filter)]).then(([rows, total]) => ({ rows, total }))
          : await source.page(filter, plan);
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

/** A List RPC as its service declares it: the list, the query a request asks, who sees what, and the response. */
export interface ListRpcSpec<Req, Q, R, Res> extends Omit<ListingSpec<Q, R>, "tokens"> {
  /** The caller's query (checked) from the request; page tokens are bound to it. */
  query(req: Req): Q;
  /**
   * What makes an item visible: one of these capabilities held at it or above; or, for a list
   * with a rule of its own, the subtrees the caller sees (undefined: everything), given the query.
   */
  visibleWith: readonly Capability[] | ((query: Q, ctx: CallContext) => Promise<readonly string[] | undefined>);
  /** The response carrying a page: its records (to turn into messages) and the rest of the envelope. */
  respond(items: R[], page: Omit<ListEnvelope<R>, "items">, ctx: CallContext): Res | Promise<Res>;
}

/** The handler of a List RPC: the query read from the request first, then what the caller sees, then the page. */
export function listRpc<Req, Q extends object, R, Res>(
  tokens: PageTokens,
  spec: ListRpcSpec<Req, Q, R, Res>,
): (req: Req & PageRequest, ctx: CallContext) => Promise<Res> {
  const pages = listing({ ...spec, tokens });
  const { visibleWith } = spec;
  return async (req, ctx) => {
    const query = spec.query(req);
    const visibleUnder = typeof visibleWith === "function" ? await visibleWith(query, ctx) : (await ctx.permissions()).scopes(visibleWith);
    const { items, ...page } = await pages.page(req, query, visibleUnder);
    return spec.respond(items, page, ctx);
  };
}
