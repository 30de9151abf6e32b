/**
 * The checks on an upstream token that need no key: its size, its form, its algorithm, and its
 * times. They run before anything is fetched, so a token that could never pass costs no request
 * to anyone's server, and their answers depend on the token alone (never on Arbor's identities).
 */
import { decodeJwt, decodeProtectedHeader, type JWTPayload, type ProtectedHeaderParameters } from "jose";
import type { Clock } from "../domain/clock.js";
import { unauthenticated } from "../domain/errors.js";

/**
 * The signing algorithms accepted: asymmetric ones only. `none` is no signature, and HS* would
 * let anyone who knows the issuer's public key forge tokens (algorithm confusion).
 */
export const UPSTREAM_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** The largest upstream token accepted, in characters (real ID tokens are 1-4 KiB). */
export const MAX_UPSTREAM_TOKEN_LENGTH = 16 * 1024;

/**
 * Why an upstream token is refused. The texts say which check failed and nothing of Arbor's
 * configuration; callers and tests switch on them.
 */
export const UpstreamReason = {
  tooLarge: "the token is too large",
  malformed: "the token is malformed",
  algorithm: "the token's signing algorithm is not accepted",
  noIssuer: "the token has no issuer",
  noSubject: "the token has no subject",
  noExpiry: "the token has no expiry",
  expired: "the token has expired",
  notYetValid: "the token is not yet valid",
  issuedInFuture: "the token is issued in the future",
  issuerNotAccepted: "the token's issuer is not accepted",
  issuerNotHttps: "the token's issuer is not https",
  issuerUnreachable: "the token's issuer cannot be reached",
  noDiscovery: "the token's issuer publishes no valid discovery document",
  discoveryIssuer: "the token's issuer does not match its discovery document",
  noKeys: "the token's issuer publishes no valid key set",
  unknownKey: "the token's signing key is unknown to its issuer",
  signature: "the token's signature is not valid",
  audience: "the token's audience is not accepted",
  nonce: "the token's nonce does not match",
} as const;

/** One of the reasons above. */
export type UpstreamReason = (typeof UpstreamReason)[keyof typeof UpstreamReason];

/** A token that passed the checks below, with its (still unverified) header and claims. */
export interface DecodedUpstream {
  header: ProtectedHeaderParameters;
  claims: JWTPayload & { iss: string; sub: string; exp: number };
  /** The aud claim as a list (empty when absent). */
  audience: string[];
}

/**
 * Decodes token and checks what needs no key: size, form, algorithm, iss, sub, and exp, nbf and
 * iat against now with leeway. UNAUTHENTICATED with an UpstreamReason otherwise.
 */
export function decodeUpstream(token: string, clock: Clock, leewaySeconds: number): DecodedUpstream {
  if (token.length > MAX_UPSTREAM_TOKEN_LENGTH) throw unauthenticated(UpstreamReason.tooLarge);
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) throw unauthenticated(UpstreamReason.malformed);
  let header: ProtectedHeaderParameters;
  let claims: JWTPayload;
  try {
    header = decodeProtectedHeader(token);
    claims = decodeJwt(token);
  } catch {
    throw unauthenticated(UpstreamReason.malformed);
  }
  if (typeof header.alg !== "string" || !UPSTREAM_ALGORITHMS.includes(header.alg)) throw unauthenticated(UpstreamReason.algorithm);
  if (typeof claims.iss !== "string" || claims.iss === "") throw unauthenticated(UpstreamReason.noIssuer);
  if (typeof claims.sub !== "string" || claims.sub === "") throw unauthenticated(UpstreamReason.noSubject);
  const audience = audienceOf(claims.aud);
  const now = clock.now() / 1000;
  for (const claim of ["exp", "nbf", "iat"] as const) {
    if (claims[claim] !== undefined && !Number.isFinite(claims[claim])) throw unauthenticated(UpstreamReason.malformed);
  }
  if (claims.exp === undefined) throw unauthenticated(UpstreamReason.noExpiry);
  if (claims.exp + leewaySeconds <= now) throw unauthenticated(UpstreamReason.expired);
  if (claims.nbf !== undefined && claims.nbf - leewaySeconds > now) throw unauthenticated(UpstreamReason.notYetValid);
  if (claims.iat !== undefined && claims.iat - leewaySeconds > now) throw unauthenticated(UpstreamReason.issuedInFuture);
  return { header, claims: claims as DecodedUpstream["claims"], audience };
}

/** The aud claim as a list; UNAUTHENTICATED (malformed) when it is neither a string nor strings. */
function audienceOf(aud: unknown): string[] {
  if (aud === undefined) return [];
  if (typeof aud === "string") return [aud];
  if (Array.isArray(aud) && aud.every((a) => typeof a === "string")) return aud;
  throw unauthenticated(UpstreamReason.malformed);
}
