/**
 * Which provider a person logs in through: the organization's identity provider (the oldest one
 * in the organization's root group, when it has several), else the server's default login
 * provider. An invite names its organization, so `invite` alone selects the provider too.
 */
import { failedPrecondition, invalidArgument, notFound } from "../domain/errors.js";
import type { GroupRecord } from "../domain/groups.js";
import type { GroupInviteRecord, IdentityProviderRecord } from "../domain/records.js";
import { isRoot, isUid, rootOf } from "../domain/uid.js";
import type { Stores } from "../store/types.js";

/** The server's default login provider (ARBOR_LOGIN_ISSUER and friends). */
export interface DefaultLoginProvider {
  issuer: string;
  clientId: string;
  /** Empty for a public client (PKCE alone). */
  clientSecret: string;
}

/** A provider as a login uses it. */
export interface LoginProvider {
  /** The identity provider's uid; null for the default login provider. */
  uid: string | null;
  issuer: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  /** The role new people get, and where: the provider's default role in its group. None for the default provider. */
  defaultGrant?: { groupUid: string; roleUid: string };
}

/** Scopes every login asks for: the ID token then names the person (and their email, for invites). */
const BASE_SCOPES = ["openid", "email", "profile"];

/**
 * The provider for a login: the organization's (by name or uid, or the invite's organization),
 * else the default one. NOT_FOUND for an unknown organization; INVALID_ARGUMENT (`invite`) when
 * the invite is for another organization than the one named; FAILED_PRECONDITION when there is
 * no provider at all.
 */
export async function chooseProvider(
  store: Stores,
  fallback: DefaultLoginProvider | undefined,
  org: string | undefined,
  invite: GroupInviteRecord | undefined,
): Promise<LoginProvider> {
  let organization = org === undefined ? undefined : await findOrganization(store, org);
  if (invite !== undefined) {
    const invitedTo = rootOf(invite.parentUid);
    if (organization !== undefined && organization.uid !== invitedTo) throw invalidArgument("invite", "the invite is for another organization than the one named");
    organization ??= await store.groups.get(invitedTo);
  }
  if (organization !== undefined) {
    const window = { order: [{ field: "create_time", desc: false }, { field: "uid", desc: false }], offset: 0, limit: 1 };
    const [oldest] = await store.identityProviders.list({ uidp: { childrenOf: organization.uid } }, window);
    if (oldest !== undefined) return fromRecord(oldest);
  }
  if (fallback === undefined) {
    const where = organization === undefined ? "this server" : `organization ${organization.name}`;
    throw failedPrecondition(
      "NO_LOGIN_PROVIDER",
      organization?.uid ?? "",
      `${where} has no identity provider to log in with, and the server has no default login provider (ARBOR_LOGIN_ISSUER)`,
    );
  }
  return { uid: null, ...fallback, scopes: BASE_SCOPES };
}

/**
 * The provider a login began with, as it is now; FAILED_PRECONDITION when it is gone or now
 * names another issuer or client (the login must start over).
 */
export async function providerOfAttempt(
  store: Stores,
  fallback: DefaultLoginProvider | undefined,
  attempt: { providerUid: string | null; issuer: string; clientId: string },
): Promise<LoginProvider> {
  let provider: LoginProvider | undefined;
  if (attempt.providerUid === null) {
    provider = fallback && { uid: null, ...fallback, scopes: BASE_SCOPES };
  } else {
    const record = await store.identityProviders.get(attempt.providerUid);
    provider = record && fromRecord(record);
  }
  if (provider === undefined || provider.issuer !== attempt.issuer || provider.clientId !== attempt.clientId) {
    throw failedPrecondition("LOGIN_PROVIDER_CHANGED", attempt.providerUid ?? "", "the identity provider changed during the login; log in again");
  }
  return provider;
}

/** An organization's identity provider as a login uses it. */
function fromRecord(record: IdentityProviderRecord): LoginProvider {
  return {
    uid: record.uid,
    issuer: record.oidc.issuer,
    clientId: record.oidc.clientId,
    clientSecret: record.oidc.clientSecret,
    scopes: [...new Set([...BASE_SCOPES, ...record.oidc.additionalScopes])],
    defaultGrant: { groupUid: record.parentUid, roleUid: record.defaultRole },
  };
}

/** The organization named by uid or by name; NOT_FOUND otherwise. */
async function findOrganization(store: Stores, org: string): Promise<GroupRecord> {
  const found = isUid(org) && isRoot(org) ? await store.groups.get(org) : await store.groups.findOrganization(org);
  if (found === undefined) throw notFound("organization", org);
  return found;
}
