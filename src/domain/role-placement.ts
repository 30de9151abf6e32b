/**
 * Where a role may be used: a built-in role (root-level uid) in any group, a custom role only in
 * the group that defines it and below. Read off the uids alone (a custom role's uid is its
 * group's uid plus one segment), so it is checked before anything is looked up and reveals
 * nothing about what exists.
 */
import { invalidArgument } from "./errors.js";
import { isSelfOrDescendant, parentOf } from "./uid.js";

/** Throws INVALID_ARGUMENT naming field unless roleUid may be used at groupUid. */
export function checkRoleUsableIn(groupUid: string, roleUid: string, field: string): void {
  const definedIn = parentOf(roleUid);
  if (definedIn === undefined || isSelfOrDescendant(groupUid, definedIn)) return;
  throw invalidArgument(
    field,
    `role ${roleUid} is defined in group ${definedIn}; use a built-in role or one defined in group ${groupUid} or above it`,
  );
}
