/**
 * When a groups count can be read off the stored descendant counts (migration 0008) instead of
 * counting rows: for `uidp.descendants_of` alone, within what the caller may see. Every other
 * filter is counted row by row.
 */
import type { GroupFilter } from "./groups.js";
import { isSelfOrDescendant } from "./uid.js";

/** How to count from descendant counts: the groups below each of sumBelow, plus those of plusGroups that exist. */
export interface DescendantCountPlan {
  /** Groups whose descendants all match; their counts add up (no subtree lies in another). */
  sumBelow: string[];
  /** Groups that match themselves (visible subtrees' tops below the filter's group). */
  plusGroups: string[];
}

/** Beyond this many visible subtrees below the group, counting rows is as cheap. */
export const MAX_COUNTED_SUBTREES = 16;

/** The plan for filter, or undefined when the rows must be counted. */
export function descendantCountPlan(filter: GroupFilter): DescendantCountPlan | undefined {
  const { descendantsOf, childrenOf, inRoot, ids } = filter.uidp;
  if (descendantsOf === undefined || childrenOf !== undefined || inRoot !== undefined || ids !== undefined || filter.name !== undefined) return undefined;
  const tops = filter.visibleUnder;
  // Everything below the group is visible when nothing is hidden or a visible subtree holds it.
  if (tops === undefined || tops.some((top) => isSelfOrDescendant(descendantsOf, top))) return { sumBelow: [descendantsOf], plusGroups: [] };
  // Otherwise only the visible subtrees below it count, each its top and everything under it,
  // and a subtree inside another must not count twice.
  // Sorted, a subtree's uids follow its top ('/' sorts before every uid character), so one pass
  // keeps the outermost: linear after the sort, however many scopes a caller holds.
  const below = tops.filter((top) => top !== descendantsOf && isSelfOrDescendant(top, descendantsOf)).sort();
  const distinct: string[] = [];
  for (const top of below) {
    const last = distinct.at(-1);
    if (last === undefined || !isSelfOrDescendant(top, last)) distinct.push(top);
    if (distinct.length > MAX_COUNTED_SUBTREES) return undefined;
  }
  return { sumBelow: distinct, plusGroups: distinct };
}
