/**
 * SQLite: a `query`'s exact count from a thread of its own (issue 19, item 2). SQLite runs in the
 * thread that calls it, and the count of a common word is FTS5's phrase read over all of its
 * matches (`injection`, 65,677 of 500,000 advisories: about 19 ms), while the page needs only
 * 50 of them. From a second thread the count runs beside the page's own reads (its probe, its
 * walk, its 50 rows: about 2 ms) instead of after them, and leaves the server's thread free for
 * other requests meanwhile.
 *
 * The thread starts at its first count and keeps a read-only connection to the database; its
 * reads see what is committed when each runs, as the server's own connection does. A count it
 * cannot give (the thread failed to start or died) is the caller's to count itself.
 */
import { Worker } from "node:worker_threads";
import type { CompiledQuery } from "kysely";

/** What the thread opens. */
export interface CountThreadOptions {
  /** The database file. */
  file: string;
  busyTimeoutMs: number;
}

/** A statement to run, its first row's `n` the answer. */
export interface CountRequest {
  id: number;
  sql: string;
  parameters: readonly unknown[];
}

/** The thread's answer to the request of the same id. */
export type CountReply = { id: number; ok: true; n: number } | { id: number; ok: false; message: string };

/** Counts from a thread of their own; close() ends the thread, and counting after it starts another. */
export interface CountThread {
  count(query: CompiledQuery): Promise<number>;
  close(): Promise<void>;
}

/**
 * The thread's heap limits: it holds a connection and a few prepared statements, and its answers
 * are numbers.
 */
const RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 4, maxOldGenerationSizeMb: 32 };

/** After the thread failed, how long counts are refused (and counted by the caller) before one starts it again. */
const RESTART_AFTER_MS = 30_000;

export function countThread(options: CountThreadOptions): CountThread {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, { resolve: (n: number) => void; reject: (e: Error) => void }>();
  // A thread that cannot start (or dies at once) is not started again for every search.
  let failed: { at: number; why: Error } | undefined;

  const fail = (from: Worker, why: Error) => {
    if (worker === from) {
      worker = undefined;
      failed = { at: Date.now(), why };
    }
    for (const { reject } of pending.values()) reject(why);
    pending.clear();
  };

  const start = (): Worker => {
    const started = new Worker(workerUrl(), { workerData: options satisfies CountThreadOptions, resourceLimits: RESOURCE_LIMITS });
    started.on("message", (reply: CountReply) => {
      const waiting = pending.get(reply.id);
      if (waiting === undefined) return;
      pending.delete(reply.id);
      if (pending.size === 0) started.unref();
      if (reply.ok) waiting.resolve(reply.n);
      else waiting.reject(new Error(`the search count thread: ${reply.message}`));
    });
    started.on("error", (e) => fail(started, new Error("the search count thread failed", { cause: e })));
    started.on("exit", (code) => fail(started, new Error(`the search count thread ended (exit code ${code})`)));
    // Idle, it keeps no process alive (a command that counted and returns exits as before);
    // counting, it does, so that the answer arrives.
    started.unref();
    return started;
  };

  return {
    count(query) {
      if (worker === undefined && failed !== undefined && Date.now() - failed.at < RESTART_AFTER_MS) return Promise.reject(failed.why);
      worker ??= start();
      const to = worker;
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        to.ref();
        to.postMessage({ id, sql: query.sql, parameters: query.parameters } satisfies CountRequest);
      });
    },
    async close() {
      const was = worker;
      worker = undefined;
      if (was !== undefined) await was.terminate();
      // Ended on purpose, not failed: the next count starts it at once.
      failed = undefined;
    },
  };
}

/**
 * The worker's module beside this one: dist/src/store/ compiled, dist/cli/ bundled (an entry of
 * its own, scripts/bundle-cli.mjs). Run from the TypeScript sources (the tests), the compiled one,
 * which `npm test` builds before it runs them.
 */
function workerUrl(): URL {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return new URL("./search-count-worker.js", here);
  return new URL("../../dist/src/store/search-count-worker.js", here);
}
