/**
 * Walking the pages of a list: the first page only (the default), every page (`--all`), or until
 * enough items (`--limit N`), always passing the same query with each next page token.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { Item } from "../output/cells.js";
import type { CommandContext } from "./context.js";
import type { Lookup } from "./spec.js";

/** How far to walk. */
export interface Walk {
  /** Every page. */
  all?: boolean;
  /** Stop after this many items, across pages. */
  limit?: number;
}

/** The items a walk got, and where the list goes on. */
export interface Walked {
  items: Item[];
  /** Whether the list holds items after those. */
  more: boolean;
  /** The token continuing right after the last item, when there is one (not when a limit cut a page). */
  nextPageToken: string | undefined;
  /** Every match, as the server counts them. */
  totalCount: number;
}

/** Lists with request (a list request in JSON, without page_token unless resuming), walking as asked. */
export async function walkList(ctx: CommandContext, lookup: Lookup, request: JsonObject, walk: Walk): Promise<Walked> {
  const items: Item[] = [];
  let pageToken = typeof request.pageToken === "string" ? request.pageToken : "";
  for (;;) {
    const page = (await ctx.api.call(lookup.service, lookup.listRpc, { ...request, pageToken })) as JsonObject;
    const got = (page[lookup.items] ?? []) as Item[];
    items.push(...got);
    const next = typeof page.nextPageToken === "string" && page.nextPageToken !== "" ? page.nextPageToken : undefined;
    const totalCount = Number(page.totalCount ?? 0);
    if (walk.limit !== undefined && items.length >= walk.limit) {
      // Stopping inside a page leaves items that no token leads to.
      const cut = items.length > walk.limit;
      return { items: items.slice(0, walk.limit), more: cut || next !== undefined, nextPageToken: cut ? undefined : next, totalCount };
    }
    if (next === undefined || (walk.all !== true && walk.limit === undefined))
      return { items, more: next !== undefined, nextPageToken: next, totalCount };
    pageToken = next;
  }
}
