/**
 * Verification of upstream OIDC tokens (DESIGN 1.7): a token is checked for what needs no key
 * first (upstream-token.ts), then its issuer's discovery document and JWKS are fetched under a
 * strict policy (upstream-fetch.ts) and cached, and the signature and claims are verified with
 * jose against an allow-list of asymmetric algorithms.
 *
 * Caching: a discovery document is kept 10 minutes; a key set until it is 10 minutes old or a
 * token names a key it lacks, and then refetched at most once per 30 seconds per issuer, so
 * tokens with made-up key ids cannot make Arbor hammer an issuer.
 */
import { createLocalJWKSet, errors as joseErrors, jwtVerify, type CryptoKey, type JWTVerifyGetKey, type JWTVerifyOptions } from "jose";
import type { Clock } from "../domain/clock.js";
import { unauthenticated, UnauthenticatedError } from "../domain/errors.js";
import type { UnauthenticatedReason } from "../domain/unauthenticated-reasons.js";
import { FetchFailure, fetchJsonObject, isFetchableUrl, type FetchPolicy } from "./upstream-fetch.js";
import { decodeUpstream, UPSTREAM_ALGORITHMS, type DecodedUpstream } from "./upstream-token.js";

export interface UpstreamVerifierOptions {
  /** Whether http:// issuers on loopback hosts are trusted (tests, local development). */
  allowHttpLoopback: boolean;
  clock: Clock;
  /** Time limit of one fetch, body included; default 5 s. */
  fetchTimeoutMs?: number;
  /** Largest discovery document or JWKS accepted; default 256 KiB. */
  maxResponseBytes?: number;
  /** Leeway for exp, nbf and iat; default 30 s. */
  leewaySeconds?: number;
}

export interface VerifiedUpstream {
  issuer: string;
  subject: string;
  /** The aud claim as a list. */
  audience: string[];
  /** Every claim of the token. */
  claims: Record<string, unknown>;
}

/** What an audience must be: one value the token lists, or a test over the token's list. */
export type AudienceExpectation = string | ((aud: readonly string[]) => boolean);

/** The defaults of the optional options. */
export const UPSTREAM_VERIFIER_DEFAULTS = {
  fetchTimeoutMs: 5_000,
  maxResponseBytes: 256 * 1024,
  leewaySeconds: 30,
} as const;

/** How long a discovery document is kept, and the longest a key set is. */
const DOCUMENT_MAX_AGE_MS = 10 * 60_000;
/** The shortest time between two fetches of one issuer's key set. */
const JWKS_REFETCH_INTERVAL_MS = 30_000;
/** The most issuers whose documents are kept; the oldest entry goes first. */
const MAX_CACHED_ISSUERS = 256;

interface Cached<T> {
  value: T;
  fetchedAt: number;
}

/** Verifies upstream tokens through their issuers' discovery documents and key sets. */
export class UpstreamVerifier {
  readonly #clock: Clock;
  readonly #leeway: number;
  readonly #policy: FetchPolicy;
  readonly #fetch: typeof fetch;
  readonly #discovery = new Map<string, Cached<string>>();
  readonly #jwks = new Map<string, Cached<JWTVerifyGetKey>>();
  readonly #inflight = new Map<string, Promise<unknown>>();

  constructor(options: UpstreamVerifierOptions, fetchImpl: typeof fetch = fetch) {
    this.#clock = options.clock;
    this.#leeway = options.leewaySeconds ?? UPSTREAM_VERIFIER_DEFAULTS.leewaySeconds;
    this.#policy = {
      allowHttpLoopback: options.allowHttpLoopback,
      timeoutMs: options.fetchTimeoutMs ?? UPSTREAM_VERIFIER_DEFAULTS.fetchTimeoutMs,
      maxBytes: options.maxResponseBytes ?? UPSTREAM_VERIFIER_DEFAULTS.maxResponseBytes,
    };
    this.#fetch = fetchImpl;
  }

  /**
   * Verifies a JWT through its issuer's discovery document and JWKS; UNAUTHENTICATED
   * (domain/errors) with the failed check otherwise. `issuer` pins the expected issuer (else the
   * token's iss is used, after the URL policy); `audience` is checked when given.
   */
  async verify(token: string, expect: { issuer?: string; audience?: AudienceExpectation; nonce?: string } = {}): Promise<VerifiedUpstream> {
    const decoded = this.decode(token);
    const issuer = decoded.claims.iss;
    if (expect.issuer !== undefined && issuer !== expect.issuer) throw unauthenticated("UPSTREAM_ISSUER_NOT_ACCEPTED");
    if (!isFetchableUrl(issuer, this.#policy.allowHttpLoopback)) throw unauthenticated("UPSTREAM_ISSUER_NOT_HTTPS");
    const verified = await this.#verifySignature(token, decoded, (refetch) => this.#keysOf(issuer, refetch));
    if (expect.nonce !== undefined && verified.claims.nonce !== expect.nonce) throw unauthenticated("UPSTREAM_NONCE");
    return checkAudience(verified, expect.audience);
  }

  /** Verifies a JWT with a given JWKS (static-key identities). */
  async verifyWithKeys(
    token: string,
    jwks: { keys: object[] },
    expect: { issuer: string; audience?: AudienceExpectation },
  ): Promise<VerifiedUpstream> {
    const decoded = this.decode(token);
    if (decoded.claims.iss !== expect.issuer) throw unauthenticated("UPSTREAM_ISSUER_NOT_ACCEPTED");
    let keys: JWTVerifyGetKey;
    try {
      keys = createLocalJWKSet(jwks as Parameters<typeof createLocalJWKSet>[0]);
    } catch {
      throw unauthenticated("UPSTREAM_NO_KEYS");
    }
    return checkAudience(await this.#verifySignature(token, decoded, () => Promise.resolve(keys)), expect.audience);
  }

  /** The checks that need no key (size, form, algorithm, times); UNAUTHENTICATED otherwise. */
  decode(token: string): DecodedUpstream {
    return decodeUpstream(token, this.#clock, this.#leeway);
  }

  /** Verifies the signature with the key set keysOf gives, asking once more (refetch) for an unknown key. */
  async #verifySignature(
    token: string,
    decoded: DecodedUpstream,
    keysOf: (refetch: boolean) => Promise<JWTVerifyGetKey>,
  ): Promise<VerifiedUpstream> {
    const options: JWTVerifyOptions = {
      algorithms: [...UPSTREAM_ALGORITHMS],
      clockTolerance: this.#leeway,
      currentDate: new Date(this.#clock.now()),
      requiredClaims: ["iss", "sub", "exp"],
    };
    try {
      const { payload } = await verifyAgainst(token, await keysOf(false), options).catch(async (e: unknown) => {
        if (!(e instanceof joseErrors.JWKSNoMatchingKey)) throw e;
        return verifyAgainst(token, await keysOf(true), options);
      });
      return {
        issuer: decoded.claims.iss,
        subject: decoded.claims.sub,
        audience: decoded.audience,
        claims: payload as Record<string, unknown>,
      };
    } catch (e) {
      if (e instanceof UnauthenticatedError) throw e;
      throw unauthenticated(reasonOf(e));
    }
  }

  /** The key set of issuer: cached, or fetched through its discovery document. */
  async #keysOf(issuer: string, refetch: boolean): Promise<JWTVerifyGetKey> {
    const now = this.#clock.now();
    const cached = this.#jwks.get(issuer);
    if (cached !== undefined) {
      const fresh = now - cached.fetchedAt < DOCUMENT_MAX_AGE_MS;
      const mayRefetch = now - cached.fetchedAt >= JWKS_REFETCH_INTERVAL_MS;
      if (fresh && !(refetch && mayRefetch)) return cached.value;
    }
    return this.#once(`jwks ${issuer}`, async () => {
      const jwksUri = await this.#jwksUriOf(issuer);
      const document = await this.#get(jwksUri, "UPSTREAM_NO_KEYS");
      let keys: JWTVerifyGetKey;
      try {
        keys = createLocalJWKSet(document as unknown as Parameters<typeof createLocalJWKSet>[0]);
      } catch {
        throw unauthenticated("UPSTREAM_NO_KEYS");
      }
      remember(this.#jwks, issuer, { value: keys, fetchedAt: this.#clock.now() });
      return keys;
    });
  }

  /** The jwks_uri of issuer's discovery document, whose issuer must be the token's exactly. */
  async #jwksUriOf(issuer: string): Promise<string> {
    const cached = this.#discovery.get(issuer);
    if (cached !== undefined && this.#clock.now() - cached.fetchedAt < DOCUMENT_MAX_AGE_MS) return cached.value;
    // OpenID Connect Discovery 1.0, 4: a trailing slash of the issuer is removed first.
    const document = await this.#get(`${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`, "UPSTREAM_NO_DISCOVERY");
    if (document.issuer !== issuer) throw unauthenticated("UPSTREAM_DISCOVERY_ISSUER");
    const jwksUri = document.jwks_uri;
    if (typeof jwksUri !== "string" || !isFetchableUrl(jwksUri, this.#policy.allowHttpLoopback)) {
      throw unauthenticated("UPSTREAM_NO_DISCOVERY");
    }
    remember(this.#discovery, issuer, { value: jwksUri, fetchedAt: this.#clock.now() });
    return jwksUri;
  }

  async #get(url: string, invalid: "UPSTREAM_NO_DISCOVERY" | "UPSTREAM_NO_KEYS"): Promise<Record<string, unknown>> {
    try {
      return await fetchJsonObject(url, this.#policy, this.#fetch);
    } catch (e) {
      if (e instanceof FetchFailure && e.kind === "invalid") throw unauthenticated(invalid);
      throw unauthenticated("UPSTREAM_ISSUER_UNREACHABLE");
    }
  }

  /** Runs fn once for concurrent callers with the same key. */
  async #once<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const running = this.#inflight.get(key) as Promise<T> | undefined;
    if (running !== undefined) return running;
    const started = fn().finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, started);
    return started;
  }
}

/** jwtVerify with a key set; a token without kid that several keys fit is tried with each. */
async function verifyAgainst(token: string, keys: JWTVerifyGetKey, options: JWTVerifyOptions) {
  try {
    return await jwtVerify(token, keys, options);
  } catch (e) {
    if (!(e instanceof joseErrors.JWKSMultipleMatchingKeys)) throw e;
    let last: unknown = new joseErrors.JWSSignatureVerificationFailed();
    for await (const candidate of e as unknown as AsyncIterable<CryptoKey>) {
      try {
        return await jwtVerify(token, candidate, options);
      } catch (inner) {
        last = inner;
      }
    }
    throw last;
  }
}

function remember<T>(cache: Map<string, Cached<T>>, issuer: string, entry: Cached<T>): void {
  cache.delete(issuer);
  cache.set(issuer, entry);
  if (cache.size > MAX_CACHED_ISSUERS) cache.delete(cache.keys().next().value as string);
}

function checkAudience(verified: VerifiedUpstream, expected: AudienceExpectation | undefined): VerifiedUpstream {
  if (expected === undefined) return verified;
  const ok = typeof expected === "string" ? verified.audience.includes(expected) : expected(verified.audience);
  if (!ok) throw unauthenticated("UPSTREAM_AUDIENCE");
  return verified;
}

/** The reason jose's error e gives for a failed verification. */
function reasonOf(e: unknown): UnauthenticatedReason {
  if (e instanceof joseErrors.JWKSNoMatchingKey) return "UPSTREAM_UNKNOWN_KEY";
  if (e instanceof joseErrors.JWTExpired) return "UPSTREAM_EXPIRED";
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === "nbf") return "UPSTREAM_NOT_YET_VALID";
    if (e.claim === "iat") return "UPSTREAM_ISSUED_IN_FUTURE";
    return "UPSTREAM_MALFORMED";
  }
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return "UPSTREAM_ALGORITHM";
  if (e instanceof joseErrors.JOSENotSupported) return "UPSTREAM_ALGORITHM";
  return "UPSTREAM_SIGNATURE";
}
