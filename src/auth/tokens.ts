/**
 * Arbor's API tokens (DESIGN 1.7): ES256 JWTs with iss, sub, aud, iat, exp, jti and act. They
 * carry no permissions; those are read from role bindings on every request.
 */
import { randomUUID } from "node:crypto";
import { errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from "jose";
import type { Clock } from "../domain/clock.js";
import { isApiError, unauthenticated, UnauthenticatedError } from "../domain/errors.js";
import { TOKEN_TTL_MS, type KeyRing } from "./key-ring.js";

/** Who an upstream token named, recorded in the `act` claim. */
export interface Actor {
  iss: string;
  sub: string;
  aud?: string | string[];
}

/** The verified claims of an Arbor token. */
export interface TokenClaims {
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  exp: number;
  jti: string;
  act?: Actor;
}

/** A freshly issued token. */
export interface IssuedToken {
  token: string;
  /** When it expires, in milliseconds since the epoch. */
  expiry: number;
}

/** Leeway for exp, nbf and iat, in seconds: clocks of callers drift. */
export const CLOCK_TOLERANCE_S = 30;

/** How many verified tokens are remembered. */
const VERIFIED_CACHE_SIZE = 10_000;

/** Issues and verifies Arbor tokens for one issuer. */
export class Tokens {
  readonly #keys: KeyRing;
  readonly #clock: Clock;
  readonly #issuer: () => string;
  /**
   * Tokens already verified, oldest first, with when a fresh verification would refuse them: at
   * their expiry, or sooner when their signing key retires. Only exactly the same string is a hit.
   */
  readonly #verified = new Map<string, { claims: TokenClaims; until: number }>();

  /** `issuer` gives {auth_url}; a function because a server on port 0 learns it on listening. */
  constructor(keys: KeyRing, clock: Clock, issuer: () => string) {
    this.#keys = keys;
    this.#clock = clock;
    this.#issuer = issuer;
  }

  /** The issuer URL ({auth_url}). */
  get issuer(): string {
    return this.#issuer();
  }

  /** Issues a one-hour token for subject, for audience. */
  async issue(subject: string, audience: string, act?: Actor): Promise<IssuedToken> {
    const { kid, key } = await this.#keys.signingKey();
    const iat = Math.floor(this.#clock.now() / 1000);
    const exp = iat + TOKEN_TTL_MS / 1000;
    const claims: JWTPayload = act ? { act: { ...act } } : {};
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
      .setIssuer(this.#issuer())
      .setSubject(subject)
      .setAudience(audience)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .setJti(randomUUID())
      .sign(key);
    return { token, expiry: exp * 1000 };
  }

  /**
   * Verifies a token for audience; UNAUTHENTICATED with the failed check otherwise. A token that
   * verified before is taken from a bounded cache until it expires: the signature check was the
   * largest cost of an authenticated request, and a client sends the same token many times.
   */
  async verify(token: string, audience: string): Promise<TokenClaims> {
    const cached = this.#verified.get(token);
    if (cached !== undefined) {
      const { claims } = cached;
      if (claims.aud === audience && claims.iss === this.#issuer() && this.#clock.now() < cached.until) return claims;
      this.#verified.delete(token);
    }
    const { claims, keyRetireTime } = await this.#verifySigned(token, audience);
    if (this.#verified.size >= VERIFIED_CACHE_SIZE) this.#verified.delete(this.#verified.keys().next().value as string);
    this.#verified.set(token, { claims, until: Math.min((claims.exp + CLOCK_TOLERANCE_S) * 1000, keyRetireTime) });
    return claims;
  }

  async #verifySigned(token: string, audience: string): Promise<{ claims: TokenClaims; keyRetireTime: number }> {
    let keyRetireTime = -Infinity;
    const issuer = this.#issuer();
    try {
      const { payload } = await jwtVerify(
        token,
        async (header) => {
          const found = header.kid ? await this.#keys.publicKey(header.kid) : undefined;
          if (!found) throw unauthenticated("TOKEN_UNKNOWN_KEY");
          keyRetireTime = found.retireTime;
          return found.key;
        },
        {
          issuer,
          audience,
          algorithms: ["ES256"],
          clockTolerance: CLOCK_TOLERANCE_S,
          currentDate: new Date(this.#clock.now()),
          requiredClaims: ["sub", "exp", "iat"],
        },
      );
      return { claims: this.#refuseForged(payload as unknown as TokenClaims), keyRetireTime };
    } catch (e) {
      // A store that cannot be read is its own failure (UNAVAILABLE, to retry), not a refused token.
      if (isApiError(e) && !(e instanceof UnauthenticatedError)) throw e;
      throw refusalOf(e, issuer);
    }
  }

  /**
   * This server issues tokens now, for TOKEN_TTL_MS: a signed token claiming to be issued later
   * than now, or to live longer, was not made by issue() (a leaked signing key, or a clock gone
   * wrong), and would outlive what revocation by expiry promises.
   */
  #refuseForged(claims: TokenClaims): TokenClaims {
    const now = this.#clock.now() / 1000;
    if (claims.iat > now + CLOCK_TOLERANCE_S) throw unauthenticated("TOKEN_ISSUED_IN_FUTURE");
    if (claims.exp - claims.iat > TOKEN_TTL_MS / 1000 + CLOCK_TOLERANCE_S) throw unauthenticated("TOKEN_LIFETIME");
    return claims;
  }
}

/**
 * A claim of a token shown back to whoever sent it. Only tokens signed by this server's keys get
 * this far (the signature is checked first), but the text still goes to logs and headers:
 * quoted, printable, bounded.
 */
function printable(claim: unknown): string {
  if (typeof claim !== "string") return "missing";
  return JSON.stringify(claim.replace(/[^\x20-\x7e]/g, "?").slice(0, 200));
}

/** The refusal for e, raised while verifying a token: refusals raised on the way pass as they are. */
function refusalOf(e: unknown, issuer: string): UnauthenticatedError {
  if (e instanceof UnauthenticatedError) return e;
  if (e instanceof joseErrors.JWTExpired) return unauthenticated("TOKEN_EXPIRED");
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === "aud") return unauthenticated("TOKEN_AUDIENCE");
    if (e.claim === "iss") return unauthenticated("TOKEN_ISSUER", { claimed: printable(e.payload.iss), expected: issuer });
    return unauthenticated("TOKEN_CLAIM", { claim: e.claim });
  }
  if (e instanceof joseErrors.JWSSignatureVerificationFailed) return unauthenticated("TOKEN_SIGNATURE");
  if (e instanceof joseErrors.JOSEAlgNotAllowed) return unauthenticated("TOKEN_ALGORITHM");
  return unauthenticated("TOKEN_MALFORMED");
}
