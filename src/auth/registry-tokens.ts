/**
 * Registry tokens (DESIGN 1.9): what CNCF Distribution's token authentication accepts. Short-lived
 * ES256 JWTs with iss, sub, aud (the registry's service name), exp, nbf, iat, jti and `access`,
 * signed by the registry signing key and carrying its certificate in `x5c`, which the registry
 * checks against its rootcertbundle.
 */
import { randomUUID } from "node:crypto";
import { SignJWT } from "jose";
import type { Clock } from "../domain/clock.js";
import type { RegistrySigningKey } from "./registry-keys.js";
import type { RegistryAccess } from "./registry-scope.js";

/** How long a registry token lives: a client asks again for every new scope anyway. */
export const REGISTRY_TOKEN_TTL_S = 5 * 60;

/** A registry token and when it was issued. */
export interface RegistryToken {
  token: string;
  /** Seconds it lives. */
  expiresIn: number;
  /** RFC 3339. */
  issuedAt: string;
}

/** What registry tokens are made from. */
export interface RegistryTokensDeps {
  /** The signing key; a function so that it is loaded (or created) on first use. */
  key: () => Promise<RegistrySigningKey>;
  clock: Clock;
  /** The `iss` of registry tokens: the registry's `auth.token.issuer`. */
  issuer: () => string;
}

/** The `iss` of registry tokens for an Arbor whose token issuer is authUrl: distinct from API tokens'. */
export function registryTokenIssuer(authUrl: string): string {
  return `${authUrl}/registry`;
}

export class RegistryTokens {
  readonly #deps: RegistryTokensDeps;

  constructor(deps: RegistryTokensDeps) {
    this.#deps = deps;
  }

  /** Issues a token for subject at the registry named service, carrying access. */
  async issue(subject: string, service: string, access: readonly RegistryAccess[]): Promise<RegistryToken> {
    const { key, certificateDer } = await this.#deps.key();
    const now = Math.floor(this.#deps.clock.now() / 1000);
    const token = await new SignJWT({ access: access.map((a) => ({ ...a })) })
      .setProtectedHeader({ alg: "ES256", typ: "JWT", x5c: [certificateDer] })
      .setIssuer(this.#deps.issuer())
      .setSubject(subject)
      .setAudience(service)
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(now + REGISTRY_TOKEN_TTL_S)
      .setJti(randomUUID())
      .sign(key);
    return { token, expiresIn: REGISTRY_TOKEN_TTL_S, issuedAt: new Date(now * 1000).toISOString() };
  }
}
