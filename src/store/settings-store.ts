/**
 * Server-wide values in the `settings` table. A key or secret is written once and never changed,
 * so replicas that race to create it settle on whichever insert landed first; put() is for the
 * few values that describe the latest start instead. Every value is sealed with the secrets key
 * (src/store/sealing.ts), so no reader has to know which values are secret.
 */
import { internal } from "../domain/errors.js";
import type { SecretBox } from "../domain/secret-box.js";
import type { Executor } from "./tables.js";
import { resealColumn, sealingWith } from "./sealing.js";
import { guard } from "./translate-error.js";

/**
 * Small server-wide values every replica shares: keys and secrets (the page token secret, the
 * registry's signing key and secrets), so every value is sealed at rest.
 */
export interface SettingsStore {
  /**
   * The value of name; when there is none, stores make() and returns it. Replicas racing here
   * all end up with the same value.
   */
  getOrCreate(name: string, make: () => string): Promise<string>;
  /** The value of name, or undefined when there is none. */
  get(name: string): Promise<string | undefined>;
  /** Sets name to value, replacing any value it had (last writer wins). */
  put(name: string, value: string): Promise<void>;
  /** Seals every value not sealed under the current secrets key; as IdentityProviderStore.resealSecrets. */
  resealSecrets(checkOnly?: boolean): Promise<number>;
}

/** The settings store over an executor; secrets seals the values. */
export function createSettingsStore(db: Executor, secrets: SecretBox | undefined): SettingsStore {
  const sealing = sealingWith(secrets, "a setting");
  const read = (name: string) =>
    guard(async () => (await db.selectFrom("settings").select("value").where("name", "=", name).executeTakeFirst())?.value);

  return {
    async getOrCreate(name, make) {
      const existing = await read(name);
      if (existing !== undefined) return sealing.open(existing);
      const value = sealing.seal(make());
      // A racing replica's insert wins silently; the read after it returns the winner's value.
      await guard(() =>
        db
          .insertInto("settings")
          .values({ name, value })
          .onConflict((oc) => oc.column("name").doNothing())
          .execute(),
      );
      const stored = await read(name);
      if (stored === undefined) throw internal(new Error(`setting ${name} is missing right after its insert`));
      return sealing.open(stored);
    },

    async get(name) {
      const stored = await read(name);
      return stored === undefined ? undefined : sealing.open(stored);
    },

    async put(name, value) {
      const sealed = sealing.seal(value);
      await guard(() =>
        db
          .insertInto("settings")
          .values({ name, value: sealed })
          .onConflict((oc) => oc.column("name").doUpdateSet({ value: sealed }))
          .execute(),
      );
    },

    resealSecrets: (checkOnly = false) => resealColumn(db, sealing, { table: "settings", key: "name", value: "value" }, checkOnly),
  };
}
