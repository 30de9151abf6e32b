/**
 * Opens the store: picks the engine from the options, brings the schema up to date, and hands
 * out the resource stores with atomically() over them (ambient-transaction.ts).
 */
import { Kysely, sql } from "kysely";
import type { AuthorityChange } from "../domain/authority.js";
import type { SecretBox } from "../domain/secret-box.js";
import { ambientTransactions } from "./ambient-transaction.js";
import type { Database, Executor } from "./tables.js";
import { join } from "node:path";
import { engineSetup, SQLITE_BUSY_TIMEOUT_MS, SQLITE_FILES, type EngineSetup } from "./dialect.js";
import { countThread, type CountThread } from "./search-count-thread.js";
import { pruneListChanges } from "./list-changes.js";
import { completeAdvisoryCounts, restoreAdvisorySchema } from "./advisory-deferred.js";
import { migrate, schemaStatus } from "./migrate.js";
import { ScopeMemory } from "./scope-memory.js";
import { createStores } from "./stores.js";
import { guard, storeUnreachable } from "./translate-error.js";
import type { Store, StoreTransaction } from "./store.js";

/** Where the data lives. */
export interface StoreOptions {
  /** A postgres:// or postgresql:// URL selects PostgreSQL; absent or empty selects SQLite. */
  databaseUrl?: string | undefined;
  /** The directory of the SQLite database (`arbor.db`), created when missing. */
  dataDir: string;
  /**
   * PostgreSQL only: the schema to keep the tables in, created when missing and made the
   * search_path of every connection (tests give each run its own).
   */
  schema?: string | undefined;
  /**
   * Seals secrets kept at rest (identity providers' client secrets). Without it such secrets
   * can be neither written nor read.
   */
  secrets?: SecretBox | undefined;
  /**
   * SQLite only: the connection's page cache, in MB (better-sqlite3 builds SQLite with 16 MB). A bulk write into
   * a large store (an advisory import) reads far fewer pages back with more; the server keeps the
   * default, its memory is bounded (docs/benchmarks.md, S7).
   */
  sqliteCacheMb?: number | undefined;
  /**
   * SQLite only: how many pages the WAL may hold before a commit of this connection copies them
   * into the database (SQLite's default 1,000, 4 MB). A bulk write that touches pages all over a
   * large store writes each page to the WAL at every commit it changes it in, and the checkpoint
   * writes it again; checkpointing less often writes a page changed by many commits once. The WAL
   * file is kept at up to twice that size after a checkpoint that empties it, and written over.
   */
  sqliteCheckpointPages?: number | undefined;
  /**
   * SQLite only: false to read on the writer connection, each read waiting for an open
   * transaction, instead of on a reader connection beside it (sqlite-driver.ts). For a bulk
   * import, whose memory is bounded with one connection's page cache. Default true.
   */
  sqliteReader?: boolean | undefined;
  /**
   * PostgreSQL only: false to have the connections' commits return before their WAL reaches disk
   * (`synchronous_commit = off`), for a bulk import's writer: a crash may then lose its last
   * commits, never corrupt the store, and a commit with the default flushes all WAL before it
   * (the import's build at its end does). Default true.
   */
  synchronousCommit?: boolean | undefined;
  /**
   * PostgreSQL only: false to run every statement unnamed, parsed and planned on each run, for a
   * pooler that cannot keep prepared statements; by default the stores' key lookups and plain
   * inserts are prepared on each connection (pg-prepared-statements.ts). Default true.
   */
  preparedStatements?: boolean | undefined;
  /** PostgreSQL only: how long getting a connection may take, new or pooled (default 5 s). */
  connectTimeoutMs?: number | undefined;
  /**
   * PostgreSQL only: how long a statement may take, on the client's clock (which also covers a
   * network that drops packets silently) and as the server's statement_timeout (default 10 s;
   * 0: none).
   */
  queryTimeoutMs?: number | undefined;
  /**
   * false: run no migration, and refuse a store whose schema is behind this Arbor (for operators
   * who migrate separately with `arbor admin migrate`). Default true.
   */
  migrate?: boolean | undefined;
}

/** A store whose schema is behind this Arbor, opened without migrating. */
export class SchemaBehindError extends Error {
  override readonly name = "SchemaBehindError";
}

/**
 * Opens the store and runs pending migrations (unless options.migrate is false). Throws UNAVAILABLE
 * when the database cannot be reached, SchemaBehindError for a store behind the code that may not
 * be migrated, and a plain Error for a bad URL or a failed migration.
 */
export async function createStore(options: StoreOptions): Promise<Store> {
  // Migrations may rightly run long (an index over a big table): they get connections of their
  // own, without the statement timeout that serving runs under.
  const migrationSetup = engineSetup({ ...options, queryTimeoutMs: 0 });
  const migrating = new Kysely<Database>({ dialect: migrationSetup.dialect });
  try {
    if (options.migrate === false) {
      const { pending } = await schemaStatus(migrating, migrationSetup);
      if (pending.length > 0) {
        throw new SchemaBehindError(
          `the ${migrationSetup.engine} store's schema is behind this Arbor by ${pending.length} migration(s) (${pending.join(", ")}) ` +
            "and migrating at start is off (ARBOR_MIGRATE=false): run `arbor admin migrate` first",
        );
      }
    } else {
      await migrate(migrating, migrationSetup);
    }
    // A bulk import of advisories killed before its end left indexes to build: built before
    // anything reads the store, on these connections without a statement timeout (each may run long).
    await restoreAdvisorySchema(migrating, migrationSetup.engine);
    // Kept counts an older Arbor made anew without a kind of key this one reads: made again.
    await completeAdvisoryCounts(migrating, migrationSetup.engine);
  } finally {
    await migrating.destroy();
  }
  const setup = engineSetup(options);
  // SQLite runs in the calling thread: a search's count runs in a thread of its own instead.
  const counts =
    setup.engine === "sqlite"
      ? countThread({ file: join(options.dataDir, SQLITE_FILES[0]), busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS })
      : undefined;
  return storeOver(new Kysely<Database>({ dialect: setup.dialect }), setup, options.secrets, counts);
}

/**
 * How often the server looks for tables to analyze again (Store.refreshPlannerStatistics). A look
 * reads each table's size off its b-tree, well under a millisecond; an analysis runs only when a
 * table's size changed tenfold, so a burst of writes (a bulk creation of bindings) leaves plans
 * made for a table a tenth or less of its size for at most this long.
 */
export const STATISTICS_INTERVAL_MS = 60 * 1000;

/** An atomically() call's transaction: its stores, and the authority changes written in it. */
interface Unit {
  tx: StoreTransaction;
  changes: AuthorityChange[];
}

function storeOver(db: Executor, setup: EngineSetup, secrets: SecretBox | undefined, counts?: CountThread): Store {
  const { engine } = setup;
  const leader = setup.leaderLock();
  const memory = new ScopeMemory();
  // The stores a transaction's fn is given: made once, over the executor that is the transaction
  // in fn's async context (as every store call there is), not made anew for each transaction, which
  // was 7 % of a create's CPU (docs/benchmarks.md, S3). A count aside would not see the
  // transaction's writes, so these count in place.
  const units = ambientTransactions(
    db,
    (): Unit => {
      const changes: AuthorityChange[] = [];
      return { tx: { ...inUnits, authorityChanges: changes }, changes };
    },
    engine === "sqlite" ? { maxUnits: 64, maxOpenMs: 5 } : undefined,
  );
  // Only atomically() collects changes, and only the invoker hands them to the escalation guard:
  // the admin commands act for the installation, and a login redeems what someone who could
  // grant it already granted.
  const record = (change: AuthorityChange) => units.current()?.changes.push(change);
  const inUnits = createStores(units.executor, engine, secrets, record, memory);
  return {
    engine,
    // Outside a transaction only: a count from another connection would not see the transaction's writes.
    ...createStores(units.executor, engine, secrets, record, memory, counts && { countAside: (query) => counts.count(query) }),
    atomically: (fn) => units.run((unit) => fn(unit.tx)),
    pruneListChanges: () => pruneListChanges(db, engine),
    refreshPlannerStatistics: () => guard(() => setup.refreshStatistics()),
    async ping() {
      try {
        await sql`select 1`.execute(db);
      } catch (error) {
        throw storeUnreachable(error);
      }
    },
    leads: () => leader.holds(),
    async close() {
      await leader.release();
      await counts?.close();
      await db.destroy();
    },
  };
}
