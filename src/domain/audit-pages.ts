/**
 * How a page of audit events in time order is read (issue 22, item 4): by walking one root's
 * (organization's) events in time order, the filter's subtree a test on each walked event, and
 * stopping after the page; or by reading the subtree's events by their uid range and sorting
 * them. The walk reads about page × (root's events ÷ subtree's events); the range reads the
 * subtree's events. Which is cheaper follows from the kept counts (src/domain/audit-counts.ts).
 */
import type { AuditFilter } from "./audit.js";
import { isRoot, rootOf } from "./uid.js";

/** The root a page of filter may walk, and whether the filter is narrower than that root. */
export interface PageRoot {
  /** The organization whose events are walked; undefined: the whole log (subtrees in several roots). */
  root: string | undefined;
  /** Only a subtree of the root matches (descendants_of, or a caller who sees less than the root). */
  narrower: boolean;
}

/**
 * The root a page in time order may walk, or undefined when another index serves the page
 * better (an exact filter's, children_of's, ids') or nothing narrows it (the log's own order).
 * A caller whose subtrees lie in several roots may walk the whole log.
 */
export function pageRoot(filter: AuditFilter, firstOrderField: string | undefined): PageRoot | undefined {
  const { descendantsOf, childrenOf, ids, inRoot } = filter.uidp;
  if (firstOrderField !== "create_time") return undefined;
  if (filter.method !== undefined || filter.actorUid !== undefined || filter.resourceUid !== undefined) return undefined;
  if (childrenOf !== undefined || ids !== undefined || inRoot !== undefined) return undefined;
  const tops = descendantsOf !== undefined ? [descendantsOf] : (filter.visibleUnder ?? []);
  const roots = new Set(tops.map(rootOf));
  const [root] = roots;
  if (root === undefined) return undefined;
  if (roots.size > 1) return { root: undefined, narrower: true };
  return { root, narrower: descendantsOf !== undefined || !tops.every(isRoot) };
}

/** Whether walking the root (rootEvents) for the first pageEnd of subtreeEvents reads fewer events than the range. */
export function walkIsCheaper(subtreeEvents: number, rootEvents: number, pageEnd: number): boolean {
  return subtreeEvents * subtreeEvents >= pageEnd * rootEvents;
}
