/**
 * A GroupFilter as a WHERE clause (DESIGN 1.4). Every present member narrows the result; an
 * empty list of uids matches nothing.
 */
import type { Expression, ExpressionBuilder, SqlBool } from "kysely";
import type { GroupFilter } from "../domain/groups.js";
import type { Database } from "./database.js";

type Groups = ExpressionBuilder<Database, "groups">;

/** The condition a group must meet to match filter. */
export function groupFilter(eb: Groups, filter: GroupFilter): Expression<SqlBool> {
  const { descendantsOf, childrenOf, inRoot, ids } = filter.uidp;
  const all: Expression<SqlBool>[] = [];
  if (descendantsOf !== undefined) all.push(strictlyBelow(eb, descendantsOf));
  if (childrenOf !== undefined) all.push(eb("parent_uid", "=", childrenOf));
  if (inRoot === true) all.push(eb("parent_uid", "is", null));
  // eb.or([]) is `1 = 0`: `in ()` would not even parse on PostgreSQL.
  if (ids !== undefined) all.push(ids.length === 0 ? eb.or([]) : eb("uid", "in", ids));
  if (filter.name !== undefined) all.push(eb("name", "=", filter.name));
  if (filter.visibleUnder !== undefined) {
    all.push(eb.or(filter.visibleUnder.map((top) => eb.or([eb("uid", "=", top), strictlyBelow(eb, top)]))));
  }
  return eb.and(all);
}

/**
 * Everything below uid at any depth: the uids that start with `uid/`. As a range rather than
 * LIKE, so it is an index range scan: '/' is 0x2F and '0' is 0x30, and no uid character sorts
 * between them.
 */
function strictlyBelow(eb: Groups, uid: string): Expression<SqlBool> {
  return eb.and([eb("uid", ">", `${uid}/`), eb("uid", "<", `${uid}0`)]);
}
