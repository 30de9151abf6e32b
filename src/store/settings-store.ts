/**
 * Server-wide values in the `settings` table. A value is written once and never changed, so
 * replicas that race to create it settle on whichever insert landed first.
 */
import { internal } from "../domain/errors.js";
import type { Executor } from "./database.js";
import { guard } from "./translate-error.js";
import type { SettingsStore } from "./types.js";

/** The settings store over an executor. */
export function createSettingsStore(db: Executor): SettingsStore {
  const read = (name: string) =>
    guard(async () => (await db.selectFrom("settings").select("value").where("name", "=", name).executeTakeFirst())?.value);

  return {
    async getOrCreate(name, make) {
      const existing = await read(name);
      if (existing !== undefined) return existing;
      const value = make();
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
      return stored;
    },
  };
}
