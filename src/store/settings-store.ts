/**
 * Server-wide values in the `settings` table. A key or secret is written once and never changed,
 * so replicas that race to create it settle on whichever insert landed first; put() is for the
 * few values that describe the latest start instead. Every value is sealed with the secrets key
 * (src/store/sealing.ts), so no reader has to know which values are secret.
 */
import { internal } from "../domain/errors.js";
import type { SecretBox } from "../domain/secret-box.js";
import type { Executor } from "./database.js";
import { resealColumn, sealingWith } from "./sealing.js";
import { guard } from "./translate-error.js";
import type { SettingsStore } from "./types.js";

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
