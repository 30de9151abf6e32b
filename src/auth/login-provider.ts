/**
 * Which provider a person logs in through: the organization's identity provider (the oldest one
 * in the organization's root group, when it has several), else the server's default login
 * provider. An invite names its organization, so `invite` alone selects the provider too.
 */
import { failedPrecondition, invalidArgument } from "../domain/errors.js";
import type { GroupRecord } from "../domain/groups.js";
import type { GroupInviteRecord } from "../domain/group-invites.js";
import type { IdentityProviderRecord } from "../domain/identity-providers.js";
import { isRoot, isUid, rootOf } from "../domain/uid.js";
import type { Stores } from "../store/store.js";

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
 * else the default one. An organization that does not exist is treated as one without a
 * provider, so a caller without a token cannot tell the two apart: both fall back to the default
 * provider, or, without one, get the same FAILED_PRECONDITION naming nothing. INVALID_ARGUMENT
 * (`invite`) when an organization is named and the invite is for another (or no such) one.
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
    if (org !== undefined && organization?.uid !== invitedTo)
      throw invalidArgument("invite", "the invite is for another organization than the one named");
    organization ??= await store.groups.get(invitedTo);
  }
  if (organization !== undefined) {
    const window = {
      order: [
        { field: "create_time", desc: false },
        { field: "uid", desc: false },
      ],
      offset: 0,
      limit: 1,
    };
    const [oldest] = await store.identityProviders.list({ uidp: { childrenOf: organization.uid } }, window);
    if (oldest !== undefined) return fromRecord(oldest);
  }
  if (fallback !== undefined) return { uid: null, ...fallback, scopes: BASE_SCOPES };
  if (org !== undefined || invite !== undefined)
    throw failedPrecondition("NO_LOGIN_PROVIDER", "", "login is not available for this organization; ask its administrators");
  throw failedPrecondition(
    "NO_LOGIN_PROVIDER",
    "",
    "this server has no default login provider (ARBOR_LOGIN_ISSUER); name an organization to log in through its identity provider",
  );
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
    throw failedPrecondition(
      "LOGIN_PROVIDER_CHANGED",
      attempt.providerUid ?? "",
      "the identity provider changed during the login; log in again",
    );
  }
  return provider;
}

/**
 * Whether people log in through issuer: it is the default login provider's, or an organization's
 * login provider's (the one chooseProvider picks for it).
 */
export async function isLoginIssuer(
  store: Pick<Stores, "identityProviders">,
  fallback: DefaultLoginProvider | undefined,
  issuer: string,
): Promise<boolean> {
  return fallback?.issuer === issuer || store.identityProviders.isLoginIssuer(issuer);
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

/** The organization named by uid or by name; undefined when there is none. */
async function findOrganization(store: Stores, org: string): Promise<GroupRecord | undefined> {
  return isUid(org) && isRoot(org) ? store.groups.get(org) : store.groups.findOrganization(org);
}
