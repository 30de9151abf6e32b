/**
 * When an audit events count can be read off the kept counts (migration 0014) instead of counting
 * events: at most one of method, actor and resource, with no uidp filter, `descendants_of` or
 * `children_of` alone, within what the caller may see. Combined filters, `ids`, `in_root` and a
 * time bound count events row by row.
 */
import type { AuditFilter } from "./audit.js";
import { descendantCountPlan } from "./group-counts.js";
import { isSelfOrDescendant } from "./uid.js";
import { inOrder } from "./visible-scopes.js";

/** How to count from kept counts: the rows of key in the groups named. */
export interface AuditCountPlan {
  /** '' (every event), 'method:<m>', 'actor:<uid>' or 'resource:<uid>'. */
  key: string;
  /** Each group and everything below it (no subtree lies in another); undefined: every group. */
  subtrees?: string[];
  /** One group alone (children_of). */
  group?: string;
}

/** The plan for filter, or undefined when the events must be counted. */
export function auditCountPlan(filter: AuditFilter): AuditCountPlan | undefined {
  const exact = [
    filter.method !== undefined && `method:${filter.method}`,
    filter.actorUid !== undefined && `actor:${filter.actorUid}`,
    filter.resourceUid !== undefined && `resource:${filter.resourceUid}`,
  ].filter((k) => k !== false);
  // Counts are kept per group and value, not per time: a time range counts the events.
  if (exact.length > 1 || filter.createdBefore !== undefined || filter.createdSince !== undefined) return undefined;
  const key = exact[0] ?? "";
  const { descendantsOf, childrenOf, inRoot, ids } = filter.uidp;
  if (inRoot !== undefined || ids !== undefined) return undefined;
  const tops = filter.visibleUnder;
  if (childrenOf !== undefined) {
    if (descendantsOf !== undefined) return undefined;
    // An event's parent is its group: children_of names one group, visible or not.
    const visible = tops === undefined || tops.some((top) => isSelfOrDescendant(childrenOf, top));
    return visible ? { key, group: childrenOf } : { key, subtrees: [] };
  }
  if (descendantsOf !== undefined) {
    // The events strictly below a group are those of the group and of every group below it, so
    // the groups' plan (strictly below, plus visible tops) is this one's subtrees.
    const groups = descendantCountPlan({ uidp: { descendantsOf }, ...(tops !== undefined && { visibleUnder: tops }) });
    return groups === undefined ? undefined : { key, subtrees: [...groups.sumBelow] };
  }
  if (tops === undefined) return { key };
  // Sorted, without those below another: linear after the sort (a pairwise test was quadratic,
  // seconds for a caller with 5,000 scopes).
  return { key, subtrees: [...inOrder(tops)] };
}
