/**
 * Group operations shared by the API services and the admin commands, so both obey the same
 * rules: creating an organization makes its creator an owner in the same transaction. When that
 * owner is the organization's local administrator, it gets an identity row (root-level, like a
 * person), so role bindings can show it by name. A group may not take a name whose registry path
 * is bound to another group, and a group bound to its registry path keeps its name.
 */
import { Code, failedPrecondition, isApiError } from "../../domain/errors.js";
import { MAX_GROUP_DEPTH, type GroupRecord } from "../../domain/groups.js";
import { adminIdentityUid, type IdentityRecord } from "../../domain/identities.js";
import { validateDescription, validateName } from "../../domain/names.js";
import { OWNER_ROLE } from "../../domain/roles.js";
import { depthOf, isRoot, newChildUid, newRootUid, parentOf } from "../../domain/uid.js";
import type { ServiceDeps } from "../deps.js";
import { checkRegistryPath } from "../registry/registry-paths.js";

/** The fields of a new group. */
export interface NewGroup {
  name: string;
  description: string;
}

/** Creates an organization and makes ownerOf(its uid) an owner of it, in one transaction. */
export async function createOrganization(
  deps: ServiceDeps,
  fields: NewGroup,
  ownerOf: (organizationUid: string) => string,
): Promise<GroupRecord> {
  validateName(fields.name);
  validateDescription(fields.description);
  await checkRegistryPath(deps.store, null, fields.name);
  const now = deps.clock.now();
  const group: GroupRecord = { uid: newRootUid(deps.ids), parentUid: null, ...fields, createTime: now, updateTime: now };
  const owner = ownerOf(group.uid);
  await deps.store.atomically(async (tx) => {
    await tx.groups.insert(group);
    if (owner === adminIdentityUid(group.uid)) await tx.identities.insert(adminIdentity(group, now));
    await tx.bindings.insert({
      uid: newChildUid(deps.ids, group.uid),
      groupUid: group.uid,
      identityUid: owner,
      roleUid: OWNER_ROLE.uid,
      createTime: now,
    });
    // Its creator (a person, or its local administrator) is a member from the start.
    if (isRoot(owner)) await tx.identities.join(group.uid, owner, now);
  });
  return group;
}

/** Creates a group under parent. */
export async function createChildGroup(deps: ServiceDeps, parent: string, fields: NewGroup): Promise<GroupRecord> {
  validateName(fields.name);
  validateDescription(fields.description);
  if (depthOf(parent) >= MAX_GROUP_DEPTH) {
    throw failedPrecondition("DEPTH_LIMIT", parent, `groups may be nested at most ${MAX_GROUP_DEPTH} levels deep`);
  }
  await checkRegistryPath(deps.store, parent, fields.name);
  const now = deps.clock.now();
  const group: GroupRecord = { uid: newChildUid(deps.ids, parent), parentUid: parent, ...fields, createTime: now, updateTime: now };
  await deps.store.groups.insert(group);
  return group;
}

/** Renames and redescribes a group; undefined when it does not exist. */
export async function updateGroup(
  deps: ServiceDeps,
  uid: string,
  changes: { name?: string; description?: string },
): Promise<GroupRecord | undefined> {
  if (changes.name !== undefined) await checkRegistryPath(deps.store, parentOf(uid) ?? null, changes.name, uid);
  return deps.store.groups.update(uid, changes, deps.clock.now());
}

/** Makes identityUid an owner of the organization, unless it already is. */
export async function ensureOwner(deps: ServiceDeps, organizationUid: string, identityUid: string): Promise<void> {
  if (identityUid === adminIdentityUid(organizationUid)) await ensureAdminIdentity(deps, organizationUid);
  const existing = await deps.store.bindings.find(organizationUid, identityUid, OWNER_ROLE.uid);
  if (!existing) {
    await deps.store.bindings.insert({
      uid: newChildUid(deps.ids, organizationUid),
      groupUid: organizationUid,
      identityUid,
      roleUid: OWNER_ROLE.uid,
      createTime: deps.clock.now(),
    });
  }
  // The installation's operator vouches for the owner it names: the organization sees who it is.
  if (isRoot(identityUid)) await deps.store.identities.join(organizationUid, identityUid, deps.clock.now());
}

/** The identity row of an organization's local administrator. */
function adminIdentity(org: Pick<GroupRecord, "uid" | "name">, now: number): IdentityRecord {
  return {
    uid: adminIdentityUid(org.uid),
    parentUid: null,
    name: "admin",
    description: `local administrator of ${org.name}`,
    relationship: { kind: "user", issuer: "arbor:admin", subject: org.uid },
    lastSeenTime: null,
    createTime: now,
    updateTime: now,
  };
}

/** Adds the administrator's identity row unless it exists (organizations made before it had one). */
async function ensureAdminIdentity(deps: ServiceDeps, organizationUid: string): Promise<void> {
  const uid = adminIdentityUid(organizationUid);
  if (await deps.store.identities.get(uid)) return;
  const org = await deps.store.groups.get(organizationUid);
  if (!org) return; // the binding insert that follows reports the missing group
  try {
    await deps.store.identities.insert(adminIdentity(org, deps.clock.now()));
  } catch (e) {
    // A concurrent `arbor admin token` inserted it first.
    if (!(isApiError(e) && e.code === Code.ALREADY_EXISTS && (await deps.store.identities.get(uid)))) throw e;
  }
}
