/**
 * The thread SQLite's search counts run in (search-count-thread.ts opens it): a read-only
 * connection of its own to the store's database, running the count statements it is sent, each
 * answered with its one number. It loads nothing of the store but better-sqlite3.
 */
import { parentPort, workerData } from "node:worker_threads";
import BetterSqlite3 from "better-sqlite3";
import type { CountReply, CountRequest, CountThreadOptions } from "./search-count-thread.js";

const port = parentPort;
if (port === null) throw new Error("search-count-worker.js runs as a worker thread only");
const { file, busyTimeoutMs } = workerData as CountThreadOptions;
// Read and write opened, so it reads the WAL as the store's own connection does, but made unable
// to change anything: it only ever counts.
const db = new BetterSqlite3(file, { fileMustExist: true });
db.pragma(`busy_timeout = ${busyTimeoutMs}`);
db.pragma("query_only = ON");

/** The statements sent so far, by text: a handful of shapes, their parameters bound anew each time. */
const statements = new Map<string, BetterSqlite3.Statement>();
const MAX_STATEMENTS = 32;

port.on("message", (request: CountRequest) => {
  let reply: CountReply;
  try {
    let statement = statements.get(request.sql);
    if (statement === undefined) {
      statement = db.prepare(request.sql);
      if (!statement.reader) throw new Error("only statements that return rows are counted here");
      if (statements.size >= MAX_STATEMENTS) statements.delete(statements.keys().next().value as string);
      statements.set(request.sql, statement);
    }
    const row = statement.get(...request.parameters) as { n?: number | bigint | string } | undefined;
    reply = { id: request.id, ok: true, n: Number(row?.n ?? 0) };
  } catch (e) {
    reply = { id: request.id, ok: false, message: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(reply);
});
