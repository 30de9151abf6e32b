/**
 * Role bindings: where an identity may be bound, and what may be sorted and updated. Where a role
 * may be bound is role-placement.ts. Both placement rules are read off the uids alone (a uid is
 * the path from its root), so they are checked before anything is looked up and reveal nothing
 * about what exists.
 */
import { invalidArgument } from "./errors.js";
import type { Updatable } from "./field-mask.js";
import type { Sortable } from "./list.js";
import { isRoot, rootOf } from "./uid.js";

/**
 * Throws INVALID_ARGUMENT unless identityUid may be bound at groupUid: a root-level identity (a
 * person) anywhere, any other only inside its own organization (field `identityUid`).
 */
export function checkIdentityPlacement(groupUid: string, identityUid: string): void {
  if (isRoot(identityUid) || rootOf(identityUid) === rootOf(groupUid)) return;
  throw invalidArgument("identityUid", `identity ${identityUid} belongs to another organization than group ${groupUid}`);
}

/** Sortable fields of role bindings; default order create_time ascending (DESIGN 1.4). */
export const bindingSortable: Sortable = {
  fields: {
    uid: "uid",
    create_time: "create_time",
    created_at: "create_time",
    createTime: "create_time",
  },
  defaultOrder: [{ field: "create_time", desc: false }],
};

/** What an update may change on a role binding. */
export const bindingUpdatable: Updatable = {
  mutable: ["identity_uid", "role_uid"],
  outputOnly: ["uid", "identity", "group", "role", "create_time"],
};

/** The value of a binding's sort field. */
export function bindingSortValue(b: { uid: string; createTime: number }, field: string): string | number {
  switch (field) {
    case "uid":
      return b.uid;
    case "create_time":
      return b.createTime;
    default:
      throw new RangeError(`role bindings are not sortable by ${field}`);
  }
}
