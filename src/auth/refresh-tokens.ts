/**
 * Refresh tokens of people's logins: opaque secrets, stored as their SHA-256 only, one family per
 * login. Each use rotates the token (the old one stops working); presenting a used token again
 * means someone kept a copy, so the whole family is revoked and both holders must log in again
 * (OAuth 2.0 Security BCP, 4.14.2). Logout revokes the family too.
 */
import type { Clock } from "../domain/clock.js";
import { unauthenticated } from "../domain/errors.js";
import type { IdSource } from "../domain/uid.js";
import type { RefreshFamilyRecord } from "../domain/refresh-tokens.js";
import type { RefreshTokenStore } from "../store/refresh-token-store.js";
import type { UpstreamActor } from "../domain/login.js";
import { newSecret, secretHash } from "./login-secrets.js";

/** Every refresh token starts with this, so people and secret scanners recognise one. */
export const REFRESH_TOKEN_PREFIX = "arbrt_";
/** How long a login lasts, however often its token rotates: 30 days. */
export const REFRESH_FAMILY_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** A rotation: the family the token belonged to, and its successor. */
export interface Rotated {
  family: RefreshFamilyRecord;
  token: string;
}

/** Issues, rotates and revokes refresh tokens. */
export class RefreshTokens {
  readonly #store: RefreshTokenStore;
  readonly #clock: Clock;
  readonly #ids: IdSource;

  constructor(store: RefreshTokenStore, clock: Clock, ids: IdSource) {
    this.#store = store;
    this.#clock = clock;
    this.#ids = ids;
  }

  /** Starts a family for a new login; returns its first token. */
  async start(identityUid: string, actor: UpstreamActor): Promise<string> {
    const now = this.#clock.now();
    const token = this.#newToken();
    await this.#store.insertFamily(
      { uid: this.#ids.hex(16), identityUid, actor, createTime: now, expireTime: now + REFRESH_FAMILY_TTL_MS },
      refreshTokenHash(token),
    );
    return token;
  }

  /** Exchanges token for its successor; UNAUTHENTICATED when it is unknown, expired or replayed (the family then is revoked). */
  async rotate(token: string): Promise<Rotated> {
    const next = this.#newToken();
    const result = await this.#store.rotate(refreshTokenHash(token), refreshTokenHash(next), this.#clock.now());
    switch (result.outcome) {
      case "rotated":
        return { family: result.family, token: next };
      case "reused":
        await this.#store.deleteFamily(result.familyUid);
        throw unauthenticated("REFRESH_TOKEN_REUSED");
      case "expired":
        throw unauthenticated("LOGIN_EXPIRED");
      case "unknown":
        throw unauthenticated("REFRESH_TOKEN_INVALID");
    }
  }

  /** Revokes the family token belongs to; nothing when it is unknown (RFC 7009, 2.2). */
  async revoke(token: string): Promise<void> {
    const family = await this.#store.familyOf(refreshTokenHash(token));
    if (family !== undefined) await this.#store.deleteFamily(family.uid);
  }

  #newToken(): string {
    return newSecret(this.#ids, REFRESH_TOKEN_PREFIX);
  }
}

/** The SHA-256 (hex) of a refresh token, as the store keeps it. */
const refreshTokenHash = secretHash;
