/**
 * Everything that differs between SQLite and PostgreSQL: opening the driver, the transaction
 * mode, where the migration tables live, what a driver error means, and the one statement whose
 * safety under concurrency differs (folding counts). Nothing else in store/ asks which engine
 * runs.
 */
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import {
  CompiledQuery,
  PostgresDialect,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql,
  type Expression,
  type RawBuilder,
  type SqlBool,
  type Dialect,
  type Kysely,
} from "kysely";
import pg from "pg";
import type { StoreOptions } from "./create-store.js";
import { type Executor } from "./tables.js";
import { inTransaction } from "./nested-transactions.js";
import { postgresLeaderLock, soleLeader, type LeaderLock } from "./leader-lock.js";
import { isStalePreparedStatement, preparedStatements } from "./pg-prepared-statements.js";
import { ReaderWriterSqliteDriver, type SqliteConnectionLike } from "./sqlite-driver.js";
import type { Store } from "./store.js";

/** The engines Arbor stores data in. */
export type Engine = Store["engine"];

/** How to reach one engine: what createStore needs to know and nothing more. */
export interface EngineSetup {
  readonly engine: Engine;
  readonly dialect: Dialect;
  /** The schema Kysely's migration tables live in, or undefined where the engine has none. */
  migrationSchema(db: Kysely<unknown>): Promise<string | undefined>;
  /** The lock that makes one replica the one to run background jobs (leader-lock.ts). */
  leaderLock(): LeaderLock;
  /**
   * Brings the query planner's statistics up to date where the engine leaves that to the program:
   * on SQLite those of PLANNED_BY_STATISTICS (ReaderWriterSqliteDriver.refreshStatistics); on
   * PostgreSQL nothing, its autovacuum analyzes a table again once a tenth of it changed. Returns
   * the tables analyzed.
   */
  refreshStatistics(): Promise<string[]>;
}

/** Long enough to ride out another process's write transaction, short enough to fail a request. */
export const SQLITE_BUSY_TIMEOUT_MS = 5_000;
/** pg waits forever for a connection by default; an unreachable server must fail instead. */
const PG_CONNECT_TIMEOUT_MS = 5_000;
/** pg waits forever for an answer by default; a server behind a silent network must fail instead. */
const PG_QUERY_TIMEOUT_MS = 10_000;

/** Whether options locate the embedded SQLite store: no database URL (engineSetup checks any other). */
export function sqliteStore(options: Pick<StoreOptions, "databaseUrl">): boolean {
  return (options.databaseUrl ?? "") === "";
}

/** Chooses the engine from the database URL: PostgreSQL for postgres(ql)://, SQLite for none. */
export function engineSetup(options: StoreOptions): EngineSetup {
  const url = options.databaseUrl ?? "";
  if (sqliteStore(options)) return sqliteSetup(options.dataDir, options);
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase();
  if (scheme === "postgres" || scheme === "postgresql") return postgresSetup(url, options);
  // Only the scheme is echoed: the rest of the URL may hold a password.
  const got = scheme === undefined ? "a URL without a scheme" : `scheme "${scheme}"`;
  throw new Error(`database URL must start with postgres:// or postgresql:// (got ${got}); leave it unset for SQLite`);
}

function sqliteSetup(dataDir: string, tuning: SqliteTuning): EngineSetup {
  let driver: ReaderWriterSqliteDriver | undefined;
  return {
    engine: "sqlite",
    dialect: {
      createAdapter: () => new TransactionalDdlSqliteAdapter(),
      createDriver: () =>
        (driver = new ReaderWriterSqliteDriver({
          writer: () => openSqlite(dataDir, tuning),
          reader: tuning.sqliteReader === false ? undefined : () => openSqlite(dataDir, tuning),
        })),
      createQueryCompiler: () => new SqliteQueryCompiler(),
      createIntrospector: (db) => new SqliteIntrospector(db),
    },
    migrationSchema: async () => undefined,
    leaderLock: soleLeader,
    refreshStatistics: async () => (await driver?.refreshStatistics(PLANNED_BY_STATISTICS)) ?? [],
  };
}

/** The SQLite database's files in the data directory: the database, its WAL and its shared memory. */
export const SQLITE_FILES = ["arbor.db", "arbor.db-wal", "arbor.db-shm"] as const;

/**
 * The SQLite tables whose statistics the store keeps (refreshStatistics). A page of one of them
 * below a group (`uidp.descendants_of`) in the order of a column other than uid either reads the
 * subtree's range of uids and sorts it, or walks the order's index and skips the rows outside
 * the range; only statistics tell SQLite which is cheaper. Without them it always read and sorted
 * the range: an owner's first page of an organization of 100,000 groups took 20 ms, against
 * 0.5 ms walking the names (docs/architecture.md, "Planner statistics"). The other tables'
 * statements are planned without statistics, as they were designed and measured (the
 * advisories' in particular); an operator's ANALYZE still gives them some.
 */
export const PLANNED_BY_STATISTICS: readonly string[] = Object.freeze(["groups", "identities", "role_bindings"]);

/** A SQLite connection's settings for a bulk writer (StoreOptions says what each does). */
type SqliteTuning = Pick<StoreOptions, "sqliteCacheMb" | "sqliteCheckpointPages" | "sqliteReader">;

function openSqlite(
  dataDir: string,
  { sqliteCacheMb: cacheMb, sqliteCheckpointPages: checkpointPages }: SqliteTuning,
): SqliteConnectionLike {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, SQLITE_FILES[0]);
  // Made 0600 before SQLite opens it (SQLite's own default is 0644); SQLite gives the -wal and
  // -shm files it makes the database file's mode.
  closeSync(openSync(file, "a", 0o600));
  const db = new BetterSqlite3(file);
  // busy_timeout first: switching to WAL needs a lock another process may hold.
  db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  // Negative: a size in KiB rather than in pages.
  if (cacheMb !== undefined) db.pragma(`cache_size = -${Math.round(cacheMb * 1024)}`);
  if (checkpointPages !== undefined) {
    const pages = Math.round(checkpointPages);
    db.pragma(`wal_autocheckpoint = ${pages}`);
    // The WAL file is kept at the size it grows to between two checkpoints, and written over in
    // place after each: cut back, it was grown again block by block (ext4 allocating each block and
    // zeroing each page of the OS cache anew), about a tenth of the kernel's time in a bulk import.
    // Up to twice the checkpoint's size: a WAL a reader made grow past that is still cut back.
    const pageSize = Number(db.pragma("page_size", { simple: true }));
    db.pragma(`journal_size_limit = ${2 * pages * pageSize}`);
  }
  return withStatementCache(db, SQLITE_STATEMENT_CACHE);
}

/** How many prepared statements the SQLite connection keeps. */
const SQLITE_STATEMENT_CACHE = 512;

/**
 * Kysely prepares every query anew, and preparing was the largest cost of a simple read (a CPU
 * profile of GET /groups/{uid}: 15 %). The queries are a small fixed set of texts with bound
 * parameters, so the connection keeps their prepared statements (least recently used out).
 * better-sqlite3 runs a statement synchronously to completion, so reuse is safe; SQLite
 * re-prepares a statement by itself after a schema change.
 */
function withStatementCache(db: BetterSqlite3.Database, size: number): SqliteConnectionLike {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => db.close(),
    get inTransaction() {
      return db.inTransaction;
    },
    prepare(text: string) {
      let statement = statements.get(text);
      if (statement !== undefined) {
        statements.delete(text);
      } else {
        statement = db.prepare(text);
        if (statements.size >= size) statements.delete(statements.keys().next().value as string);
      }
      statements.set(text, statement);
      return statement;
    },
  };
}

/**
 * SQLite can roll DDL back; saying so makes Kysely's migrator run inside one transaction, which
 * (begun IMMEDIATE, below) is also the lock that keeps two processes from migrating at once.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }

  /** The driver keeps its writer to one holder at a time itself (sqlite-driver.ts). */
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

const NO_JIT = CompiledQuery.raw("set jit = off");
const ASYNC_COMMIT = CompiledQuery.raw("set synchronous_commit = off");

function postgresSetup(url: string, options: StoreOptions): EngineSetup {
  const { schema } = options;
  const queryTimeout = options.queryTimeoutMs ?? PG_QUERY_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    // Bounds both a new connection and the wait for a free one: a request fails as UNAVAILABLE
    // instead of queueing behind connections stuck on a dead network.
    connectionTimeoutMillis: options.connectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS,
    // The client's clock catches a network that drops packets (no error ever arrives); the
    // server's stops work nobody waits for any more. TCP keepalive finds dead idle connections.
    query_timeout: queryTimeout,
    statement_timeout: queryTimeout,
    keepAlive: true,
    fallback_application_name: "arbor",
    // Per pool, not pg.types: other pg users in the process keep their parsers.
    types: INT8_AS_NUMBER,
  });
  // An idle pooled connection that drops (server restart, network) is discarded by the pool and
  // the next query reconnects and reports its own failure; unheard, the event would crash Node.
  pool.on("error", () => {});
  // A connection that drops while a request holds it fails that request's query, and then emits
  // "error" on its client, where no listener is while it is checked out: unheard, that too would
  // crash Node (the store-outage test saw it). The pool discards such a client on release.
  // A statement the stores declare preparable is prepared under a name (pg-prepared-statements.ts), unless turned off.
  const prepared = options.preparedStatements === false ? undefined : preparedStatements();
  pool.on("connect", (client) => {
    client.on("error", () => {});
    prepared?.attach(client);
  });
  // Set per connection rather than in the URL's options, which a URL of the operator's may hold.
  const searchPath = schema === undefined ? undefined : CompiledQuery.raw(`set search_path to ${quoteIdent(schema)}`);
  return {
    engine: "postgres",
    dialect: new PostgresDialect({
      pool,
      onCreateConnection: async (connection) => {
        if (searchPath !== undefined) await connection.executeQuery(searchPath);
        // Every statement Arbor sends reads a bounded page; PostgreSQL's JIT compiles a statement
        // whose estimate looks large (a gathered audit page: 12 ms of compiling for 3 ms of work)
        // and pays it again on every run, so it only ever adds latency here.
        await connection.executeQuery(NO_JIT);
        if (options.synchronousCommit === false) await connection.executeQuery(ASYNC_COMMIT);
      },
    }),
    migrationSchema: async (db) => schema ?? (await currentSchema(db)),
    refreshStatistics: async () => [],
    leaderLock: () =>
      postgresLeaderLock({
        url,
        schema,
        connectTimeoutMs: options.connectTimeoutMs ?? PG_CONNECT_TIMEOUT_MS,
        queryTimeoutMs: queryTimeout,
      }),
  };
}

/** Times are milliseconds (well inside 2^53), so int8 can be a JS number rather than a string. */
const INT8_AS_NUMBER: pg.CustomTypesConfig = {
  getTypeParser: (oid, format) => (oid === pg.types.builtins.INT8 ? Number : pg.types.getTypeParser(oid, format)),
};

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** Kysely's migrator must be told the schema, or it finds its tables in any schema of the database. */
async function currentSchema(db: Kysely<unknown>): Promise<string> {
  const { rows } = await sql<{ schema: string | null }>`select current_schema() as schema`.execute(db);
  const schema = rows[0]?.schema;
  if (schema == null) throw new Error("PostgreSQL has no current schema: fix search_path or pass a schema");
  return schema;
}

/** What a failed statement means to the store, whichever driver raised it. */
export type Failure = "unique" | "foreignKey" | "unavailable" | "other";

const UNIQUE = new Set(["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_CONSTRAINT_PRIMARYKEY", "23505"]);
// PostgreSQL reports ON DELETE RESTRICT as 23503; 23001 is its dedicated code, kept for safety.
const FOREIGN_KEY = new Set(["SQLITE_CONSTRAINT_FOREIGNKEY", "23503", "23001"]);
const NETWORK = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);
// SQLSTATEs of a server that is going away or full: admin/crash shutdown, starting up, too many clients.
// 57014 is a statement cancelled by statement_timeout: the server is too slow to answer in time.
const PG_GONE = new Set(["57P01", "57P02", "57P03", "53300", "57014"]);
// pg, pg-pool and Kysely report lost or closed connections with messages only, no code.
const GONE_MESSAGES = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /after calling end on the pool/,
  /is not queryable/,
  /driver has already been destroyed/,
  // query_timeout ran out: no answer came (a silent network, or a server that stopped answering).
  /^Query read timeout/,
];

/** Classifies a driver error: a constraint violation, an unreachable store, or anything else. */
export function classifyFailure(error: unknown): Failure {
  const code = codeOf(error);
  if (code !== undefined && UNIQUE.has(code)) return "unique";
  if (code !== undefined && FOREIGN_KEY.has(code)) return "foreignKey";
  return unreachable(error) ? "unavailable" : "other";
}

function unreachable(error: unknown): boolean {
  // Node reports a refused connection to every address of a host as one AggregateError.
  if (error instanceof AggregateError && error.errors.some(unreachable)) return true;
  const code = codeOf(error) ?? "";
  if (NETWORK.has(code) || PG_GONE.has(code)) return true;
  // A prepared statement another replica's migration or a pooler made stale: forgotten by its
  // connection (pg-prepared-statements.ts), so a retry prepares it afresh.
  if (isStalePreparedStatement(error)) return true;
  // Class 08 is "connection exception"; SQLITE_BUSY is what busy_timeout gives up with, and
  // SQLITE_CANTOPEN a database file that cannot be opened at all.
  if (/^08[0-9A-Z]{3}$/.test(code) || code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_CANTOPEN")) return true;
  return error instanceof Error && GONE_MESSAGES.some((m) => m.test(error.message));
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null || !("code" in error)) return undefined;
  return typeof error.code === "string" ? error.code : undefined;
}

/**
 * Folds an ancestor's rows of group_descendant_counts into one (kept even where they add up to
 * nothing), the folded row added before the rows it replaces are removed: what keeps the
 * ancestor's version (descendantCountsVersion, migration 0015) from ever coming back to a value
 * it had. On PostgreSQL one statement, which a concurrent insert's row (not yet visible) survives.
 */
export async function foldDescendantCounts(db: Executor, engine: Engine, ancestorUid: string): Promise<void> {
  if (engine === "postgres") {
    await sql`
      with moved as (delete from group_descendant_counts where ancestor_uid = ${ancestorUid} returning delta)
      insert into group_descendant_counts (ancestor_uid, delta)
      select ${ancestorUid}, coalesce(sum(delta), 0) from moved having count(*) > 0`.execute(db);
    return;
  }
  await inTransaction(db, async (tx) => {
    const { rows } = await sql<{ total: number | null; last: number | null }>`
      select sum(delta) as total, max(rowid) as last from ${descendantCounts(engine)} where ancestor_uid = ${ancestorUid}`.execute(tx);
    const { total, last } = rows[0] ?? { total: null, last: null };
    if (last === null) return;
    await tx
      .insertInto("group_descendant_counts")
      .values({ ancestor_uid: ancestorUid, delta: Number(total) })
      .execute();
    await sql`delete from ${descendantCounts(engine)} where ancestor_uid = ${ancestorUid} and rowid <= ${last}`.execute(tx);
  });
}

/**
 * `group_descendant_counts` as the statements that read it by ancestor name it: on SQLite through
 * its index by ancestor, whatever the planner's statistics say. Every such statement reads one
 * ancestor's rows, and the index is always the right way to them; but ANALYZE (an operator's, or
 * `PRAGMA optimize`) taken while one ancestor held most rows, as after a bulk load before its
 * first count folds them, tells SQLite that a key matches the whole table, and SQLite then scans
 * the table on every count: after 40,000 creates elsewhere, each page of a list of 10,000 groups
 * spent 1.6 ms counting one row (S8, bench/findings.md). INDEXED BY also makes the statement fail,
 * not slow down, should the index ever be gone. PostgreSQL's autovacuum keeps its statistics.
 */
export function descendantCounts(engine: Engine): RawBuilder<unknown> {
  return engine === "sqlite"
    ? sql`group_descendant_counts indexed by group_descendant_counts_ancestor_uid_idx`
    : sql`group_descendant_counts`;
}

/** The sum of the descendant counts of uids (none below another), and how many rows it read. */
export function sumDescendantCounts(
  engine: Engine,
  uids: readonly string[],
): RawBuilder<{ total: number | string; rows: number | string }> {
  return sql<{ total: number | string; rows: number | string }>`
    select coalesce(sum(delta), 0) as total, count(*) as "rows" from ${descendantCounts(engine)} where ancestor_uid in (${sql.join(uids)})`;
}

/**
 * The groups in the subtrees of a set of scopes (a subquery of one "key" column), as a FROM
 * clause naming them g: each scope an index range of uids (past `after` in uid order,
 * `descending` or not), the scopes read first, and on PostgreSQL at most `each` groups of a
 * scope. Each engine
 * must be told the order: PostgreSQL by a lateral subquery its limit keeps from being flattened,
 * SQLite by CROSS JOIN, which it never reorders; left to choose, both scanned every group and
 * probed the set (1 s a page at 100,000 groups).
 */
export function groupsInScopes(
  engine: Engine,
  scopes: Expression<string>,
  read: { each: number; descending: boolean; after?: string },
): RawBuilder<unknown> {
  const past = read.after === undefined ? sql`` : sql` and uid ${sql.raw(read.descending ? "<" : ">")} ${read.after}`;
  return engine === "postgres"
    ? sql`(${scopes}) as s cross join lateral (
        select * from groups where uid >= s."key" and uid < s."key" || '0'${past}
        order by uid ${sql.raw(read.descending ? "desc" : "asc")} limit ${read.each}
      ) as g`
    : sql`(${scopes}) as s cross join groups as g on g.uid >= s."key" and g.uid < s."key" || '0'${past}`;
}

/** The columns `last` and `n` of an ancestor's count version (migration 0015), as a select list; versionOf reads them. */
export function descendantCountsVersionColumns(engine: Engine, ancestorUid: string): RawBuilder<unknown> {
  const newest = engine === "postgres" ? sql.ref("seq") : sql`rowid`;
  return sql`
    (select max(${newest}) from ${descendantCounts(engine)} where ancestor_uid = ${ancestorUid}) as last,
    (select count(*) from ${descendantCounts(engine)} where ancestor_uid = ${ancestorUid}) as n`;
}

/** The row of descendantCountsVersionColumns. */
export interface VersionColumns {
  last: number | string | null;
  n: number | string;
}

/**
 * The version of an ancestor's descendant counts (migration 0015): the newest row's number and
 * how many rows there are, as one string; it changes whenever a group below it is made or
 * removed, and never comes back. Also how many rows a count of it reads, to know when to fold.
 */
export function versionOf({ last, n }: VersionColumns): { version: string; rows: number } {
  return { version: `${last ?? ""}:${Number(n)}`, rows: Number(n) };
}

/** descendantCountsVersion's columns read alone. */
export async function descendantCountsVersion(
  db: Executor,
  engine: Engine,
  ancestorUid: string,
): Promise<{ version: string; rows: number }> {
  const { rows } = await sql<VersionColumns>`select ${descendantCountsVersionColumns(engine, ancestorUid)}`.execute(db);
  const row = rows[0];
  if (row === undefined) throw new Error("a scalar select returned no row");
  return versionOf(row);
}

/**
 * Folds the rows of audit_event_counts (migration 0014) that match where into one per (group,
 * key), or none where they add up to nothing; the same reasoning as foldDescendantCounts. On
 * SQLite the folded rows are added first and the rows they replace (those up to the rowid seen
 * before) deleted after, all in one write transaction.
 */
export async function foldAuditCounts(db: Executor, engine: Engine, where: Expression<SqlBool>): Promise<void> {
  if (engine === "postgres") {
    await sql`
      with moved as (delete from audit_event_counts where ${where} returning group_uid, key, delta)
      insert into audit_event_counts (group_uid, key, delta)
      select group_uid, key, sum(delta) from moved group by group_uid, key having sum(delta) <> 0`.execute(db);
    return;
  }
  await inTransaction(db, async (tx) => {
    const { rows } = await sql<{ last: number | null }>`select max(rowid) as last from audit_event_counts`.execute(tx);
    const last = rows[0]?.last ?? 0;
    await sql`
      insert into audit_event_counts (group_uid, key, delta)
      select group_uid, key, sum(delta) from audit_event_counts where ${where} group by group_uid, key having sum(delta) <> 0`.execute(tx);
    await sql`delete from audit_event_counts where rowid <= ${last} and ${where}`.execute(tx);
  });
}

/**
 * Folds the rows of advisory_counts (migration 0022) that match where into one per key, or none
 * where they add up to nothing; the same reasoning as foldAuditCounts.
 */
export async function foldAdvisoryCounts(db: Executor, engine: Engine, where: Expression<SqlBool>): Promise<void> {
  if (engine === "postgres") {
    await sql`
      with moved as (delete from advisory_counts where ${where} returning key, delta)
      insert into advisory_counts (key, delta)
      select key, sum(delta) from moved group by key having sum(delta) <> 0`.execute(db);
    return;
  }
  await inTransaction(db, async (tx) => {
    const { rows } = await sql<{ last: number | null }>`select max(rowid) as last from advisory_counts`.execute(tx);
    const last = rows[0]?.last ?? 0;
    await sql`
      insert into advisory_counts (key, delta)
      select key, sum(delta) from advisory_counts where ${where} group by key having sum(delta) <> 0`.execute(tx);
    await sql`delete from advisory_counts where rowid <= ${last} and ${where}`.execute(tx);
  });
}

/**
 * The advisories whose search text holds a lowercased substring, by the trigram index (migration
 * 0022), as a condition on `advisories`. On SQLite a text of three characters or more is an FTS5
 * phrase of its trigrams, which holds exactly where the text is a substring (trigramPhrase), read
 * off the index alone; a shorter one has no trigram, and GLOB tests every advisory's text (its
 * wildcards escaped, so it is the substring rule; both sides are lowercased, so GLOB's
 * case-sensitivity is LIKE's ASCII case-folding). On PostgreSQL the texts are looked up in their
 * narrow table (migration 0031: each candidate pg_trgm's lossy index gives is tested on a row of a
 * uid and a text, not of a whole document), by its pg_trgm index when the migration could make it,
 * by a scan of it when not; a text pg_trgm finds no trigram in is tested on each advisory row
 * (pgSearchTest), never by that index: such texts match many, whose rows the page reads anyway.
 * window, a part of text (src/store/trigram-window.ts), is looked up instead of the whole on both
 * engines, each of its candidates then tested for the whole text.
 */
export function searchCondition(engine: Engine, text: string, window?: string): Expression<SqlBool> {
  if (engine === "postgres") {
    if (!pgIndexable(text)) return pgSearchTest(text);
    return sql<SqlBool>`advisories.uid in (select t.uid from advisory_texts t where ${pgTextCondition(text, window)})`;
  }
  return sql<SqlBool>`advisories.uid in (select t.uid from advisory_texts t where t.id in (${searchRowids(text, window)}))`;
}

/**
 * PostgreSQL: the substring rule on a row of `advisory_texts` named t, for a text pgIndexable
 * takes: LIKE, which pg_trgm's index serves, of the whole text or of window, a part of it (letters
 * and digits alone, so no wildcard) looked up with each candidate tested for the whole.
 */
function pgTextCondition(text: string, window?: string): Expression<SqlBool> {
  if (window !== undefined && pgIndexable(window) && text.includes(window)) {
    return sql<SqlBool>`t.search like ${`%${escapeLike(window)}%`} and ${pgSearchTest(text, "t")}`;
  }
  return sql<SqlBool>`t.search like ${`%${escapeLike(text)}%`}`;
}

/**
 * PostgreSQL: whether pg_trgm's index can narrow a search for text, which takes a run of three
 * letters or digits: LIKE's trigrams are those of the text's runs of word characters. With none
 * (`%`, `-`, `go`, a text of letters the database's locale does not count as word characters),
 * the index has no trigram to look up and reads itself whole, every entry of every advisory, and
 * each row is then read and tested as well: 3 to 4 s at 500,000 advisories, where one pass over
 * the table takes 0.4 s (findings, "A query's worst case"). Only ASCII letters and digits are
 * counted, which are word characters in every locale; a run of others makes the search a scan,
 * never the index's whole read.
 */
export function pgIndexable(text: string): boolean {
  return /[a-z0-9]{3}/i.test(text);
}

/**
 * PostgreSQL: the substring rule on one row's search column, of `advisories` or of
 * `advisory_texts` named t, written so that no index serves it: for a text pgIndexable refuses,
 * for a walk testing each row in the list's order, and for each candidate of a part looked up.
 */
function pgSearchTest(text: string, row: "advisories" | "t" = "advisories"): Expression<SqlBool> {
  return sql<SqlBool>`strpos(${sql.raw(row)}.search, ${text}) > 0`;
}

/**
 * The rowids of advisory_texts (SQLite) whose search text holds text: the phrase of text, or where
 * window (a part of text, src/store/trigram-window.ts) is given, the phrase of window, each of
 * its advisories then tested for the whole text.
 */
function searchRowids(text: string, window?: string): RawBuilder<unknown> {
  const part = window !== undefined && text.includes(window) ? trigramPhrase(window) : undefined;
  if (part !== undefined) {
    return sql`select t.id as id from advisory_texts t
      where t.id in (select rowid from advisory_search where advisory_search match ${part}) and instr(t.search, ${text}) > 0`;
  }
  const phrase = trigramPhrase(text);
  return phrase === undefined
    ? sql`select rowid as id from advisory_search where search glob ${globOf(text)}`
    : sql`select rowid as id from advisory_search where advisory_search match ${phrase}`;
}

/**
 * The FTS5 query that holds exactly where text is a substring of the search text, or undefined
 * for a text shorter than a trigram. The trigram tokenizer makes every three consecutive
 * characters of a text a token at consecutive positions, so a phrase of text's trigrams holds
 * where they stand consecutively: where text itself does. Its case folding (upper case to lower,
 * no diacritics removed) changes nothing of text or search text, both lowercased already.
 */
export function trigramPhrase(text: string): string | undefined {
  if ([...text].length < 3) return undefined;
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * The same test on one advisory row's search column, written so no index serves it: for a page
 * that walks advisories in the list's order, testing each until the page is full. On PostgreSQL
 * a text pg_trgm can look up is tested by LIKE, which the planner guesses from the column's
 * statistics (strpos it guesses at a fixed fraction): the form planned for its guess of a
 * `query`'s matches, too (pgSearchPart's estimates).
 */
export function searchTest(engine: Engine, text: string): Expression<SqlBool> {
  if (engine === "sqlite") return sql<SqlBool>`advisories.search glob ${globOf(text)}`;
  return pgIndexable(text) ? sql<SqlBool>`advisories.search like ${`%${escapeLike(text)}%`}` : pgSearchTest(text);
}

/** SQLite: the advisories whose `advisory_texts` rows are these (a query's matches, found before). */
export function searchRowidsCondition(rowids: readonly number[]): Expression<SqlBool> {
  return sql<SqlBool>`advisories.uid in (select t.uid from advisory_texts t
    where t.id in (select value from json_each(${JSON.stringify(rowids)})))`;
}

/** SQLite: the rowids of at most limit of searchCondition's matches: all of them when fewer. */
export function searchProbe(text: string, limit: number, window?: string): RawBuilder<{ id: number }> {
  return sql<{ id: number }>`select c.id from (${searchRowids(text, window)} limit ${limit}) as c`;
}

/**
 * How many advisories searchCondition holds: on SQLite the phrase's matches off the FTS5 index
 * alone, or the window's, each tested for the whole text; on PostgreSQL the rows of the narrow
 * `advisory_texts` (one per advisory) among the trigram candidates of text or of its window, each
 * tested exactly, or all of them tested where pg_trgm finds no trigram in text (pgIndexable).
 */
export function searchCount(engine: Engine, text: string, window?: string): RawBuilder<{ n: number | string }> {
  if (engine === "sqlite") return sql<{ n: number | string }>`select count(*) as n from (${searchRowids(text, window)}) as c`;
  return sql<{ n: number | string }>`select count(*) as n from advisory_texts t where ${pgTextsHolding(text, window)}`;
}

/**
 * PostgreSQL: the uids of the advisories whose search text holds text, read off `advisory_texts`
 * alone (searchCount's rows): all a page in uid order needs of its matches, without a lookup of
 * each in `advisories` (7,631 of them took 10 of `rustsec`'s 20 ms at 500,000 advisories).
 */
export function pgSearchUids(text: string, window?: string): RawBuilder<{ uid: string }> {
  return sql<{ uid: string }>`select t.uid from advisory_texts t where ${pgTextsHolding(text, window)}`;
}

/** PostgreSQL: the substring rule on a row of `advisory_texts` named t, by its index where pg_trgm has a trigram to look up. */
function pgTextsHolding(text: string, window?: string): Expression<SqlBool> {
  return pgIndexable(text) ? pgTextCondition(text, window) : pgSearchTest(text, "t");
}

/** LIKE's wildcards (and its escape, PostgreSQL's default backslash) taken literally. */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A GLOB pattern for "contains text": its wildcards bracketed, so each matches only itself. */
function globOf(text: string): string {
  return `*${text.replace(/[*?[]/g, (c) => `[${c}]`)}*`;
}
