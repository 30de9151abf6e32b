/**
 * List queries (DESIGN 1.4): page sizes, order_by, skip, and the plan a store runs for one page.
 * Keyset paging: a page token carries the sort key of the last item returned, so page 1000
 * costs what page 1 costs.
 */
import { invalidArgument } from "./errors.js";
import type { Cursor, PageTokens } from "./page-token.js";

/** Items per page when the request names none. */
export const DEFAULT_PAGE_SIZE = 50;
/** The largest page; larger requests are clamped to it. */
export const MAX_PAGE_SIZE = 200;

/** One key of a sort order, by canonical field name. */
export interface OrderKey {
  field: string;
  desc: boolean;
}

/** What a resource lets callers sort by. */
export interface Sortable {
  /** Accepted names (snake_case, aliases included) to canonical field names. */
  fields: Readonly<Record<string, string>>;
  /** The order used when order_by is empty. */
  defaultOrder: readonly OrderKey[];
}

/** Resolves page_size: 0 means the default, larger than the maximum means the maximum. */
export function resolvePageSize(pageSize: number): number {
  if (pageSize < 0) throw invalidArgument("page_size", "must not be negative");
  if (pageSize === 0) return DEFAULT_PAGE_SIZE;
  return Math.min(pageSize, MAX_PAGE_SIZE);
}

/** skip as given; negative is INVALID_ARGUMENT (DESIGN 1.4). */
export function resolveSkip(skip: number): number {
  if (skip < 0) throw invalidArgument("skip", "must not be negative");
  return skip;
}

/**
 * Parses order_by (`field [asc|desc]`, comma-separated) into keys, appending the uid as the final
 * tie-breaker in the direction of the last key so that the order is total.
 */
export function parseOrderBy(orderBy: string, sortable: Sortable): OrderKey[] {
  const keys: OrderKey[] = [];
  const text = orderBy.trim();
  if (text === "") {
    keys.push(...sortable.defaultOrder);
  } else {
    for (const part of text.split(",")) {
      const words = part.trim().split(/\s+/);
      const name = words[0] ?? "";
      const dir = (words[1] ?? "asc").toLowerCase();
      if (name === "" || words.length > 2 || (dir !== "asc" && dir !== "desc")) {
        throw invalidArgument("order_by", `"${part.trim()}" is not of the form "field [asc|desc]"`);
      }
      const field = sortable.fields[name];
      if (field === undefined) {
        const names = Object.keys(sortable.fields).join(", ");
        throw invalidArgument("order_by", `unknown field "${name}"; sortable fields are ${names}`);
      }
      if (keys.some((k) => k.field === field)) {
        throw invalidArgument("order_by", `field "${name}" is named more than once`);
      }
      keys.push({ field, desc: dir === "desc" });
    }
  }
  if (!keys.some((k) => k.field === "uid")) {
    keys.push({ field: "uid", desc: keys.at(-1)?.desc ?? false });
  }
  return keys;
}

/** The canonical text of an order, for binding page tokens to it. */
export function orderText(keys: readonly OrderKey[]): string {
  return keys.map((k) => `${k.field} ${k.desc ? "desc" : "asc"}`).join(",");
}

/** The paging parameters every v2 list request carries. */
export interface PageRequest {
  pageSize: number;
  pageToken: string;
  orderBy: string;
  skip: number;
}

/** What the store runs for one page. */
export interface PagePlan {
  order: OrderKey[];
  /** The sort key of the item the page starts after; absent on a first page. */
  after?: readonly (string | number)[];
  /** Rows to pass over after `after` (or from the start). */
  offset: number;
  /** Rows to fetch: the page size plus one, to learn whether another page follows. */
  limit: number;
  pageSize: number;
  skip: number;
  /** The position of the page's first item in the whole result, for the next token. */
  start: number;
  /** The digest binding tokens to the filters and order. */
  digest: string;
}

/**
 * Plans one page. `query` holds the filters (everything but the paging parameters); a token
 * issued for other filters or another order is INVALID_ARGUMENT, an expired one restarts.
 *
 * skip is absolute: the first `skip` results of the order are left out. A token continues after
 * its last item, so passing the same skip again with the token gives the next page (spec, List
 * rule 1), and a larger skip jumps past the token's position.
 */
export function planPage(req: PageRequest, sortable: Sortable, resource: string, query: unknown, tokens: PageTokens): PagePlan {
  const pageSize = resolvePageSize(req.pageSize);
  const skip = resolveSkip(req.skip);
  const order = parseOrderBy(req.orderBy, sortable);
  const digest = tokens.digest(resource, query, orderText(order));
  let cursor: Cursor | undefined;
  if (req.pageToken !== "") cursor = tokens.read(req.pageToken, digest, order.length);
  if (cursor === undefined) {
    return { order, offset: skip, limit: pageSize + 1, pageSize, skip, start: skip, digest };
  }
  return {
    order,
    after: cursor.key,
    offset: Math.max(0, skip - cursor.position),
    limit: pageSize + 1,
    pageSize,
    skip,
    start: Math.max(cursor.position, skip),
    digest,
  };
}

/** One page of results and the token for the next, if any. */
export interface Page<T> {
  items: T[];
  nextPageToken?: string;
}

/** Cuts the fetched rows to the page and issues the next token when more rows follow. */
export function finishPage<T>(
  rows: T[],
  plan: PagePlan,
  tokens: PageTokens,
  keyOf: (item: T, order: readonly OrderKey[]) => (string | number)[],
): Page<T> {
  if (rows.length <= plan.pageSize) return { items: rows };
  const items = rows.slice(0, plan.pageSize);
  const last = items[items.length - 1] as T;
  const nextPageToken = tokens.issue(plan.digest, keyOf(last, plan.order), plan.start + items.length);
  return { items, nextPageToken };
}

/**
 * How many results the skip left out, as the envelope's `skipped` echoes it: the skip, but no
 * more than there are (skip=500 over 210 matches skipped 210).
 */
export function skippedCount(plan: PagePlan, totalCount: number): number {
  return Math.min(plan.skip, totalCount);
}
