/**
 * Getting a valid API token from the cache: the cached one while it has more than a minute left,
 * else a new one from the session (rotating the refresh token of a person's login, or exchanging
 * the workload's upstream token again from its file).
 */
import { readFile } from "node:fs/promises";
import type { ClientConfig } from "./client-config.js";
import { callJson, postForm, ServerError, type JsonObject } from "./http.js";
import { TokenCache, type CachedToken, type Session } from "./token-cache.js";

/** A token is renewed when it expires within this. */
export const RENEW_BEFORE_MS = 60_000;

/** Something the user must do (log in, fix a file): exit code 1 with this message. */
export class AuthError extends Error {
  override readonly name = "AuthError";
}

/**
 * A token for audience that is valid for at least another minute. Without audience, the server's
 * default ({base_url}), cached under the API URL: the server decides what its base URL is.
 */
export async function validToken(config: ClientConfig, requested?: string): Promise<CachedToken> {
  const cache = new TokenCache(config.cacheDir, config.api);
  const audience = requested ?? config.api;
  const fresh = (t: CachedToken | undefined) => t !== undefined && Date.parse(t.expiry) - Date.now() > RENEW_BEFORE_MS;
  const cached = await cache.readToken(audience);
  if (fresh(cached)) return cached as CachedToken;
  return cache.withLock(async () => {
    // Another process may have renewed it while this one waited for the lock.
    const again = await cache.readToken(audience);
    if (fresh(again)) return again as CachedToken;
    const session = await cache.readSession();
    if (session === undefined) throw new AuthError(`not logged in to ${config.api}; run: arbor auth login`);
    const token = session.kind === "person" ? await refresh(cache, session, requested) : await exchange(session, audience);
    await cache.writeToken(audience, token);
    return token;
  });
}

/** Saves what the token endpoint answered a person's login or refresh with. */
export async function savePersonTokens(
  cache: TokenCache,
  session: Omit<Extract<Session, { kind: "person" }>, "refreshToken">,
  audience: string,
  answer: JsonObject,
): Promise<CachedToken> {
  const token = { token: String(answer.access_token), expiry: String(answer.expiry) };
  await cache.writeSession({ ...session, refreshToken: String(answer.refresh_token) });
  await cache.writeToken(audience, token);
  return token;
}

/** Exchanges the workload's upstream token (read from its file now) for an API token. */
export async function exchange(
  session: { issuer: string; identity: string; identityTokenFile: string },
  audience: string,
): Promise<CachedToken> {
  let upstream: string;
  try {
    upstream = (await readFile(session.identityTokenFile, "utf8")).trim();
  } catch (e) {
    throw new AuthError(
      `cannot read the identity token file ${session.identityTokenFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  if (upstream === "") throw new AuthError(`the identity token file ${session.identityTokenFile} is empty`);
  const query = new URLSearchParams({ aud: audience, identity: session.identity });
  const answer = await callJson(`${session.issuer}/sts/exchange?${query}`, {
    headers: { authorization: `Bearer ${upstream}`, accept: "application/json" },
  });
  return { token: String(answer.token), expiry: String(answer.expiry) };
}

async function refresh(
  cache: TokenCache,
  session: Extract<Session, { kind: "person" }>,
  audience: string | undefined,
): Promise<CachedToken> {
  let answer: JsonObject;
  try {
    const form = { grant_type: "refresh_token", refresh_token: session.refreshToken, ...(audience !== undefined && { audience }) };
    answer = await postForm(`${session.issuer}/oauth/token`, form);
  } catch (e) {
    if (e instanceof ServerError && e.code === 16) {
      await cache.clear();
      throw new AuthError(`your login to ${session.api} has ended (${e.message}); run: arbor auth login`);
    }
    throw e;
  }
  const { refreshToken: _old, ...rest } = session;
  return savePersonTokens(cache, rest, audience ?? session.api, answer);
}
