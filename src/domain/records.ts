/**
 * The records of the IAM resources other than groups and identities, as the store keeps them.
 * Times are milliseconds since the epoch.
 */

/** A role: built-in (no parent, capabilities from code) or custom (in a group). */
export interface RoleRecord {
  uid: string;
  /** The group's uid; null for a built-in role. */
  parentUid: string | null;
  name: string;
  description: string;
  /** Dotted capability names; empty for built-in roles, whose capabilities are code. */
  capabilities: string[];
  createTime: number;
  updateTime: number;
}

/** An identity provider's OIDC settings. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  /** Never returned by the API. */
  clientSecret: string;
  additionalScopes: string[];
  groupsClaim: string;
}

export interface IdentityProviderRecord {
  uid: string;
  parentUid: string;
  name: string;
  description: string;
  /** The role granted to people on their first login. */
  defaultRole: string;
  oidc: OidcSettings;
  createTime: number;
  updateTime: number;
}

/** A group's account association; its uid is the group's. */
export interface AccountAssociationRecord {
  uid: string;
  name: string;
  description: string;
  amazon?: { account: string };
  google?: { projectId: string; projectNumber: string };
  azure?: { tenantId: string; clientIds: Record<string, string> };
  /** installationId is an int64, kept as a decimal string. */
  github?: { installations: { installationId: string; name: string }[] };
  createTime: number;
  updateTime: number;
}

/** A group invite; its code is never stored, only its SHA-256. */
export interface GroupInviteRecord {
  uid: string;
  parentUid: string;
  roleUid: string;
  email: string;
  singleUse: boolean;
  codeHash: string;
  keyId: string;
  expirationTime: number;
  createTime: number;
  /** When a single-use invite was redeemed; null while it has not been. */
  redeemTime: number | null;
}
