/**
 * The configured rate limits, as one object the call pipeline and the HTTP endpoints spend from:
 * per client address, per identity, and per address on the endpoints that take credentials.
 * Each refusal is RESOURCE_EXHAUSTED with a RetryInfo (and, over HTTP, Retry-After).
 */
import type { Config } from "../config.js";
import type { Clock } from "../domain/clock.js";
import { ApiError, Code } from "../domain/errors.js";
import { createRateLimiter, type Rate, type RateLimiter } from "../domain/rate-limit.js";

/** Spends one request from a limit; throws RESOURCE_EXHAUSTED when it is used up. */
export interface RequestLimits {
  /** Any request from this client address. */
  address(address: string | undefined): void;
  /** An API call of this identity. */
  identity(uid: string): void;
  /** A request to an endpoint that takes credentials (token exchange, login token, registry token). */
  credentials(address: string | undefined): void;
}

/** The limits of config, counted on clock. */
export function createRequestLimits(
  config: Pick<Config, "rateLimitPerAddress" | "rateLimitPerIdentity" | "exchangeRateLimit">,
  clock: Clock,
): RequestLimits {
  const perAddress = limiter(config.rateLimitPerAddress, clock);
  const perIdentity = limiter(config.rateLimitPerIdentity, clock);
  const credentials = limiter(config.exchangeRateLimit, clock);
  return {
    address: (address) => spend(perAddress, address ?? "unknown", "this address"),
    identity: (uid) => spend(perIdentity, uid, "this identity"),
    credentials: (address) => spend(credentials, address ?? "unknown", "this address to the token endpoints"),
  };
}

function limiter(rate: Rate | undefined, clock: Clock): RateLimiter | undefined {
  return rate === undefined ? undefined : createRateLimiter(rate, clock);
}

function spend(limit: RateLimiter | undefined, key: string, whose: string): void {
  const waitMs = limit?.take(key) ?? 0;
  if (waitMs > 0) throw rateLimited(whose, waitMs);
}

/** RESOURCE_EXHAUSTED: too many requests from whose; try again after waitMs. */
export function rateLimited(whose: string, waitMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiError(Code.RESOURCE_EXHAUSTED, `Resource exhausted: too many requests from ${whose}; retry in ${seconds}s`, {
    retryDelayMs: seconds * 1000,
  });
}
