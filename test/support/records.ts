/**
 * Records of the IAM resources for store tests. Parents are read off the uid; times default to
 * a fixed instant so that ties are common and the uid must break them.
 */
import type { IdentityRecord, Relationship } from "../../src/domain/identities.js";
import type { AccountAssociationRecord } from "../../src/domain/account-associations.js";
import type { GroupInviteRecord } from "../../src/domain/group-invites.js";
import type { IdentityProviderRecord } from "../../src/domain/identity-providers.js";
import type { RoleRecord } from "../../src/domain/roles.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { parentOf } from "../../src/domain/uid.js";
import type { BindingRecord } from "../../src/domain/role-bindings.js";

/** The instant records are created at unless told otherwise. */
export const T0 = 1_700_000_000_000;

/** Creation and update times. */
export interface Times {
  createTime?: number;
  updateTime?: number;
}

function times(t: Times): { createTime: number; updateTime: number } {
  const createTime = t.createTime ?? T0;
  return { createTime, updateTime: t.updateTime ?? createTime };
}

/** The built-in owner and viewer roles: rows of every store. */
export const OWNER = builtinRoleUid("owner");
export const VIEWER = builtinRoleUid("viewer");

/** A claim-matching relationship for an identity in a group. */
export function claimMatch(subject: string): Relationship {
  return {
    kind: "claimMatch",
    issuer: "https://issuer.example",
    subject,
    claims: { aud: "arbor" },
    claimPatterns: { email: ".*@example\\.com" },
  };
}

/** An identity; a root-level uid makes a person with a user relationship. */
export function identity(
  uid: string,
  name: string,
  more: Times & { relationship?: Relationship; lastSeenTime?: number | null } = {},
): IdentityRecord {
  const parentUid = parentOf(uid) ?? null;
  return {
    uid,
    parentUid,
    name,
    description: `the ${name} identity`,
    relationship:
      more.relationship ?? (parentUid === null ? { kind: "user", issuer: "https://login.example", subject: name } : claimMatch(name)),
    lastSeenTime: more.lastSeenTime ?? null,
    ...times(more),
  };
}

/** A custom role in the group its uid names. */
export function role(uid: string, name: string, capabilities: string[] = ["groups.list"], more: Times = {}): RoleRecord {
  return { uid, parentUid: parentOf(uid) ?? null, name, description: `the ${name} role`, capabilities, ...times(more) };
}

/** An identity provider in the group its uid names. */
export function provider(uid: string, name: string, defaultRole: string = VIEWER, more: Times = {}): IdentityProviderRecord {
  return {
    uid,
    parentUid: parentOf(uid) ?? "",
    name,
    description: `the ${name} provider`,
    defaultRole,
    oidc: {
      issuer: `https://${name}.example`,
      clientId: `${name}-client`,
      clientSecret: `${name}-secret`,
      additionalScopes: ["email", "profile"],
      groupsClaim: "groups",
    },
    ...times(more),
  };
}

/** A group's account association, with an Amazon account only. */
export function association(groupUid: string, name: string, more: Times = {}): AccountAssociationRecord {
  return { uid: groupUid, name, description: `the ${name} association`, amazon: { account: "123456789012" }, ...times(more) };
}

/** A group invite in the group its uid names. */
export function invite(
  uid: string,
  more: { keyId?: string; createTime?: number; expirationTime?: number; singleUse?: boolean } = {},
): GroupInviteRecord {
  const createTime = more.createTime ?? T0;
  return {
    uid,
    parentUid: parentOf(uid) ?? "",
    roleUid: VIEWER,
    email: "someone@example.com",
    singleUse: more.singleUse ?? true,
    codeHash: `hash-of-${uid}`,
    keyId: more.keyId ?? "key-1",
    expirationTime: more.expirationTime ?? createTime + 86_400_000,
    createTime,
    redeemTime: null,
  };
}

/** A role binding in the group its uid names. */
export function binding(uid: string, identityUid: string, roleUid: string, createTime = T0): BindingRecord {
  return { uid, groupUid: parentOf(uid) ?? "", identityUid, roleUid, createTime };
}
