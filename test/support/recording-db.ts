/**
 * A second Kysely on a test store's database that keeps every statement it sends, for tests of
 * what a store asks of the database (which statements, how many), not only what it answers.
 */
import { Kysely, type CompiledQuery } from "kysely";
import type { StoreOptions } from "../../src/store/create-store.js";
import { engineSetup } from "../../src/store/dialect.js";
import type { Database } from "../../src/store/tables.js";

export interface RecordingDb {
  db: Kysely<Database>;
  /** The statements sent, in order; empty it (`seen.length = 0`) before what a test watches. */
  seen: CompiledQuery[];
}

export function recordingDb(options: StoreOptions): RecordingDb {
  const seen: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: engineSetup(options).dialect,
    log: (event) => {
      if (event.level === "query") seen.push(event.query);
    },
  });
  return { db, seen };
}
