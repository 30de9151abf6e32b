/**
 * An AdvisoryWriter that writes from a thread of its own (advisory-write-worker.ts), for a large
 * import. SQLite runs in the thread that calls it, so an import that read, checked and prepared
 * its documents and wrote them in one thread ran the two one after the other; with the writes in
 * a second thread they run side by side, on a second core. 500,000 documents (docs/benchmarks.md,
 * ADVISORIES): about 50 s of reading, checking and preparing and about 70 s of writing, which
 * took 118 s in one thread.
 *
 * PostgreSQL writes in the server, but building each statement and encoding its parameters for
 * the wire is JavaScript too: with it in the importing thread, that thread bounded the import
 * (about 80 % of a core busy, the server about half of one). Through the thread the first import
 * of 500,000 documents took 129 and 137 s instead of 151 s (scratch runs, 2026-11-27).
 */
import { Worker } from "node:worker_threads";
import type { PreparedAdvisory } from "../domain/advisories.js";
import { ApiError, Code, internal, unavailable } from "../domain/errors.js";
import type { AdvisoryWriter, PutOutcome } from "./advisory-store.js";
import type { StoreOptions } from "./create-store.js";
import { sqliteStore } from "./dialect.js";

/** What the writer thread opens: the store's location and its connection's settings, as createStore takes them. */
export type WriterThreadOptions = Pick<
  StoreOptions,
  "databaseUrl" | "schema" | "queryTimeoutMs" | "synchronousCommit" | "dataDir" | "sqliteCacheMb" | "sqliteCheckpointPages" | "sqliteReader"
>;

/** A request to the writer thread. */
export type WriterRequest =
  { id: number; op: "put"; prepared: readonly PreparedAdvisory[]; time: number } | { id: number; op: "fold" } | { id: number; op: "close" };

/** The writer thread's answer to the request of the same id. */
export type WriterReply =
  { id: number; ok: true; outcomes: PutOutcome[] } | { id: number; ok: false; error: { code?: Code; message: string; cause?: string } };

/** A writer thread: close() ends it (once; calling it again waits for that), and must be called however the import ends. */
export interface AdvisoryWriterThread extends AdvisoryWriter {
  /** Documents per write through it (THREAD_BATCH_SIZE). */
  readonly batchSize: number;
  close(): Promise<void>;
}

/**
 * Documents per write through the thread, by engine: a batch is then held twice, prepared in the
 * importing thread and copied into the writer's, beside the next one being read. 500,000
 * documents (scratch runs, 2026-11-27): on SQLite in batches of 1,000, 122 s and a peak RSS of
 * 430 MB, of 500, 128 s and 365 MB; on PostgreSQL (commits still synchronous) in batches of 500,
 * 112 and 133 s and 389 and 391 MB, of 300, 129 and 137 s and 362 and 358 MB (a PostgreSQL
 * commit costs little more for fewer rows).
 */
const THREAD_BATCH_SIZE = { sqlite: 500, postgres: 300 } as const;

/** The writer thread's young generation. */
const WRITER_YOUNG_GENERATION_MB = 12;

/** Starts a thread writing into the store options locate (PostgreSQL's with a databaseUrl, else SQLite's at dataDir). */
export function openAdvisoryWriterThread(options: WriterThreadOptions): AdvisoryWriterThread {
  const worker = new Worker(workerUrl(), {
    workerData: {
      databaseUrl: options.databaseUrl,
      schema: options.schema,
      queryTimeoutMs: options.queryTimeoutMs,
      synchronousCommit: options.synchronousCommit,
      dataDir: options.dataDir,
      sqliteCacheMb: options.sqliteCacheMb,
      sqliteCheckpointPages: options.sqliteCheckpointPages,
      sqliteReader: options.sqliteReader,
    } satisfies WriterThreadOptions,
    // Its garbage is a batch's rows, which live until their statement ran. The import's memory
    // figures (docs/benchmarks.md) were measured with this limit; whether V8 applies it beside the
    // process's --max-semi-space-size was not isolated (the thread's heap measured 43 to 65 MB).
    resourceLimits: { maxYoungGenerationSizeMb: WRITER_YOUNG_GENERATION_MB },
  });
  const pending = new Map<number, { resolve: (outcomes: PutOutcome[]) => void; reject: (e: unknown) => void }>();
  let nextId = 0;
  let stopped: ApiError | undefined;
  let closed: Promise<void> | undefined;
  const stop = (why: ApiError) => {
    stopped ??= why;
    for (const { reject } of pending.values()) reject(stopped);
    pending.clear();
  };
  worker.on("message", (reply: WriterReply) => {
    const waiting = pending.get(reply.id);
    if (waiting === undefined) return;
    pending.delete(reply.id);
    if (reply.ok) waiting.resolve(reply.outcomes);
    else waiting.reject(errorOf(reply.error));
  });
  // The writer gone is the store gone for this import: UNAVAILABLE ends it (import-advisories.ts).
  worker.on("error", (e) => stop(unavailable("the import's writer thread failed", e)));
  worker.on("exit", (code) => stop(unavailable(`the import's writer thread ended (exit code ${code})`)));
  const ask = (request: WriterRequest): Promise<PutOutcome[]> =>
    new Promise((resolve, reject) => {
      if (stopped !== undefined) return reject(stopped);
      pending.set(request.id, { resolve, reject });
      worker.postMessage(request);
    });
  return {
    batchSize: THREAD_BATCH_SIZE[sqliteStore(options) ? "sqlite" : "postgres"],
    putPrepared: (prepared, time) => (prepared.length === 0 ? Promise.resolve([]) : ask({ id: nextId++, op: "put", prepared, time })),
    foldCounts: async () => void (await ask({ id: nextId++, op: "fold" })),
    close() {
      closed ??= (async () => {
        try {
          if (stopped === undefined) await ask({ id: nextId++, op: "close" });
        } finally {
          await worker.terminate();
        }
      })();
      return closed;
    },
  };
}

/** The error the writer thread answered with, as the import reads errors (its code, its cause's words). */
function errorOf(error: { code?: Code; message: string; cause?: string }): ApiError {
  const cause = error.cause === undefined ? undefined : new Error(error.cause);
  if (error.code === undefined) return internal(new Error(error.message, { cause }));
  return new ApiError(error.code, error.message, {}, { cause });
}

/**
 * The worker's module beside this one: dist/src/store/ compiled, dist/cli/ bundled (an entry of
 * its own, scripts/bundle-cli.mjs). Run from the TypeScript sources (the tests), the compiled one,
 * which `npm test` builds before it runs them.
 */
function workerUrl(): URL {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new URL("./advisory-write-worker.js", here);
  return new URL("../../dist/src/store/advisory-write-worker.js", here);
}
