/**
 * Group operations shared by the API services and the admin commands, so both obey the same
 * rules: creating an organization makes its creator an owner in the same transaction.
 */
import { failedPrecondition } from "../domain/errors.js";
import { MAX_GROUP_DEPTH, type GroupRecord } from "../domain/groups.js";
import { validateDescription, validateName } from "../domain/names.js";
import { OWNER_ROLE } from "../domain/roles.js";
import { depthOf, newChildUid, newRootUid } from "../domain/uid.js";
import type { ServiceDeps } from "./deps.js";

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
  const now = deps.clock.now();
  const group: GroupRecord = { uid: newRootUid(deps.ids), parentUid: null, ...fields, createTime: now, updateTime: now };
  await deps.store.transaction(async (tx) => {
    await tx.groups.insert(group);
    await tx.bindings.insert({
      uid: newChildUid(deps.ids, group.uid),
      groupUid: group.uid,
      identityUid: ownerOf(group.uid),
      roleUid: OWNER_ROLE.uid,
      createTime: now,
    });
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
  const now = deps.clock.now();
  const group: GroupRecord = { uid: newChildUid(deps.ids, parent), parentUid: parent, ...fields, createTime: now, updateTime: now };
  await deps.store.groups.insert(group);
  return group;
}

/** Makes identityUid an owner of the organization, unless it already is. */
export async function ensureOwner(deps: ServiceDeps, organizationUid: string, identityUid: string): Promise<void> {
  const existing = await deps.store.bindings.find(organizationUid, identityUid, OWNER_ROLE.uid);
  if (existing) return;
  await deps.store.bindings.insert({
    uid: newChildUid(deps.ids, organizationUid),
    groupUid: organizationUid,
    identityUid,
    roleUid: OWNER_ROLE.uid,
    createTime: deps.clock.now(),
  });
}
