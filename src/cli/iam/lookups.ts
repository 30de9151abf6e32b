/**
 * How names of the resources that others refer to are found, and flag parsers that turn such a
 * name into a uid (`--role viewer`, `--identity ci-bot`).
 */
import { IdentitiesService } from "../../gen/arbor/iam/v2beta1/identities_pb.js";
import { RolesService } from "../../gen/arbor/iam/v2beta1/roles_pb.js";
import { GROUP_LOOKUP } from "../resource/group-lookup.js";
import { resolveUid } from "../resource/resolve.js";
import { lookup, type FlagParser, type Lookup } from "../resource/spec.js";

/** Identities: named, in the group tree (people who logged in are root-level). */
export const IDENTITY_LOOKUP = lookup({
  noun: "identities",
  singular: "identity",
  service: IdentitiesService,
  listRpc: "listIdentities",
  items: "identities",
  named: true,
  scope: "subtree",
  hierarchical: true,
});

/** Roles: built-in ones are root-level, custom ones live in a group. */
export const ROLE_LOOKUP = lookup({
  noun: "roles",
  singular: "role",
  service: RolesService,
  listRpc: "listRoles",
  items: "roles",
  named: true,
  scope: "role",
  hierarchical: true,
});

/** A flag parser resolving a name or uid of lookup's resource to its uid. */
export function uidOf(lookup: Lookup): FlagParser {
  return (text, ctx) => resolveUid(ctx, lookup, text);
}

/** Resolves a group name or uid. */
export const groupUid: FlagParser = uidOf(GROUP_LOOKUP);
