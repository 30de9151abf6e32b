/**
 * Token signing keys (ES256), kept in the store so every replica signs with and verifies against
 * the same set. A key signs for one rotation period, then stays published long enough for the
 * tokens it signed to expire. An operator may also rotate at once (`arbor admin rotate-signing-key`):
 * every replica signs with the new key within SIGNING_REFRESH_MS, and the old one stays published
 * until the tokens it signed meanwhile have expired.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from "jose";
import type { Clock } from "../domain/clock.js";
import type { KeyStore } from "../store/key-store.js";
import type { SigningKeyRecord } from "../domain/signing-keys.js";

/** How long tokens signed by Arbor live (spec: one hour). */
export const TOKEN_TTL_MS = 60 * 60 * 1000;

/** The key a token is signed with. */
export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

export interface KeyRingOptions {
  /** How long a key signs before the next one takes over. */
  rotationMs: number;
}

const RELOAD_MIN_INTERVAL_MS = 1000;

/** How long a replica signs with the key it knows before asking the store for a newer one. */
export const SIGNING_REFRESH_MS = 60 * 1000;

/** Beyond a token's lifetime, how long a rotated key stays published: callers' and replicas' clock skew. */
export const ROTATION_MARGIN_MS = 5 * 60 * 1000;

/** A key that verifies tokens, until it retires. */
export interface PublicKey {
  key: CryptoKey;
  /** When it leaves the JWKS and stops verifying, in milliseconds since the epoch. */
  retireTime: number;
}

/** What a rotation did. */
export interface Rotation {
  /** The new signing key's kid. */
  kid: string;
  /** When the keys it replaced leave the JWKS and stop verifying. */
  retireTime: number;
}

/** The keys of the installation, loaded from the store and cached. */
export class KeyRing {
  readonly #store: KeyStore;
  readonly #clock: Clock;
  readonly #rotationMs: number;
  #records: SigningKeyRecord[] = [];
  #public = new Map<string, PublicKey>();
  #signing: { record: SigningKeyRecord; key: SigningKey; checkedAt: number } | undefined;
  #loadedAt = -Infinity;
  #loading: Promise<void> | undefined;

  constructor(store: KeyStore, clock: Clock, options: KeyRingOptions) {
    this.#store = store;
    this.#clock = clock;
    this.#rotationMs = options.rotationMs;
  }

  /** The key to sign with now, creating one when none is current. */
  async signingKey(): Promise<SigningKey> {
    const now = this.#clock.now();
    const signing = this.#signing;
    // Checked again now and then: another process may have rotated the key (rotate()).
    if (signing && signing.record.rotateTime > now && now - signing.checkedAt < SIGNING_REFRESH_MS) return signing.key;
    await this.#reload(true);
    let current = this.#records.find((r) => r.rotateTime > now);
    if (current === undefined) {
      current = await this.#create(now);
      await this.#reload(true);
    }
    return this.#sign(current, now);
  }

  /**
   * Makes a new key the signing one at once; every other key stops signing and stays published
   * until every token it signed has expired, also those other replicas sign until they notice,
   * and no longer (an older key kept a day of margin: a leak is a reason to rotate).
   */
  async rotate(): Promise<Rotation> {
    const now = this.#clock.now();
    const record = await this.#create(now);
    const retireTime = now + SIGNING_REFRESH_MS + TOKEN_TTL_MS + ROTATION_MARGIN_MS;
    await this.#store.endSigning(record.kid, now, retireTime);
    await this.#reload(true);
    await this.#sign(record, now);
    return { kid: record.kid, retireTime };
  }

  async #sign(record: SigningKeyRecord, now: number): Promise<SigningKey> {
    const known = this.#signing?.record.kid === record.kid ? this.#signing.key : undefined;
    const key = known ?? { kid: record.kid, key: (await importJWK(JSON.parse(record.privateJwk) as JWK, "ES256")) as CryptoKey };
    this.#signing = { record, key, checkedAt: now };
    return key;
  }

  /**
   * The public key with this kid and when it retires, reloading from the store when it is not
   * known yet; undefined for an unknown or retired key.
   */
  async publicKey(kid: string): Promise<PublicKey | undefined> {
    // A retired key verifies nothing, even before the next reload forgets it.
    const live = (k: PublicKey | undefined) => (k !== undefined && k.retireTime > this.#clock.now() ? k : undefined);
    const known = this.#public.get(kid);
    if (known) return live(known);
    await this.#reload(false);
    return live(this.#public.get(kid));
  }

  /** The JWKS document: every key not yet retired. */
  async jwks(): Promise<{ keys: JWK[] }> {
    await this.#reload(false);
    const now = this.#clock.now();
    return {
      keys: this.#records
        .filter((r) => r.retireTime > now)
        .map((r) => ({ ...(JSON.parse(r.publicJwk) as JWK), kid: r.kid, alg: "ES256", use: "sig" })),
    };
  }

  async #create(now: number): Promise<SigningKeyRecord> {
    const { publicKey, privateKey } = await generateKeyPair("ES256", { extractable: true });
    const publicJwk = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(publicJwk);
    const record: SigningKeyRecord = {
      kid,
      privateJwk: JSON.stringify(await exportJWK(privateKey)),
      publicJwk: JSON.stringify(publicJwk),
      createTime: now,
      rotateTime: now + this.#rotationMs,
      // Tokens signed just before rotation live one more hour; a day of margin covers skew.
      retireTime: now + this.#rotationMs + TOKEN_TTL_MS + 24 * 60 * 60 * 1000,
    };
    await this.#store.insert(record);
    await this.#store.deleteRetired(now);
    return record;
  }

  async #reload(force: boolean): Promise<void> {
    const now = this.#clock.now();
    if (!force && now - this.#loadedAt < RELOAD_MIN_INTERVAL_MS) return;
    this.#loading ??= (async () => {
      try {
        const now = this.#clock.now();
        // A key this ring knew has retired: whichever replica notices first drops it from the store.
        if (this.#records.some((r) => r.retireTime <= now)) await this.#store.deleteRetired(now);
        const records = await this.#store.live(now);
        const keys = new Map<string, PublicKey>();
        for (const r of records) {
          const key = this.#public.get(r.kid)?.key ?? ((await importJWK(JSON.parse(r.publicJwk) as JWK, "ES256")) as CryptoKey);
          keys.set(r.kid, { key, retireTime: r.retireTime });
        }
        this.#records = records;
        this.#public = keys;
        this.#loadedAt = this.#clock.now();
      } finally {
        this.#loading = undefined;
      }
    })();
    await this.#loading;
  }
}
