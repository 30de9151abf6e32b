/**
 * Brings the schema up to date at start (or from `arbor admin migrate`). Kysely's migrator keeps
 * two processes starting at once from both migrating: an advisory lock on PostgreSQL, the
 * IMMEDIATE transaction on SQLite (see dialect.ts).
 *
 * Upgrades roll (docs/operations.md, "Upgrades"): a release's migrations are additive, so the
 * release before it keeps serving on the migrated store, and may even start on it. Migrations
 * only ever go up: there is no down migration for an older Arbor to run.
 */
import { sql, type Kysely } from "kysely";
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
import * as m0019 from "./migrations/0019_advisory_feed_cursors.js";
import * as m0020 from "./migrations/0020_device_logins.js";
import * as m0021 from "./migrations/0021_events.js";
import * as m0022 from "./migrations/0022_advisory_scale.js";
import * as m0023 from "./migrations/0023_cheaper_outbox.js";
import * as m0024 from "./migrations/0024_advisory_checked_packages.js";
import * as m0025 from "./migrations/0025_advisory_name_counts.js";
import * as m0026 from "./migrations/0026_advisory_deferred_schema.js";
import * as m0027 from "./migrations/0027_advisory_document_lz4.js";
import * as m0028 from "./migrations/0028_advisory_trigram_docs.js";
import * as m0029 from "./migrations/0029_advisory_package_counts.js";
import * as m0030 from "./migrations/0030_advisory_search_fold.js";
import * as m0031 from "./migrations/0031_advisory_texts_postgres.js";
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
    "0019_advisory_feed_cursors": { up: (db) => m0019.up(db, engine) },
    "0020_device_logins": { up: (db) => m0020.up(db, engine) },
    "0021_events": { up: (db) => m0021.up(db, engine) },
    "0022_advisory_scale": { up: (db) => m0022.up(db, engine) },
    "0023_cheaper_outbox": { up: (db) => m0023.up(db, engine) },
    "0024_advisory_checked_packages": { up: (db) => m0024.up(db, engine) },
    "0025_advisory_name_counts": { up: (db) => m0025.up(db, engine) },
    "0026_advisory_deferred_schema": { up: (db) => m0026.up(db, engine) },
    "0027_advisory_document_lz4": { up: (db) => m0027.up(db, engine) },
    "0028_advisory_trigram_docs": { up: (db) => m0028.up(db, engine) },
    "0029_advisory_package_counts": { up: (db) => m0029.up(db, engine) },
    "0030_advisory_search_fold": { up: (db) => m0030.up(db, engine) },
    "0031_advisory_texts_postgres": { up: (db) => m0031.up(db, engine) },
  };
}

/** The names of the migrations this Arbor knows, in the order they run. */
export function knownMigrations(): string[] {
  return Object.keys(migrations("sqlite")).sort();
}

/** Where a store's schema stands against this Arbor's migrations. */
export interface SchemaStatus {
  /** Known migrations the store has not run, in order. */
  pending: string[];
  /**
   * Migrations the store has run that this Arbor does not know: a newer release ran them. By the
   * upgrade rule they only added to the schema, so this Arbor serves on; it never undoes them.
   */
  newer: string[];
}

/** Reads which migrations the store has run, without changing anything (no table is created). */
export async function schemaStatus(db: Kysely<any>, setup: EngineSetup): Promise<SchemaStatus> {
  let applied: string[];
  try {
    applied = await appliedMigrations(db, setup);
  } catch (error) {
    if (classifyFailure(error) === "unavailable") throw storeUnreachable(error);
    throw error;
  }
  const known = knownMigrations();
  const ran = new Set(applied);
  return { pending: known.filter((name) => !ran.has(name)), newer: applied.filter((name) => !known.includes(name)) };
}

async function appliedMigrations(db: Kysely<any>, setup: EngineSetup): Promise<string[]> {
  const schema = setup.engine === "postgres" ? await setup.migrationSchema(db) : undefined;
  const exists =
    setup.engine === "postgres"
      ? await sql<{ found: number }>`select 1 as found from information_schema.tables
          where table_schema = coalesce(${schema ?? null}, current_schema()) and table_name = ${MIGRATION_TABLE}`.execute(db)
      : await sql<{ found: number }>`select 1 as found from sqlite_master where type = 'table' and name = ${MIGRATION_TABLE}`.execute(db);
  if (exists.rows.length === 0) return [];
  const table = schema === undefined ? db.selectFrom(MIGRATION_TABLE) : db.withSchema(schema).selectFrom(MIGRATION_TABLE);
  const rows = await table.select("name").orderBy("name").execute();
  return rows.map((row: { name: string }) => row.name);
}

/** Kysely's default name for its table of migrations run. */
const MIGRATION_TABLE = "kysely_migration";

/**
 * Runs the migrations not yet run, all of them or those up to and including `target` (how the
 * tests make a store as an older Arbor left it), and returns the names of those it ran. A store a
 * newer release migrated, that has run every migration this Arbor knows, is left as it is (Kysely
 * alone would call it corrupted). UNAVAILABLE when the store cannot be reached; any other failure
 * is the operator's to read, so it keeps the driver's words in its cause.
 */
export async function migrate(db: Kysely<any>, setup: EngineSetup, target?: string): Promise<string[]> {
  const before = await schemaStatus(db, setup);
  if (before.newer.length > 0) {
    if (before.pending.length === 0) return [];
    throw new Error(
      `the ${setup.engine} store has run migrations this Arbor does not know (${before.newer.join(", ")}) but not all it knows ` +
        `(${before.pending.join(", ")}): its schema is not one any release made; restore a backup`,
    );
  }
  let error: unknown;
  let results: { migrationName: string; status: string }[] | undefined;
  for (let attempt = 1; ; attempt++) {
    error = undefined;
    let schema: string | undefined;
    try {
      // On PostgreSQL the migrator creates this schema when it is missing, which is how a
      // StoreOptions.schema comes to exist.
      schema = await setup.migrationSchema(db);
      const migrator = new Migrator({
        db,
        provider: { getMigrations: async () => migrations(setup.engine) },
        migrationTableSchema: schema,
      });
      ({ error, results } = await (target === undefined ? migrator.migrateToLatest() : migrator.migrateTo(target)));
    } catch (thrown) {
      error = thrown;
    }
    if (error === undefined) return (results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
    if (attempt >= 3 || !introspectionRaced(error, schema)) break;
  }
  if (classifyFailure(error) === "unavailable") throw storeUnreachable(error);
  throw new Error(`the ${setup.engine} store's schema could not be brought up to date`, { cause: error });
}

/**
 * Whether the migrator failed only because the catalog changed elsewhere while it looked for its
 * tables: Kysely's introspection reads every schema's tables and columns and then looks each up
 * by name, so a schema dropped in between (another application's, or a test's), or a column of
 * some table dropped or renamed in between (its migrations running beside ours), fails it. Trying
 * again reads the catalog afresh.
 */
export function introspectionRaced(error: unknown, ours: string | undefined): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message, routine } = error as { code?: unknown; message?: unknown; routine?: unknown };
  // 42703 from pg_get_serial_sequence: a column the listing read was gone when the introspection
  // asked for its sequence. Only the introspection calls that function; the message names the
  // column's table without its schema.
  if (code === "42703" && routine === "pg_get_serial_sequence") return true;
  // 3F000 names the schema; 42P01 a table of it, qualified, when it went between the listing and
  // the look-up of its columns.
  const named =
    code === "3F000"
      ? /schema "([^"]+)" does not exist/.exec(String(message))?.[1]
      : code === "42P01"
        ? /relation "([^".]+)\.[^"]+" does not exist/.exec(String(message))?.[1]
        : undefined;
  return named !== undefined && named !== ours;
}
