/**
 * The configured rate limits, as one object the call pipeline and the HTTP endpoints spend from:
 * per client address, per identity, and per address on the endpoints that take credentials (all
 * off by default: the spec enforces no rate limits during the beta), and the throttle of refused
 * credentials (on by default), which successful calls never spend from.
 * Each refusal is RESOURCE_EXHAUSTED with a RetryInfo (and, over HTTP, Retry-After).
 */
import { createHash } from "node:crypto";
import type { Config } from "../../config.js";
import type { Clock } from "../../domain/clock.js";
import { ApiError, Code } from "../../domain/errors.js";
import { loginAddressKey } from "../../domain/login-rules.js";
import { createRateLimiter, type Rate, type RateLimiter } from "../../domain/rate-limit.js";

/** Spends one request from a limit; throws RESOURCE_EXHAUSTED when it is used up. */
export interface RequestLimits {
  /** Any request from this client address. */
  address(address: string | undefined): void;
  /** An API call of this identity. */
  identity(uid: string): void;
  /** A request to an endpoint that takes credentials (token exchange, login token, registry token). */
  credentials(address: string | undefined): void;
  /**
   * Before credentials are checked: throws RESOURCE_EXHAUSTED while the address, or the identity
   * the attempt names (undefined: none), has used up its budget of refused credentials. Spends nothing.
   */
  authAllowed(address: string | undefined, identity: string | undefined): void;
  /** After credentials were refused: spends one from the address's and the identity's budgets. */
  authFailed(address: string | undefined, identity: string | undefined): void;
}

/** The limits of config, counted on clock. */
export function createRequestLimits(
  config: Pick<
    Config,
    "rateLimitPerAddress" | "rateLimitPerIdentity" | "exchangeRateLimit" | "authFailuresPerAddress" | "authFailuresPerIdentity"
  >,
  clock: Clock,
): RequestLimits {
  const perAddress = limiter(config.rateLimitPerAddress, clock);
  const perIdentity = limiter(config.rateLimitPerIdentity, clock);
  const credentials = limiter(config.exchangeRateLimit, clock);
  const failuresPerAddress = limiter(config.authFailuresPerAddress, clock);
  const failuresPerIdentity = limiter(config.authFailuresPerIdentity, clock);
  return {
    address: (address) => spend(perAddress, address ?? "unknown", "this address"),
    identity: (uid) => spend(perIdentity, uid, "this identity"),
    credentials: (address) => spend(credentials, address ?? "unknown", "this address to the token endpoints"),
    authAllowed(address, identity) {
      const byAddress = failuresPerAddress?.wait(loginAddressKey(address)) ?? 0;
      if (byAddress > 0) throw rateLimited("failed authentication attempts from this address", byAddress);
      const byIdentity = identity === undefined ? 0 : (failuresPerIdentity?.wait(identityKey(identity)) ?? 0);
      if (byIdentity > 0) throw rateLimited("failed authentication attempts for this identity", byIdentity);
    },
    authFailed(address, identity) {
      failuresPerAddress?.take(loginAddressKey(address));
      if (identity !== undefined) failuresPerIdentity?.take(identityKey(identity));
    },
  };
}

/**
 * A fixed-size key for whatever names an attempted identity (a caller chooses it, and may make it
 * long): with at most MAX_TRACKED_KEYS keys, the throttle's memory stays bounded.
 */
function identityKey(identity: string): string {
  return createHash("sha256").update(identity).digest("base64url");
}

function limiter(rate: Rate | undefined, clock: Clock): RateLimiter | undefined {
  return rate === undefined ? undefined : createRateLimiter(rate, clock);
}

function spend(limit: RateLimiter | undefined, key: string, whose: string): void {
  const waitMs = limit?.take(key) ?? 0;
  if (waitMs > 0) throw rateLimited(`requests from ${whose}`, waitMs);
}

/** RESOURCE_EXHAUSTED: too many of what (`requests from this address`); try again after waitMs. */
export function rateLimited(what: string, waitMs: number): ApiError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  return new ApiError(Code.RESOURCE_EXHAUSTED, `Resource exhausted: too many ${what}; retry in ${seconds}s`, {
    retryDelayMs: seconds * 1000,
  });
}
