/**
 * Token signing keys (ES256), kept in the store so every replica signs with and verifies against
 * the same set. A key signs for one rotation period, then stays published long enough for the
 * tokens it signed to expire.
 */
import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from "jose";
import type { Clock } from "../domain/clock.js";
import type { KeyStore, SigningKeyRecord } from "../store/types.js";

/** How long tokens signed by Arbor live (spec: one hour). */
export const TOKEN_TTL_MS = 60 * 60 * 1000;

/** The key a token is signed with. */
export interface SigningKey {
  kid: string;
  key: CryptoKey;
}

/** Options of a key ring. */
export interface KeyRingOptions {
  /** How long a key signs before the next one takes over. */
  rotationMs: number;
}

const RELOAD_MIN_INTERVAL_MS = 1000;

/** The keys of the installation, loaded from the store and cached. */
export class KeyRing {
  readonly #store: KeyStore;
  readonly #clock: Clock;
  readonly #rotationMs: number;
  #records: SigningKeyRecord[] = [];
  #public = new Map<string, CryptoKey>();
  #signing: { record: SigningKeyRecord; key: SigningKey } | undefined;
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
    if (this.#signing && this.#signing.record.rotateTime > now) return this.#signing.key;
    await this.#reload(true);
    let current = this.#records.find((r) => r.rotateTime > now);
    if (current === undefined) {
      current = await this.#create(now);
      await this.#reload(true);
    }
    const key = { kid: current.kid, key: (await importJWK(JSON.parse(current.privateJwk) as JWK, "ES256")) as CryptoKey };
    this.#signing = { record: current, key };
    return key;
  }

  /** The public key with this kid, reloading from the store when it is not known yet. */
  async publicKey(kid: string): Promise<CryptoKey | undefined> {
    const known = this.#public.get(kid);
    if (known) return known;
    await this.#reload(false);
    return this.#public.get(kid);
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
        const records = await this.#store.live(this.#clock.now());
        const keys = new Map<string, CryptoKey>();
        for (const r of records) {
          keys.set(r.kid, this.#public.get(r.kid) ?? ((await importJWK(JSON.parse(r.publicJwk) as JWK, "ES256")) as CryptoKey));
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
