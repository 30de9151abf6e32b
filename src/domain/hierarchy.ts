/**
 * The uidp filter (DESIGN 1.4), checked and normalised for the store.
 */
import { invalidArgument } from "./errors.js";
import { ancestorsOf, requireUid } from "./uid.js";

/** A list filter common to the IAM resources: hierarchy, exact name, and what the caller may see. */
export interface ResourceFilter {
  uidp: HierarchyFilter;
  name?: string;
  /**
   * The uids whose subtrees (each uid itself and everything below) the caller may see;
   * undefined means everything, an empty list nothing.
   */
  visibleUnder?: readonly string[];
}

/** The uidp filter as a request carries it. */
export interface UidpInput {
  ancestorsOf: string;
  descendantsOf: string;
  childrenOf: string;
  inRoot: boolean;
  ids: readonly string[];
}

/** The uidp filter as the store applies it; every present member narrows the result (AND). */
export interface HierarchyFilter {
  /** Strictly below this uid. */
  descendantsOf?: string;
  /** Direct children of this uid. */
  childrenOf?: string;
  /** Root-level records only. */
  inRoot?: boolean;
  /** One of these uids (ancestors_of becomes this). Empty matches nothing. */
  ids?: string[];
}

/** The most uids `uidp.ids` may name. */
export const MAX_FILTER_IDS = 200;

/** Validates a request's uidp filter and turns ancestors_of into the uids it names. */
export function hierarchyFilter(input: UidpInput | undefined): HierarchyFilter {
  const out: HierarchyFilter = {};
  if (input === undefined) return out;
  if (input.descendantsOf !== "") out.descendantsOf = requireUid("uidp.descendants_of", input.descendantsOf);
  if (input.childrenOf !== "") out.childrenOf = requireUid("uidp.children_of", input.childrenOf);
  if (input.inRoot) out.inRoot = true;
  let ids: string[] | undefined;
  if (input.ids.length > 0) {
    if (input.ids.length > MAX_FILTER_IDS) {
      throw invalidArgument("uidp.ids", `at most ${MAX_FILTER_IDS} uids may be given`);
    }
    ids = input.ids.map((id) => requireUid("uidp.ids", id));
  }
  if (input.ancestorsOf !== "") {
    const above = ancestorsOf(requireUid("uidp.ancestors_of", input.ancestorsOf));
    ids = ids === undefined ? above : ids.filter((id) => above.includes(id));
  }
  if (ids !== undefined) out.ids = [...new Set(ids)];
  return out;
}
