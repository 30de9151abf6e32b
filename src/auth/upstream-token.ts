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

/** A token that passed the checks below, with its (still unverified) header and claims. */
export interface DecodedUpstream {
  header: ProtectedHeaderParameters;
  claims: JWTPayload & { iss: string; sub: string; exp: number };
  /** The aud claim as a list (empty when absent). */
  audience: string[];
}

/**
 * Decodes token and checks what needs no key: size, form, algorithm, iss, sub, and exp, nbf and
 * iat against now with leeway. UNAUTHENTICATED with an UPSTREAM_* reason otherwise.
 */
export function decodeUpstream(token: string, clock: Clock, leewaySeconds: number): DecodedUpstream {
  if (token.length > MAX_UPSTREAM_TOKEN_LENGTH) throw unauthenticated("UPSTREAM_TOO_LARGE");
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token)) throw unauthenticated("UPSTREAM_MALFORMED");
  let header: ProtectedHeaderParameters;
  let claims: JWTPayload;
  try {
    header = decodeProtectedHeader(token);
    claims = decodeJwt(token);
  } catch {
    throw unauthenticated("UPSTREAM_MALFORMED");
  }
  if (typeof header.alg !== "string" || !UPSTREAM_ALGORITHMS.includes(header.alg)) throw unauthenticated("UPSTREAM_ALGORITHM");
  if (typeof claims.iss !== "string" || claims.iss === "") throw unauthenticated("UPSTREAM_NO_ISSUER");
  if (typeof claims.sub !== "string" || claims.sub === "") throw unauthenticated("UPSTREAM_NO_SUBJECT");
  const audience = audienceOf(claims.aud);
  const now = clock.now() / 1000;
  for (const claim of ["exp", "nbf", "iat"] as const) {
    if (claims[claim] !== undefined && !Number.isFinite(claims[claim])) throw unauthenticated("UPSTREAM_MALFORMED");
  }
  if (claims.exp === undefined) throw unauthenticated("UPSTREAM_NO_EXPIRY");
  if (claims.exp + leewaySeconds <= now) throw unauthenticated("UPSTREAM_EXPIRED");
  if (claims.nbf !== undefined && claims.nbf - leewaySeconds > now) throw unauthenticated("UPSTREAM_NOT_YET_VALID");
  if (claims.iat !== undefined && claims.iat - leewaySeconds > now) throw unauthenticated("UPSTREAM_ISSUED_IN_FUTURE");
  return { header, claims: claims as DecodedUpstream["claims"], audience };
}

/** The aud claim as a list; UNAUTHENTICATED (malformed) when it is neither a string nor strings. */
function audienceOf(aud: unknown): string[] {
  if (aud === undefined) return [];
  if (typeof aud === "string") return [aud];
  if (Array.isArray(aud) && aud.every((a) => typeof a === "string")) return aud;
  throw unauthenticated("UPSTREAM_MALFORMED");
}
