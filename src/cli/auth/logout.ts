/**
 * `arbor auth logout`: revokes the login at the server (its refresh tokens stop working; API
 * tokens already issued live out their hour) and deletes this API's cache.
 */
import type { ClientConfig } from "./client-config.js";
import { postForm } from "./http.js";
import { TokenCache } from "./token-cache.js";
import { AuthError } from "./tokens.js";

/** Logs out of config.api; false when there was no login to end. */
export async function logout(config: ClientConfig): Promise<boolean> {
  const cache = new TokenCache(config.cacheDir, config.api);
  const session = await cache.readSession();
  let failure: Error | undefined;
  if (session?.kind === "person") {
    try {
      await postForm(`${session.issuer}/oauth/revoke`, { token: session.refreshToken });
    } catch (e) {
      failure = e as Error;
    }
  }
  await cache.clear();
  if (failure !== undefined)
    throw new AuthError(`the local tokens are deleted, but the server could not revoke the login: ${failure.message}`);
  return session !== undefined;
}
