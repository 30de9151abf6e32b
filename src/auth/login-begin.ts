/**
 * What every people's login does before the browser leaves Arbor, whichever client asked (the
 * CLI's loopback listener, or a headless CLI through the verification page): choose the
 * provider for the organization or invite, and remember an attempt under Arbor's own state,
 * nonce and PKCE, counted against the limits, before sending the browser to the provider.
 */
import type { Clock } from "../domain/clock.js";
import { ApiError, Code } from "../domain/errors.js";
import { inviteCodeHash } from "../domain/invite-code.js";
import { inviteRefusal, loginAddressKey, pkceChallenge } from "../domain/login-rules.js";
import { rootOf, type IdSource } from "../domain/uid.js";
import type { LoginAttemptAdmission, LoginAttemptRecord } from "../domain/login.js";
import type { Store } from "../store/store.js";
import { chooseProvider, type DefaultLoginProvider, type LoginProvider } from "./login-provider.js";
import { unknownInvite } from "./login-registration.js";
import { newSecret, secretHash } from "./login-secrets.js";
import type { LoginUpstream } from "./login-upstream.js";

/** How long a person has to log in at the provider. */
export const LOGIN_ATTEMPT_TTL_MS = 10 * 60_000;
/** The most logins in progress at once, server-wide: the store stays bounded whatever anyone sends. */
export const MAX_LIVE_LOGIN_ATTEMPTS = 10_000;

/**
 * What a step tells the browser: go somewhere (maybe carrying an error for the CLI), read a page
 * about an error, or read that a device is logged in.
 */
export type LoginOutcome = { location: string; error?: ApiError } | { page: ApiError } | { deviceLoggedIn: true };

/** What beginning a login needs. */
export interface LoginBeginDeps {
  store: Store;
  clock: Clock;
  ids: IdSource;
  upstream: LoginUpstream;
  /** {auth_url}; the provider sends the browser back to its /oauth/callback. */
  issuer: () => string;
  /** The server's default login provider, if configured. */
  defaultProvider: DefaultLoginProvider | undefined;
  /** The most logins in progress from one address, and for one organization (its provider; the default one counts as one). */
  limits: { perAddress: number; perOrganization: number };
}

/** A login's provider and invite, checked. */
export interface LoginChoice {
  provider: LoginProvider;
  inviteCodeHash: string | null;
}

/**
 * The provider a login for org and invite goes through, once its discovery document is known
 * to answer: FAILED_PRECONDITION (NO_LOGIN_PROVIDER) when there is none, the invite's refusal
 * when it cannot be redeemed, UNAVAILABLE when the provider does not answer. Checked before
 * anyone is sent anywhere, so a login that cannot work says why at once.
 */
export async function chooseLogin(deps: LoginBeginDeps, org: string | undefined, inviteCode: string | undefined): Promise<LoginChoice> {
  const invite = inviteCode === undefined ? undefined : await deps.store.groupInvites.findByCodeHash(inviteCodeHash(inviteCode));
  if (inviteCode !== undefined) {
    // Checked now so that nobody logs in for nothing; checked again, atomically, at the callback.
    if (invite === undefined) throw unknownInvite();
    const refusal = inviteRefusal(invite, deps.clock.now());
    if (refusal !== undefined) throw refusal;
  }
  const provider = await chooseProvider(deps.store, deps.defaultProvider, org, invite);
  await deps.upstream.endpoints(provider.issuer);
  return { provider, inviteCodeHash: inviteCode === undefined ? null : inviteCodeHash(inviteCode) };
}

/** What the client of a login is owed at its end: where the browser login returns, or the device it logs in. */
export type LoginClient = Pick<LoginAttemptRecord, "redirectUri" | "codeChallenge" | "clientState" | "deviceCodeHash">;

/**
 * Stores an attempt for the provider and client, and answers the provider's authorization URL.
 * RESOURCE_EXHAUSTED (with a retry delay) when a limit refuses it: the browser then goes nowhere.
 */
export async function beginAtProvider(
  deps: LoginBeginDeps,
  choice: LoginChoice,
  client: LoginClient,
  address: string | undefined,
): Promise<string> {
  const { store, clock, ids, upstream } = deps;
  const { provider } = choice;
  const endpoints = await upstream.endpoints(provider.issuer);
  const [state, nonce, codeVerifier] = [newSecret(ids), newSecret(ids), newSecret(ids)];
  const now = clock.now();
  const admission = await store.logins.insertAttempt(
    {
      stateHash: secretHash(state),
      providerUid: provider.uid,
      issuer: provider.issuer,
      clientId: provider.clientId,
      codeVerifier,
      nonce,
      ...client,
      inviteCodeHash: choice.inviteCodeHash,
      createTime: now,
      expireTime: now + LOGIN_ATTEMPT_TTL_MS,
      addressHash: addressHash(address),
      organizationUid: organizationOf(provider),
    },
    { live: MAX_LIVE_LOGIN_ATTEMPTS, ...deps.limits },
  );
  if (admission !== "stored") throw loginsExhausted(admission);
  return upstream.authorizationUrl(endpoints, {
    clientId: provider.clientId,
    redirectUri: `${deps.issuer()}/oauth/callback`,
    scopes: provider.scopes,
    state,
    nonce,
    codeChallenge: pkceChallenge(codeVerifier),
  });
}

/** The organization a provider's logins count against; '' for the default provider. */
export function organizationOf(provider: LoginProvider): string {
  return provider.defaultGrant === undefined ? "" : rootOf(provider.defaultGrant.groupUid);
}

/** The store's key of a client's address. */
export function addressHash(address: string | undefined): string {
  return secretHash(loginAddressKey(address));
}

/** Why a login could not be stored, by the limit that refused it: said to the person, who can do something about the first. */
const REFUSALS = {
  address: "too many logins are in progress from your network address; finish or abandon them, or try again in 10 minutes",
  organization: "too many logins are in progress for this organization; try again in a few minutes",
  server: "too many logins are in progress; try again in a few minutes",
} as const;

/** RESOURCE_EXHAUSTED for a refused login, with when to retry. */
export function loginsExhausted(admission: Exclude<LoginAttemptAdmission, "stored">): ApiError {
  return new ApiError(Code.RESOURCE_EXHAUSTED, `Resource exhausted: ${REFUSALS[admission]}`, {
    retryDelayMs: admission === "address" ? LOGIN_ATTEMPT_TTL_MS : 60_000,
  });
}
