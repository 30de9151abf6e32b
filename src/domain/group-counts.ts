/**
 * When a groups count can be read off the stored descendant counts (migration 0008) instead of
 * counting rows: for `uidp.descendants_of` alone, within what the caller may see. Every other
 * filter is counted row by row.
 */
import type { GroupFilter } from "./groups.js";
import { scopesBelow } from "./visible-scopes.js";

/** How to count from descendant counts: the groups below each of sumBelow, plus those of plusGroups that exist. */
export interface DescendantCountPlan {
  /** Groups whose descendants all match; their counts add up (no subtree lies in another). */
  sumBelow: readonly string[];
  /** Groups that match themselves (visible subtrees' tops below the filter's group). */
  plusGroups: readonly string[];
}

/**
 * Up to this many visible subtrees a count reads each one's counts. Beyond it a groups count is
 * remembered (src/store/group-pages.ts); an audit count reads them through a set of subtrees
 * (src/store/audit-store.ts).
 */
export const MAX_COUNTED_SUBTREES = 16;

/** The plan for filter, or undefined when the rows must be counted. */
export function descendantCountPlan(filter: GroupFilter): DescendantCountPlan | undefined {
  const { descendantsOf, childrenOf, inRoot, ids } = filter.uidp;
  if (descendantsOf === undefined || childrenOf !== undefined || inRoot !== undefined || ids !== undefined || filter.name !== undefined)
    return undefined;
  // Everything below the group is visible when nothing is hidden or a visible subtree holds it;
  // otherwise only the visible subtrees below it count, each its top and everything under it
  // (the scopes never lie inside one another).
  const below = filter.visibleUnder === undefined ? "all" : scopesBelow(filter.visibleUnder, descendantsOf);
  return below === "all" ? { sumBelow: [descendantsOf], plusGroups: [] } : { sumBelow: below, plusGroups: below };
}
