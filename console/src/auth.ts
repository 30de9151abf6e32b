/**
 * Signing in through Arbor's own people's login (docs/api.md, "People's login"), as a public
 * OAuth client: PKCE S256 and a state made here, the browser sent to {auth_url}/oauth/login with
 * the console's callback as redirect URI, the one-time code exchanged at /oauth/token. The tokens
 * live in this module's memory only: never in storage, never in a URL, so a reload asks to sign
 * in again (docs/console.md, "Sign-in"). Only the PKCE verifier, the state and the page to return
 * to wait in sessionStorage while the browser is at the identity provider. Signing out revokes
 * the refresh token at /oauth/revoke.
 */
import { CALLBACK_URL, ISSUER_URL } from "./config.js";

/** The signed-in person's tokens and who they are. */
export interface Session {
  accessToken: string;
  refreshToken: string;
  /** When the access token expires (ms since the epoch). */
  expiry: number;
  /** The identity uid (the access token's `sub`). */
  identity: string;
}

const PENDING = "arbor.console.login";

let session: Session | undefined;
const listeners = new Set<() => void>();

/** The current session, if signed in. */
export function currentSession(): Session | undefined {
  return session;
}

/** Calls listener whenever the session changes. */
export function onSessionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}

function setSession(next: Session | undefined): void {
  session = next;
  listeners.forEach((l) => l());
}

function base64url(bytes: Uint8Array): string {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function randomSecret(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

/** Sends the browser to Arbor's login; it comes back to the console's callback. */
export async function beginLogin(options: { org?: string; invite?: string; returnTo: string }): Promise<void> {
  const verifier = randomSecret();
  const state = randomSecret();
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  sessionStorage.setItem(PENDING, JSON.stringify({ state, verifier, returnTo: options.returnTo }));
  const query = new URLSearchParams({ redirect_uri: CALLBACK_URL, code_challenge: challenge, code_challenge_method: "S256", state });
  if (options.org) query.set("org", options.org);
  if (options.invite) query.set("invite", options.invite);
  location.assign(`${ISSUER_URL}/oauth/login?${query}`);
}

/** An error of the login endpoints, with the message Arbor sent. */
export class LoginError extends Error {}

interface TokenAnswer {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

async function tokenRequest(form: Record<string, string>): Promise<TokenAnswer> {
  const res = await fetch(`${ISSUER_URL}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
    credentials: "omit",
  });
  const body = (await res.json().catch(() => ({}))) as Partial<TokenAnswer> & { message?: string };
  if (!res.ok || typeof body.access_token !== "string")
    throw new LoginError(body.message ?? `the token request failed (HTTP ${res.status})`);
  return body as TokenAnswer;
}

function sessionOf(answer: TokenAnswer): Session {
  const payload = JSON.parse(atob((answer.access_token.split(".")[1] ?? "").replace(/-/g, "+").replace(/_/g, "/"))) as { sub?: string };
  return {
    accessToken: answer.access_token,
    refreshToken: answer.refresh_token,
    expiry: Date.now() + answer.expires_in * 1000,
    identity: payload.sub ?? "",
  };
}

/**
 * Finishes a login at the callback: checks the state against the one this tab stored, redeems
 * the code with the verifier, and answers the route to return to. The code leaves the address bar
 * before anything else happens.
 */
export async function completeLogin(query: URLSearchParams): Promise<string> {
  const stored = sessionStorage.getItem(PENDING);
  sessionStorage.removeItem(PENDING);
  const pending = stored === null ? undefined : (JSON.parse(stored) as { state: string; verifier: string; returnTo: string });
  if (pending === undefined || pending.state !== query.get("state"))
    throw new LoginError("This sign-in was not started in this tab, or was already used: sign in again.");
  const error = query.get("error");
  if (error !== null) throw new LoginError(query.get("error_description") ?? error);
  const code = query.get("code") ?? "";
  const answer = await tokenRequest({
    grant_type: "authorization_code",
    code,
    code_verifier: pending.verifier,
    redirect_uri: CALLBACK_URL,
  });
  setSession(sessionOf(answer));
  return pending.returnTo;
}

let refreshing: Promise<void> | undefined;

/** A current access token: refreshed (the refresh token rotates) when it expires within a minute. */
export async function accessToken(): Promise<string | undefined> {
  const s = session;
  if (s === undefined) return undefined;
  if (s.expiry - Date.now() > 60_000) return s.accessToken;
  refreshing ??= tokenRequest({ grant_type: "refresh_token", refresh_token: s.refreshToken })
    .then((answer) => setSession(sessionOf(answer)))
    .catch(() => setSession(undefined))
    .finally(() => (refreshing = undefined));
  await refreshing;
  return session?.accessToken;
}

/** Signs out: revokes the login at Arbor, then forgets the tokens. */
export async function signOut(): Promise<void> {
  const s = session;
  setSession(undefined);
  if (s === undefined) return;
  await fetch(`${ISSUER_URL}/oauth/revoke`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token: s.refreshToken }),
    credentials: "omit",
  }).catch(() => undefined);
}
