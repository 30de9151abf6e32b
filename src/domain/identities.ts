/**
 * Uids of identities that are derived rather than drawn (DESIGN 1.2): people are root-level uids
 * computed from issuer and subject, so a binding can be made before their first login.
 */
import { createHash } from "node:crypto";

/** The root-level uid of the person an upstream issuer knows as subject. */
export function userIdentityUid(issuer: string, subject: string): string {
  return createHash("sha1").update(`arbor/user\0${issuer}\0${subject}`).digest("hex");
}

/**
 * The uid of an organization's local administrator: the principal of `arbor admin token`. No
 * upstream token can ever map to it (its issuer is not a URL).
 */
export function adminIdentityUid(organizationUid: string): string {
  return userIdentityUid("arbor:admin", organizationUid);
}

/** How upstream tokens are recognised as an identity. */
export type Relationship =
  | {
      kind: "claimMatch";
      issuer?: string;
      issuerPattern?: string;
      subject?: string;
      subjectPattern?: string;
      audience?: string;
      audiencePattern?: string;
      claims: Record<string, string>;
      claimPatterns: Record<string, string>;
    }
  | {
      kind: "staticKeys";
      issuer: string;
      subject: string;
      /** The issuer's JWKS, as JSON. */
      issuerKeys: string;
      /** Milliseconds since the epoch. */
      expirationTime: number;
    }
  /** A person who logged in (root-level), or an organization's local administrator. */
  | { kind: "user"; issuer: string; subject: string };

/** An identity as the store keeps it. Times are milliseconds since the epoch. */
export interface IdentityRecord {
  uid: string;
  /** The group's uid; null for a root-level identity (a person). */
  parentUid: string | null;
  name: string;
  description: string;
  relationship: Relationship;
  lastSeenTime: number | null;
  createTime: number;
  updateTime: number;
}

/** The exact issuer and subject of a relationship, where it has them (for hydration and lookups). */
export function exactIssuerSubject(r: Relationship): { issuer: string | null; subject: string | null } {
  return { issuer: r.issuer ?? null, subject: r.subject ?? null };
}
