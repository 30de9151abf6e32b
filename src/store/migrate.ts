/**
 * Brings the schema up to date at start. Kysely's migrator keeps two processes starting at once
 * from both migrating: an advisory lock on PostgreSQL, the IMMEDIATE transaction on SQLite (see
 * dialect.ts).
 */
import type { Kysely } from "kysely";
import { Migrator, type Migration } from "kysely/migration";
import { classifyFailure, type Engine, type EngineSetup } from "./dialect.js";
import * as m0001 from "./migrations/0001_initial.js";
import * as m0002 from "./migrations/0002_iam.js";
import * as m0003 from "./migrations/0003_login.js";
import * as m0004 from "./migrations/0004_advisories.js";
import * as m0005 from "./migrations/0005_registry.js";
import * as m0006 from "./migrations/0006_audit.js";
import * as m0007 from "./migrations/0007_authz_generation.js";
import * as m0008 from "./migrations/0008_group_counts.js";
import * as m0009 from "./migrations/0009_login_attempt_owners.js";
import * as m0010 from "./migrations/0010_organization_members.js";
import * as m0011 from "./migrations/0011_registry_paths.js";
import * as m0012 from "./migrations/0012_identity_deletes_authz_generation.js";
import * as m0013 from "./migrations/0013_identity_authz_generations.js";
import * as m0014 from "./migrations/0014_audit_counts.js";
import * as m0015 from "./migrations/0015_group_count_versions.js";
import * as m0016 from "./migrations/0016_advisory_create_time.js";
import * as m0017 from "./migrations/0017_list_changes.js";
import * as m0018 from "./migrations/0018_more_list_changes.js";
import { storeUnreachable } from "./translate-error.js";

/** Every migration by name; names sort in the order they run. */
function migrations(engine: Engine): Record<string, Migration> {
  return {
    "0001_initial": { up: (db) => m0001.up(db, engine) },
    "0002_iam": { up: (db) => m0002.up(db, engine) },
    "0003_login": { up: (db) => m0003.up(db, engine) },
    "0004_advisories": { up: (db) => m0004.up(db, engine) },
    "0005_registry": { up: (db) => m0005.up(db, engine) },
    "0006_audit": { up: (db) => m0006.up(db, engine) },
    "0007_authz_generation": { up: (db) => m0007.up(db, engine) },
    "0008_group_counts": { up: (db) => m0008.up(db, engine) },
    "0009_login_attempt_owners": { up: (db) => m0009.up(db, engine) },
    "0010_organization_members": { up: (db) => m0010.up(db, engine) },
    "0011_registry_paths": { up: (db) => m0011.up(db, engine) },
    "0012_identity_deletes_authz_generation": { up: (db) => m0012.up(db, engine) },
    "0013_identity_authz_generations": { up: (db) => m0013.up(db, engine) },
    "0014_audit_counts": { up: (db) => m0014.up(db, engine) },
    "0015_group_count_versions": { up: (db) => m0015.up(db, engine) },
    "0016_advisory_create_time": { up: (db) => m0016.up(db, engine) },
    "0017_list_changes": { up: (db) => m0017.up(db, engine) },
    "0018_more_list_changes": { up: (db) => m0018.up(db, engine) },
  };
}

/**
 * Runs the migrations not yet run, all of them or those up to and including `target` (how the
 * tests make a store as an older Arbor left it). UNAVAILABLE when the store cannot be reached;
 * any other failure is the operator's to read, so it keeps the driver's words in its cause.
 */
export async function migrate(db: Kysely<any>, setup: EngineSetup, target?: string): Promise<void> {
  let error: unknown;
  for (let attempt = 1; ; attempt++) {
    error = undefined;
    let schema: string | undefined;
    try {
      // On PostgreSQL the migrator creates this schema when it is missing, which is how a
      // StoreOptions.schema comes to exist.
      schema = await setup.migrationSchema(db);
      const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations(setup.engine) }, migrationTableSchema: schema });
      ({ error } = await (target === undefined ? migrator.migrateToLatest() : migrator.migrateTo(target)));
    } catch (thrown) {
      error = thrown;
    }
    if (error === undefined) return;
    if (attempt >= 3 || !anotherSchemaDropped(error, schema)) break;
  }
  if (classifyFailure(error) === "unavailable") throw storeUnreachable(error);
  throw new Error(`the ${setup.engine} store's schema could not be brought up to date`, { cause: error });
}

/**
 * Whether the migrator failed only because another schema of the database was dropped while it
 * looked for its tables: Kysely's introspection reads every schema's tables and then looks each
 * up by name, so a schema dropped in between (another application's, or a test's) fails it.
 * Trying again reads the catalog afresh.
 */
export function anotherSchemaDropped(error: unknown, ours: string | undefined): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  // 3F000 names the schema; 42P01 a table of it, qualified, when it went between the listing and
  // the look-up of its columns.
  const named =
    code === "3F000" ? /schema "([^"]+)" does not exist/.exec(String(message))?.[1] : code === "42P01" ? /relation "([^".]+)\.[^"]+" does not exist/.exec(String(message))?.[1] : undefined;
  return named !== undefined && named !== ours;
}
