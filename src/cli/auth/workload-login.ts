/**
 * `arbor auth login --identity UID --identity-token FILE`: a workload exchanges its platform's
 * OIDC token for an API token (`{auth_url}/sts/exchange`). The session keeps the file's path,
 * not its content, so later tokens use whatever the platform has written there since.
 */
import { resolve } from "node:path";
import { isUid } from "../../domain/uid.js";
import { UsageError } from "../usage-error.js";
import type { ClientConfig } from "./client-config.js";
import { TokenCache } from "./token-cache.js";
import { exchange } from "./tokens.js";

/** Exchanges and caches; resolves with the identity. */
export async function workloadLogin(config: ClientConfig, identity: string, tokenFile: string): Promise<string> {
  if (!isUid(identity))
    throw new UsageError(`--identity: "${identity}" is not a valid uid (40 lowercase hex characters, then /16 hex per level)`);
  const session = { kind: "workload" as const, api: config.api, issuer: config.issuer, identity, identityTokenFile: resolve(tokenFile) };
  const token = await exchange(session, config.api);
  const cache = new TokenCache(config.cacheDir, config.api);
  await cache.writeSession(session);
  await cache.writeToken(config.api, token);
  return identity;
}
