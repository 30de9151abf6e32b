/**
 * Where the resource commands get their API token: `ARBOR_TOKEN` when it is set (scripts and CI,
 * `export ARBOR_TOKEN=$(arbor admin token --org acme)`), else the cached login of `arbor auth`.
 */
import type { ClientConfig } from "../auth/client-config.js";
import { validToken } from "../auth/tokens.js";

/** Gives a token valid for the next call; asked once per call, so a long walk renews in time. */
export type TokenSource = () => Promise<string>;

/** The token source for config: ARBOR_TOKEN, else the login cached for config.api. */
export function tokenSource(config: ClientConfig): TokenSource {
  const fixed = config.env.ARBOR_TOKEN?.trim();
  if (fixed !== undefined && fixed !== "") return () => Promise.resolve(fixed);
  return async () => (await validToken(config)).token;
}
