/**
 * People's login (DESIGN 1.7), the browser half. `start` takes the CLI's request (its loopback
 * redirect URI, or the web console's callback on the base URL, its PKCE challenge, optional
 * organization and invite), remembers the attempt in the store and sends the browser to the
 * provider with Arbor's own state, nonce and PKCE.
 * `callback` takes the provider's answer on any replica, exchanges the code, verifies the ID
 * token, registers the person and redeems the invite, then sends the browser back to the CLI
 * with a one-time code of Arbor's: tokens never travel in a URL.
 *
 * Once the CLI's redirect URI is known to be a loopback one, every failure goes back to it as an
 * OAuth error (RFC 6749, 4.1.2.1), so the CLI can say what failed; before that, and when the
 * login attempt is unknown, the failure is a page at Arbor. An attempt begun from the device
 * verification page (device-flow.ts) ends at Arbor instead: the callback settles the device
 * authorization and the browser reads a page.
 */
import { ApiError, Code, internal, invalidArgument, isApiError, unauthenticated } from "../domain/errors.js";
import { checkClientState, checkCodeChallenge, checkLoopbackRedirectUri } from "../domain/login-rules.js";
import type { UpstreamActor } from "../domain/login.js";
import { finishDevice, refuseDevice } from "./device-flow.js";
import { beginAtProvider, chooseLogin, type LoginBeginDeps, type LoginOutcome } from "./login-begin.js";
import { providerOfAttempt } from "./login-provider.js";
import { registerLogin } from "./login-registration.js";
import { newSecret, secretHash } from "./login-secrets.js";
import type { UpstreamVerifier } from "./upstream-verifier.js";

export { LOGIN_ATTEMPT_TTL_MS, MAX_LIVE_LOGIN_ATTEMPTS, type LoginOutcome } from "./login-begin.js";

/** How long the CLI has to redeem Arbor's code. */
export const LOGIN_CODE_TTL_MS = 2 * 60_000;
/** The prefix of Arbor's one-time authorization codes. */
export const LOGIN_CODE_PREFIX = "arbcode_";

/** What the flow is built from. */
export interface LoginFlowDeps extends LoginBeginDeps {
  verifier: Pick<UpstreamVerifier, "verify">;
  /**
   * The web console's own callback URL (`{base_url}/console/callback`): the one redirect URI
   * besides a loopback listener that a login may return to, exactly as given (docs/console.md).
   */
  consoleRedirectUri?: () => string;
}

/** The browser half of the login. */
export class LoginFlow {
  readonly #deps: LoginFlowDeps;

  constructor(deps: LoginFlowDeps) {
    this.#deps = deps;
  }

  /** `GET {auth_url}/oauth/login` from the client at address (the TCP peer's). */
  async start(query: URLSearchParams, address: string | undefined): Promise<LoginOutcome> {
    const redirectUri = query.get("redirect_uri") ?? "";
    const clientState = query.get("state") ?? "";
    try {
      if (redirectUri === "" || redirectUri !== this.#deps.consoleRedirectUri?.()) checkLoopbackRedirectUri(redirectUri);
    } catch (e) {
      return { page: asApiError(e) };
    }
    try {
      checkClientState(clientState);
      const codeChallenge = query.get("code_challenge") ?? "";
      checkCodeChallenge(codeChallenge, query.get("code_challenge_method") ?? "");
      const choice = await chooseLogin(this.#deps, query.get("org") || undefined, query.get("invite") || undefined);
      // Only once the attempt is stored does the browser go anywhere: a refused login redirects to no provider.
      const location = await beginAtProvider(
        this.#deps,
        choice,
        { redirectUri, codeChallenge, clientState, deviceCodeHash: null },
        address,
      );
      return { location };
    } catch (e) {
      return toClient(redirectUri, clientState, e);
    }
  }

  /**
   * `POST {auth_url}/oauth/preflight`: whether a login for org and invite could begin, so a CLI
   * learns at once (not after waiting for a browser) that it cannot. Stores nothing.
   */
  async preflight(params: URLSearchParams): Promise<object> {
    await chooseLogin(this.#deps, params.get("org") || undefined, params.get("invite") || undefined);
    return {};
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
      if (refused !== null)
        throw unauthenticated("LOGIN_DENIED", { error: printable(refused), description: printable(query.get("error_description") ?? "") });
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
      const actor: UpstreamActor = {
        iss: verified.issuer,
        sub: verified.subject,
        aud: verified.audience.length === 1 ? verified.audience[0] : verified.audience,
      };
      if (attempt.deviceCodeHash !== null) return await finishDevice(this.#deps, attempt.deviceCodeHash, identityUid, actor);
      const loginCode = newSecret(ids, LOGIN_CODE_PREFIX);
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
      if (attempt.deviceCodeHash !== null) return refuseDevice(this.#deps, attempt.deviceCodeHash, asApiError(e));
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
  const kind =
    error.code === Code.UNAVAILABLE || error.code === Code.RESOURCE_EXHAUSTED
      ? "temporarily_unavailable"
      : error.code === Code.INTERNAL
        ? "server_error"
        : "access_denied";
  return { location: withQuery(redirectUri, { error: kind, error_description: error.message, state: clientState }), error };
}

/** Any failure as the ApiError to show. */
export function asApiError(e: unknown): ApiError {
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
