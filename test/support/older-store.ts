/**
 * A store as an older Arbor left it: the schema brought up to a given migration and no further,
 * for tests of what a later migration does to existing data.
 */
import { Kysely } from "kysely";
import type { StoreOptions } from "../../src/store/create-store.js";
import type { Database } from "../../src/store/tables.js";
import { engineSetup } from "../../src/store/dialect.js";
import { migrate } from "../../src/store/migrate.js";

/** Runs the migrations up to and including `name` at options' location. */
export async function migrateUpTo(options: StoreOptions, name: string): Promise<void> {
  const setup = engineSetup({ ...options, queryTimeoutMs: 0 });
  const db = new Kysely<Database>({ dialect: setup.dialect });
  try {
    await migrate(db, setup, name);
  } finally {
    await db.destroy();
  }
}
