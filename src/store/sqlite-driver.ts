/**
 * SQLite with a writer and a reader connection. Kysely's own SQLite driver has one connection,
 * which every statement waits for while a transaction holds it: a read waited for the commit of
 * any transaction open, and transactions could not be committed together, since the requests
 * that would join a group wait on their reads first (ambient-transaction.ts, groupCommitter).
 *
 * Here a transaction, and a write outside one, hold the writer, one at a time (WriterLock). A
 * statement outside a transaction that SQLite says does not write (`sqlite3_stmt_readonly`) runs
 * at once on the reader, which in WAL mode reads what is committed, as a PostgreSQL connection
 * beside the transaction would; pragmas, which tune a connection, go to the writer. Without a
 * reader (StoreOptions.sqliteReader false, a bulk import) reads take the writer in turn, as
 * everything did before.
 */
import type BetterSqlite3 from "better-sqlite3";
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult, type TransactionSettings } from "kysely";
import { inlineLimits } from "./sqlite-limits.js";

/** A connection the driver opens; both are opened alike. */
export interface SqliteConnectionLike {
  prepare(sql: string): BetterSqlite3.Statement;
  /** Whether a transaction is open on the connection (SQLite ends one by itself on some errors). */
  readonly inTransaction: boolean;
  close(): void;
}

/** The connections, opened on init: without a reader, reads take the writer in turn. */
export interface ReaderWriter {
  readonly writer: SqliteConnectionLike;
  /** Opened again when the planner's statistics change (refreshStatistics). */
  reader: SqliteConnectionLike | undefined;
}

/** How the driver opens its connections: the writer, and a reader unless reads take the writer. */
export interface ConnectionOpeners {
  writer(): SqliteConnectionLike;
  reader: (() => SqliteConnectionLike) | undefined;
}

/** The planner's statistics as sqlite_stat1 holds them, to see that they changed; empty without any. */
function statisticsOf(connection: SqliteConnectionLike): string {
  if (connection.prepare("select 1 from sqlite_schema where name = 'sqlite_stat1'").all().length === 0) return "";
  const rows = connection.prepare("select tbl, idx, stat from sqlite_stat1 order by tbl, idx").all() as Record<string, unknown>[];
  return JSON.stringify(rows);
}

/**
 * A pragma sets or reads a connection's own state (its cache, its threads), which SQLite counts
 * as reading: it belongs to the writer, where the work it tunes runs.
 */
const PRAGMA = /^\s*pragma\b/i;

/** Whether each statement text only reads, as SQLite said when it was first run; bounded. */
const readOnlyTexts = new Map<string, boolean>();
const MAX_READ_ONLY_TEXTS = 4_096;

/** Whether the statement may run on the reader: it writes nothing, and is no pragma. */
function readsOnly(reader: SqliteConnectionLike, text: string): boolean {
  let known = readOnlyTexts.get(text);
  if (known === undefined) {
    known = !PRAGMA.test(text) && reader.prepare(text).readonly;
    if (readOnlyTexts.size >= MAX_READ_ONLY_TEXTS) readOnlyTexts.clear();
    readOnlyTexts.set(text, known);
  }
  return known;
}

/** Serialises the writer's holders: transactions, and writes outside one. */
class WriterLock {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  async take(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return;
    }
    await new Promise<void>((resolve) => this.#waiting.push(resolve));
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#held = false;
    else next();
  }
}

/** What Kysely acquires: the writer once a transaction began on it, else either by statement. */
class Lease implements DatabaseConnection {
  inTransaction = false;
  readonly connections: ReaderWriter;
  readonly lock: WriterLock;

  constructor(connections: ReaderWriter, lock: WriterLock) {
    this.connections = connections;
    this.lock = lock;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    // A bound LIMIT would have the statement prepared again on every run (sqlite-limits.ts).
    const statement = inlineLimits(compiled.sql, compiled.parameters);
    if (this.inTransaction) return run<R>(this.connections.writer, statement);
    const { reader } = this.connections;
    if (reader !== undefined && readsOnly(reader, statement.sql)) return run<R>(reader, statement);
    await this.lock.take();
    try {
      return run<R>(this.connections.writer, statement);
    } finally {
      this.lock.give();
    }
  }

  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("the SQLite store does not stream queries");
  }
}

function run<R>(connection: SqliteConnectionLike, { sql, parameters }: { sql: string; parameters: readonly unknown[] }): QueryResult<R> {
  const statement = connection.prepare(sql);
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return {
    insertId: lastInsertRowid != null ? BigInt(lastInsertRowid) : undefined,
    numAffectedRows: changes != null ? BigInt(changes) : undefined,
    rows: [],
  };
}

export class ReaderWriterSqliteDriver implements Driver {
  #connections: ReaderWriter | undefined;
  readonly #lock = new WriterLock();
  readonly #open: ConnectionOpeners;
  /** statisticsOf when the reader last opened or refreshStatistics last looked. */
  #statistics = "";

  constructor(open: ConnectionOpeners) {
    this.#open = open;
  }

  async init(): Promise<void> {
    const writer = this.#open.writer();
    this.#connections = { writer, reader: this.#open.reader?.() };
    this.#statistics = statisticsOf(writer);
  }

  /**
   * Brings the query planner's statistics of `tables` up to date, by the rule SQLite's `PRAGMA
   * optimize` applies: a table is analyzed, in full, when one of its indexes never was, or when
   * its size changed tenfold since. Holds the writer meanwhile: the check reads each table's size
   * off its b-tree, an analysis reads the table and its indexes once. Then, when the statistics
   * changed (these, or another connection's: an operator's ANALYZE, an advisory import's), both
   * connections plan by them. Returns the tables analyzed.
   */
  async refreshStatistics(tables: readonly string[]): Promise<string[]> {
    const connections = this.#connections;
    // Not opened yet: the connections load the statistics there are when they open.
    if (connections === undefined) return [];
    await this.#lock.take();
    try {
      const { writer } = connections;
      // 0x10000: look at every table, not only those this connection planned a query of since it
      // opened (the reader plans most); 0x2: analyze; 0x1: only list the tables it would analyze.
      const listed = run<{ optimize: string }>(writer, CompiledQuery.raw("pragma optimize = 0x10003")).rows;
      const due = tables.filter((table) => listed.some((row) => row.optimize === `ANALYZE "main"."${table}"`));
      // Full, not sampled (analysis_limit): only a full analysis keeps the samples (sqlite_stat4)
      // by which SQLite estimates a range from its bounds.
      for (const table of due) run(writer, CompiledQuery.raw(`analyze "main"."${table}"`));
      const statistics = statisticsOf(writer);
      if (statistics !== this.#statistics) {
        // A connection plans by the statistics it loaded, whoever writes new ones. The writer
        // loads them again in place (its own ANALYZE already did); the reader is opened anew,
        // since loading them in place (ANALYZE sqlite_schema) takes the write lock, which another
        // process's write may hold for seconds while the event loop waits.
        if (due.length === 0) run(writer, CompiledQuery.raw("analyze sqlite_schema"));
        const { reader } = connections;
        if (reader !== undefined && this.#open.reader !== undefined) {
          connections.reader = this.#open.reader();
          reader.close();
        }
        this.#statistics = statistics;
      }
      return due;
    } finally {
      this.#lock.give();
    }
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new Lease(this.#connections as ReaderWriter, this.#lock);
  }

  /**
   * IMMEDIATE: a deferred transaction that reads and then writes fails at once with SQLITE_BUSY
   * when another process wrote meanwhile; IMMEDIATE takes the write lock up front, so
   * busy_timeout applies.
   */
  async beginTransaction(connection: DatabaseConnection, _settings: TransactionSettings): Promise<void> {
    await this.#lock.take();
    try {
      run((this.#connections as ReaderWriter).writer, CompiledQuery.raw("begin immediate"));
    } catch (error) {
      this.#lock.give();
      throw error;
    }
    (connection as Lease).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection, "commit");
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await this.#end(connection, "rollback");
  }

  /**
   * Ends the transaction and gives the writer up. A commit that failed with the transaction still
   * open keeps it, for the rollback Kysely makes next; a rollback always gives it up, so a failed
   * one leaves the next begin to fail rather than every write to wait for ever.
   */
  async #end(connection: DatabaseConnection, how: "commit" | "rollback"): Promise<void> {
    const lease = connection as Lease;
    const writer = (this.#connections as ReaderWriter).writer;
    try {
      run(writer, CompiledQuery.raw(how));
    } finally {
      if (lease.inTransaction && (how === "rollback" || !writer.inTransaction)) {
        lease.inTransaction = false;
        this.#lock.give();
      }
    }
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    this.#connections?.reader?.close();
    this.#connections?.writer.close();
  }
}
