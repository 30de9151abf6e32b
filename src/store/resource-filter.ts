/**
 * A list filter as WHERE conditions (DESIGN 1.4): the uidp filter, an exact name, what the caller
 * may see, and a resource's own exact-match filters. Shared by every listed resource.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { HierarchyFilter } from "../domain/hierarchy.js";
import { scopesBelow } from "../domain/visible-scopes.js";
import { hierarchyConditions, visibleUnder, type HierarchyColumns } from "./hierarchy-filter.js";

/** What every list filter holds (GroupFilter, ResourceFilter, BindingFilter, InviteFilter). */
export interface ListFilter {
  uidp: HierarchyFilter;
  /** An exact match on the `name` column. */
  name?: string;
  /**
   * The uids whose subtrees the caller may see, sorted (Permissions.scopes); undefined means
   * everything, an empty list nothing.
   */
  visibleUnder?: readonly string[];
}

/** Where a resource keeps its hierarchy, and what a caller's visibility reaches. */
export interface FilterColumns extends HierarchyColumns {
  /** The rows a caller who may see the subtrees of tops sees; by default those whose uid is in them. */
  visible?: (tops: readonly string[]) => Expression<SqlBool>;
}

/**
 * The conditions a row must meet to match filter; exact maps further columns to the value each
 * must equal, an undefined value matching anything.
 */
export function listConditions(
  filter: ListFilter,
  columns: FilterColumns,
  exact: Readonly<Record<string, string | undefined>> = {},
): Expression<SqlBool>[] {
  const { uidp } = filter;
  // Only the scopes in the part of the tree the filter reads matter: a caller with 10,000
  // bindings listing one team's groups tests the rows against that team's few.
  const within = uidp.descendantsOf ?? uidp.childrenOf;
  const tops = filter.visibleUnder === undefined || within === undefined ? filter.visibleUnder : scopesBelow(filter.visibleUnder, within);
  // Where visibility is the row's own uid in a scope strictly below descendants_of, the scope's
  // range implies it; left out, the engine reads the scopes' ranges, not the whole subtree's.
  const implied = tops !== undefined && tops !== "all" && columns.visible === undefined && uidp.descendantsOf !== undefined;
  const all = hierarchyConditions(implied ? { ...uidp, descendantsOf: undefined } : uidp, columns);
  for (const [column, value] of Object.entries({ name: filter.name, ...exact })) {
    if (value !== undefined) all.push(sql<SqlBool>`${sql.ref(column)} = ${value}`);
  }
  if (tops !== undefined && tops !== "all") all.push(columns.visible?.(tops) ?? visibleUnder(columns.uid, tops));
  return all;
}
