/**
 * Role bindings as the spec shows them: hydrated with their identity, group and role. A page is
 * hydrated with four batched lookups, whatever its size.
 *
 * A person (a root-level identity) is shown by name, issuer and subject only in an organization
 * they have joined by their own act (logging in through its identity provider, redeeming one of
 * its invites, creating it): anyone may bind a person's uid, but that tells them nothing of
 * whether the person exists or what they are called until the person comes (docs/api.md, People).
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { GroupRecord } from "../../domain/groups.js";
import { exactIssuerSubject, type IdentityRecord } from "../../domain/identities.js";
import type { RoleRecord } from "../../domain/roles.js";
import { isRoot, rootOf } from "../../domain/uid.js";
import { RoleBindingSchema, type RoleBinding } from "../../gen/arbor/iam/v2beta1/role_bindings_pb.js";
import type { Stores } from "../../store/store.js";
import type { BindingRecord } from "../../domain/role-bindings.js";

/** What a binding refers to, as far as it exists (and, for a person, may be shown). */
interface BindingParts {
  /** Absent for a person who has not logged in yet (bound before their first login). */
  identity: IdentityRecord | undefined;
  group: GroupRecord | undefined;
  role: RoleRecord | undefined;
}

/**
 * The binding as the API shows it: uid, identity, group, role and createTime, nothing else
 * (identityUid and roleUid are input only). A part that does not exist shows only its uid.
 */
function bindingMessage(b: BindingRecord, parts: BindingParts): RoleBinding {
  const { identity, group, role } = parts;
  const match = identity ? exactIssuerSubject(identity.relationship) : { issuer: null, subject: null };
  return create(RoleBindingSchema, {
    uid: b.uid,
    identity: {
      uid: b.identityUid,
      name: identity?.name ?? "",
      description: identity?.description ?? "",
      subject: match.subject ?? "",
      issuer: match.issuer ?? "",
    },
    group: { uid: b.groupUid, name: group?.name ?? "", description: group?.description ?? "" },
    role: { uid: b.roleUid, name: role?.name ?? "", description: role?.description ?? "" },
    createTime: timestampFromMs(b.createTime),
  });
}

/**
 * Hydrates bindings with one lookup each for their identities, groups, roles and the
 * organizations their people have joined; `viewer` always sees themselves.
 */
export async function hydrateBindings(
  store: Stores,
  bindings: readonly BindingRecord[],
  viewer: string | undefined,
): Promise<RoleBinding[]> {
  if (bindings.length === 0) return [];
  const distinct = (pick: (b: BindingRecord) => string) => [...new Set(bindings.map(pick))];
  const groupUids = distinct((b) => b.groupUid);
  const identityUids = distinct((b) => b.identityUid);
  const [identities, groups, roles, memberships] = await Promise.all([
    store.identities.getMany(identityUids),
    store.groups.getMany(groupUids),
    store.roles.getMany(distinct((b) => b.roleUid)),
    store.identities.memberships(identityUids.filter((uid) => isRoot(uid) && uid !== viewer)),
  ]);
  const byUid = <R extends { uid: string }>(records: readonly R[]) => new Map(records.map((r) => [r.uid, r]));
  const [identityOf, groupOf, roleOf] = [byUid(identities), byUid(groups), byUid(roles)];
  const joined = new Set(memberships.map((m) => `${m.organizationUid} ${m.personUid}`));
  const shown = (b: BindingRecord) =>
    !isRoot(b.identityUid) || b.identityUid === viewer || joined.has(`${rootOf(b.groupUid)} ${b.identityUid}`);
  return bindings.map((b) =>
    bindingMessage(b, {
      identity: shown(b) ? identityOf.get(b.identityUid) : undefined,
      group: groupOf.get(b.groupUid),
      role: roleOf.get(b.roleUid),
    }),
  );
}
