/**
 * What every way a person logs in ends with, browser or headless: the token endpoint's answer
 * kept in the cache as the session, and the login it replaces ended at the server. Also the
 * check before either begins, so a login that cannot work says why at once.
 */
import type { ClientConfig } from "./client-config.js";
import { getWithToken, postForm, ServerError, type JsonObject } from "./http.js";
import { TokenCache } from "./token-cache.js";
import { AuthError, savePersonTokens, validToken } from "./tokens.js";

/** Keeps the tokens of a person's login; their identity uid. */
export async function keepPersonLogin(config: ClientConfig, tokens: JsonObject): Promise<string> {
  return keepTokens(config, tokens);
}

/**
 * Who a logged-in person is, as they read it: their identity's name and uid (`ada (0123…)`), or
 * the uid alone when the server does not say the name. A person may always read their own
 * identity; the name is only for show, so any failure to read it leaves the uid.
 */
export async function describePerson(config: ClientConfig, uid: string): Promise<string> {
  try {
    const { token } = await validToken(config);
    const own = await getWithToken(`${config.api}/iam/v2beta1/identities/${uid}`, token);
    return typeof own.name === "string" && own.name !== "" ? `${own.name} (${uid})` : uid;
  } catch {
    return uid;
  }
}

async function keepTokens(config: ClientConfig, tokens: JsonObject): Promise<string> {
  const identity = subjectOf(String(tokens.access_token));
  const cache = new TokenCache(config.cacheDir, config.api);
  const previous = await cache.readSession();
  await savePersonTokens(cache, { kind: "person", api: config.api, issuer: config.issuer, identity }, config.api, tokens);
  // The login this one replaces ends at the server too; if that fails, it expires on its own.
  if (previous?.kind === "person")
    await postForm(`${previous.issuer}/oauth/revoke`, { token: previous.refreshToken }).catch(() => undefined);
  return identity;
}

/**
 * Asks the server whether a login for org and invite can begin (a provider, a valid invite, a
 * provider that answers); AuthError with its reason when not. A server from before the check
 * (404) is let through: its login page says the same, only later.
 */
export async function preflight(config: ClientConfig, org: string | undefined, invite: string | undefined): Promise<void> {
  try {
    await postForm(`${config.issuer}/oauth/preflight`, loginForm(org, invite));
  } catch (e) {
    if (e instanceof ServerError && e.status === 404) return;
    throw loginRefused(e);
  }
}

/** A server's refusal of a login as the AuthError the person reads; anything else as it is. */
export function loginRefused(e: unknown): unknown {
  return e instanceof ServerError ? new AuthError(`login failed: ${e.message}`) : e;
}

/** The organization and invite of a login, as the server's forms take them. */
export function loginForm(org: string | undefined, invite: string | undefined): Record<string, string> {
  return { ...(org !== undefined && { org }), ...(invite !== undefined && { invite }) };
}

/** The sub claim of a JWT, read without verifying it (the server just issued it to us over the channel we chose). */
export function subjectOf(token: string): string {
  const payload = token.split(".")[1] ?? "";
  try {
    const sub = (JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { sub?: unknown }).sub;
    if (typeof sub === "string") return sub;
  } catch {
    // reported below
  }
  throw new AuthError("the server answered with a token that names nobody");
}
