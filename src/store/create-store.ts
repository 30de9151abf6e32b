/**
 * Opens the store: picks the engine from the options, brings the schema up to date, and hands
 * out the resource stores with transactions over them.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Kysely, sql } from "kysely";
import type { AuthorityChange } from "../domain/authority.js";
import type { SecretBox } from "../domain/secret-box.js";
import type { Database, Executor } from "./database.js";
import { engineSetup, type Engine } from "./dialect.js";
import type { LeaderLock } from "./leader-lock.js";
import { pruneListChanges } from "./list-changes.js";
import { migrate, schemaStatus } from "./migrate.js";
import { ScopeMemory } from "./scope-memory.js";
import { createStores } from "./stores.js";
import { storeUnreachable, translateError } from "./translate-error.js";
import type { Store } from "./types.js";

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
  } finally {
    await migrating.destroy();
  }
  const setup = engineSetup(options);
  return storeOver(new Kysely<Database>({ dialect: setup.dialect }), setup.engine, options.secrets, setup.leaderLock());
}

/** The open transaction of an atomically() call, and the authority changes written in it. */
interface Ambient {
  tx: Executor;
  changes: AuthorityChange[];
}

function storeOver(db: Executor, engine: Engine, secrets: SecretBox | undefined, leader: LeaderLock): Store {
  const ambient = new AsyncLocalStorage<Ambient>();
  // Outside atomically() there is no API caller to hold to account: the admin commands act for
  // the installation, and a login redeems what someone who could grant it already granted.
  const record = (change: AuthorityChange) => ambient.getStore()?.changes.push(change);
  const memory = new ScopeMemory();
  const storesOver = (executor: Executor) => createStores(executor, engine, secrets, record, memory);
  return {
    engine,
    ...storesOver(ambientExecutor(db, ambient)),
    transaction: (fn) => {
      // Inside atomically() the transaction is already open: fn joins it.
      const current = ambient.getStore();
      if (current !== undefined) return fn(storesOver(current.tx));
      return transaction(db, storesOver, fn);
    },
    atomically: (fn) => {
      const current = ambient.getStore();
      if (current !== undefined) return fn(current.changes);
      return transaction(
        db,
        (tx) => tx,
        (tx) => {
          const joined: Ambient = { tx, changes: [] };
          return ambient.run(joined, () => fn(joined.changes));
        },
      );
    },
    pruneListChanges: () => pruneListChanges(db, engine),
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
      await db.destroy();
    },
  };
}

/**
 * The pool, except in the async context of an atomically() call, where it is that call's
 * transaction: the stores made over it join the transaction of the call they serve without
 * being handed it. Kysely keeps its state in private fields, which a Proxy does not forward, so
 * methods are bound to the executor they belong to (once per executor and name).
 */
function ambientExecutor(db: Executor, ambient: AsyncLocalStorage<Ambient>): Executor {
  const bound = new WeakMap<Executor, Map<PropertyKey, unknown>>();
  return new Proxy(db, {
    get(_target, name) {
      const current = ambient.getStore()?.tx ?? db;
      const value: unknown = Reflect.get(current, name, current);
      if (typeof value !== "function") return value;
      let methods = bound.get(current);
      if (methods === undefined) bound.set(current, (methods = new Map()));
      let method = methods.get(name);
      if (method === undefined) methods.set(name, (method = (value as (...args: unknown[]) => unknown).bind(current)));
      return method;
    },
  });
}

/**
 * Runs fn in a transaction. fn must use only the stores it is given: on SQLite the one
 * connection is fn's until it settles, so a statement on the outer store would wait forever.
 */
async function transaction<S, T>(db: Executor, storesOf: (tx: Executor) => S, fn: (tx: S) => Promise<T>): Promise<T> {
  // fn's own errors reach the caller as thrown; only begin, commit and rollback are translated.
  let thrownByFn: { error: unknown } | undefined;
  try {
    return await db.transaction().execute(async (tx) => {
      try {
        return await fn(storesOf(tx));
      } catch (error) {
        thrownByFn = { error };
        throw error;
      }
    });
  } catch (error) {
    if (thrownByFn !== undefined && thrownByFn.error === error) throw error;
    throw translateError(error);
  }
}
