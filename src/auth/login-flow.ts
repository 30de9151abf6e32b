/**
 * People's login (DESIGN 1.7), the browser half. `start` takes the CLI's request (its loopback
 * redirect URI, its PKCE challenge, optional organization and invite), remembers the attempt in
 * the store and sends the browser to the provider with Arbor's own state, nonce and PKCE.
 * `callback` takes the provider's answer on any replica, exchanges the code, verifies the ID
 * token, registers the person and redeems the invite, then sends the browser back to the CLI
 * with a one-time code of Arbor's: tokens never travel in a URL.
 *
 * Once the CLI's redirect URI is known to be a loopback one, every failure goes back to it as an
 * OAuth error (RFC 6749, 4.1.2.1), so the CLI can say what failed; before that, and when the
 * login attempt is unknown, the failure is a page at Arbor.
 */
import type { Clock } from "../domain/clock.js";
import { ApiError, Code, internal, invalidArgument, isApiError, unauthenticated } from "../domain/errors.js";
import { inviteCodeHash } from "../domain/invite-code.js";
import { checkClientState, checkCodeChallenge, checkLoopbackRedirectUri, inviteRefusal, loginAddressKey, pkceChallenge } from "../domain/login-rules.js";
import { rootOf, type IdSource } from "../domain/uid.js";
import type { Store } from "../store/types.js";
import type { UpstreamActor } from "../domain/login.js";
import { chooseProvider, providerOfAttempt, type DefaultLoginProvider } from "./login-provider.js";
import { registerLogin, unknownInvite } from "./login-registration.js";
import { newSecret, secretHash } from "./login-secrets.js";
import type { LoginUpstream } from "./login-upstream.js";
import type { UpstreamVerifier } from "./upstream-verifier.js";

/** How long a person has to log in at the provider. */
export const LOGIN_ATTEMPT_TTL_MS = 10 * 60_000;
/** How long the CLI has to redeem Arbor's code. */
export const LOGIN_CODE_TTL_MS = 2 * 60_000;
/** The most logins in progress at once, server-wide: the store stays bounded whatever anyone sends. */
export const MAX_LIVE_LOGIN_ATTEMPTS = 10_000;
/** Why a login could not be stored, by the limit that refused it: said to the person, who can do something about the first. */
const REFUSALS = {
  address: "too many logins are in progress from your network address; finish or abandon them, or try again in 10 minutes",
  organization: "too many logins are in progress for this organization; try again in a few minutes",
  server: "too many logins are in progress; try again in a few minutes",
} as const;
/** The prefix of Arbor's one-time authorization codes. */
export const LOGIN_CODE_PREFIX = "arbcode_";

/** What a step tells the browser: go somewhere (maybe carrying an error for the CLI), or read a page about an error. */
export type LoginOutcome = { location: string; error?: ApiError } | { page: ApiError };

/** What the flow is built from. */
export interface LoginFlowDeps {
  store: Store;
  clock: Clock;
  ids: IdSource;
  verifier: Pick<UpstreamVerifier, "verify">;
  upstream: LoginUpstream;
  /** {auth_url}; the provider sends the browser back to its /oauth/callback. */
  issuer: () => string;
  /** The server's default login provider, if configured. */
  defaultProvider: DefaultLoginProvider | undefined;
  /** The most logins in progress from one address, and for one organization (its provider; the default one counts as one). */
  limits: { perAddress: number; perOrganization: number };
}

/** The browser half of the login. */
export class LoginFlow {
  readonly #deps: LoginFlowDeps;

  constructor(deps: LoginFlowDeps) {
    this.#deps = deps;
  }

  /** `GET {auth_url}/oauth/login` from the client at address (the TCP peer's). */
  async start(query: URLSearchParams, address: string | undefined): Promise<LoginOutcome> {
    const { store, clock, ids, upstream } = this.#deps;
    const redirectUri = query.get("redirect_uri") ?? "";
    const clientState = query.get("state") ?? "";
    try {
      checkLoopbackRedirectUri(redirectUri);
    } catch (e) {
      return { page: asApiError(e) };
    }
    try {
      checkClientState(clientState);
      checkCodeChallenge(query.get("code_challenge") ?? "", query.get("code_challenge_method") ?? "");
      const inviteCode = query.get("invite") || undefined;
      const invite = inviteCode === undefined ? undefined : await store.groupInvites.findByCodeHash(inviteCodeHash(inviteCode));
      if (inviteCode !== undefined) {
        // Checked now so that nobody logs in for nothing; checked again, atomically, at the callback.
        if (invite === undefined) throw unknownInvite();
        const refusal = inviteRefusal(invite, clock.now());
        if (refusal !== undefined) throw refusal;
      }
      const provider = await chooseProvider(store, this.#deps.defaultProvider, query.get("org") || undefined, invite);
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
          redirectUri,
          codeChallenge: query.get("code_challenge") ?? "",
          clientState,
          inviteCodeHash: inviteCode === undefined ? null : inviteCodeHash(inviteCode),
          createTime: now,
          expireTime: now + LOGIN_ATTEMPT_TTL_MS,
          addressHash: secretHash(loginAddressKey(address)),
          organizationUid: provider.defaultGrant === undefined ? "" : rootOf(provider.defaultGrant.groupUid),
        },
        { live: MAX_LIVE_LOGIN_ATTEMPTS, ...this.#deps.limits },
      );
      if (admission !== "stored") {
        // Only once the attempt is stored does the browser go anywhere: a refused login redirects to no provider.
        throw new ApiError(Code.RESOURCE_EXHAUSTED, `Resource exhausted: ${REFUSALS[admission]}`, { retryDelayMs: admission === "address" ? LOGIN_ATTEMPT_TTL_MS : 60_000 });
      }
      const location = upstream.authorizationUrl(endpoints, {
        clientId: provider.clientId,
        redirectUri: this.#callbackUrl(),
        scopes: provider.scopes,
        state,
        nonce,
        codeChallenge: pkceChallenge(codeVerifier),
      });
      return { location };
    } catch (e) {
      return toClient(redirectUri, clientState, e);
    }
  }

  /** `GET {auth_url}/oauth/callback`: the provider's answer. */
  async callback(query: URLSearchParams): Promise<LoginOutcome> {
    const { store, clock, ids, upstream, verifier } = this.#deps;
    const state = query.get("state") ?? "";
    const attempt = state === "" ? undefined : await store.logins.takeAttempt(secretHash(state), clock.now());
    if (attempt === undefined) {
      return { page: unauthenticated("LOGIN_UNKNOWN") };
    }
    try {
      const refused = query.get("error");
      if (refused !== null) throw unauthenticated("LOGIN_DENIED", { error: printable(refused), description: printable(query.get("error_description") ?? "") });
      const code = query.get("code") ?? "";
      if (code === "") throw invalidArgument("code", "the identity provider sent no code");
      const provider = await providerOfAttempt(store, this.#deps.defaultProvider, attempt);
      const endpoints = await upstream.endpoints(provider.issuer);
      const idToken = await upstream.exchangeCode(endpoints, {
        code,
        redirectUri: this.#callbackUrl(),
        clientId: provider.clientId,
        clientSecret: provider.clientSecret,
        codeVerifier: attempt.codeVerifier,
      });
      const verified = await verifier.verify(idToken, { issuer: provider.issuer, audience: provider.clientId, nonce: attempt.nonce });
      const person = { issuer: verified.issuer, subject: verified.subject, claims: verified.claims };
      const { identityUid } = await registerLogin({ store, clock, ids }, person, provider, attempt.inviteCodeHash);
      const loginCode = newSecret(ids, LOGIN_CODE_PREFIX);
      const actor: UpstreamActor = { iss: verified.issuer, sub: verified.subject, aud: verified.audience.length === 1 ? verified.audience[0] : verified.audience };
      const now = clock.now();
      await store.logins.insertCode({
        codeHash: secretHash(loginCode),
        identityUid,
        actor,
        redirectUri: attempt.redirectUri,
        codeChallenge: attempt.codeChallenge,
        createTime: now,
        expireTime: now + LOGIN_CODE_TTL_MS,
      });
      return { location: withQuery(attempt.redirectUri, { code: loginCode, state: attempt.clientState }) };
    } catch (e) {
      return toClient(attempt.redirectUri, attempt.clientState, e);
    }
  }

  #callbackUrl(): string {
    return `${this.#deps.issuer()}/oauth/callback`;
  }
}

/** The failure sent back to the CLI as an OAuth error with Arbor's message. */
function toClient(redirectUri: string, clientState: string, e: unknown): LoginOutcome {
  const error = asApiError(e);
  const kind = error.code === Code.UNAVAILABLE || error.code === Code.RESOURCE_EXHAUSTED ? "temporarily_unavailable" : error.code === Code.INTERNAL ? "server_error" : "access_denied";
  return { location: withQuery(redirectUri, { error: kind, error_description: error.message, state: clientState }), error };
}

function asApiError(e: unknown): ApiError {
  return isApiError(e) ? e : internal(e);
}

/** uri with params added to its query (empty values left out). */
function withQuery(uri: string, params: Record<string, string>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== "") url.searchParams.set(k, v);
  return url.href;
}

/** Text from a provider, cut short and stripped of anything but printable ASCII. */
function printable(text: string): string {
  return text.slice(0, 200).replace(/[^\x20-\x7e]/g, "?");
}
