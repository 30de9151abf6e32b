/**
 * A GroupFilter as a WHERE clause (DESIGN 1.4).
 */
import type { Expression, ExpressionBuilder, SqlBool } from "kysely";
import type { GroupFilter } from "../domain/groups.js";
import type { Database } from "./database.js";
import { hierarchyConditions } from "./hierarchy-filter.js";

type Groups = ExpressionBuilder<Database, "groups">;

/** The condition a group must meet to match filter. */
export function groupFilter(eb: Groups, filter: GroupFilter): Expression<SqlBool> {
  const all = hierarchyConditions({ ...filter.uidp, ...(filter.visibleUnder !== undefined && { visibleUnder: filter.visibleUnder }) }, { uid: "uid", parent: "parent_uid" });
  if (filter.name !== undefined) all.push(eb("name", "=", filter.name));
  return eb.and(all);
}
