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
