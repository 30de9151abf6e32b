/**
 * The checks a binding of an identity to a role at a group must pass, on create and on update
 * alike, in the order that reveals the least: the uids' placement first (read off the uids), then
 * the role, then whether the caller may grant it, and only then whether the identity exists.
 */
import { notFound } from "../../domain/errors.js";
import type { Permissions } from "../../domain/permissions.js";
import { checkIdentityPlacement } from "../../domain/role-binding-rules.js";
import { checkRoleUsableIn } from "../../domain/role-placement.js";
import { isRoot, requireUid } from "../../domain/uid.js";
import type { Stores } from "../../store/store.js";
import { requireGrantable } from "./escalation-guard.js";

/** What a binding is to name, as the request gave it. */
export interface BindingTargetInput {
  groupUid: string;
  identityUid: string | undefined;
  roleUid: string | undefined;
}

/** A checked target: the uids the binding is to name. */
export interface BindingTarget {
  identityUid: string;
  roleUid: string;
}

/**
 * Checks that the identity may hold the role at the group and that the caller may grant it.
 * INVALID_ARGUMENT (`identityUid`, `roleUid`) for missing or malformed uids, an identity of
 * another organization or a custom role defined outside the group's ancestry; NOT_FOUND for a
 * missing group, role or (non-root) identity; PERMISSION_DENIED when the role grants a capability
 * the caller does not hold at the group (no one hands out more than they have).
 */
export async function checkBindingTarget(store: Stores, perms: Permissions, input: BindingTargetInput): Promise<BindingTarget> {
  const { groupUid } = input;
  const identityUid = requireUid("identityUid", input.identityUid ?? "");
  const roleUid = requireUid("roleUid", input.roleUid ?? "");
  checkIdentityPlacement(groupUid, identityUid);
  checkRoleUsableIn(groupUid, roleUid, "roleUid");
  const [group, role, identity] = await Promise.all([
    store.groups.get(groupUid),
    store.roles.get(roleUid),
    store.identities.get(identityUid),
  ]);
  if (!group) throw notFound("group", groupUid);
  if (!role) throw notFound("role", roleUid);
  // The escalation guard checks this again before the change commits; checked here too so that
  // a caller who may not grant the role learns nothing of whether the identity exists.
  requireGrantable(perms, role, groupUid, "binding");
  // A person (root-level identity) may be bound before their first login registers them.
  if (!identity && !isRoot(identityUid)) throw notFound("identity", identityUid);
  return { identityUid, roleUid };
}
