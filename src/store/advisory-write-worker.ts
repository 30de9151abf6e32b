/**
 * The thread a large import writes its advisories from (advisory-writer-thread.ts opens it): its
 * own connection to the store's database, and the advisory store's own writes over it.
 * It runs no migration and builds nothing; the importing thread's connection does both.
 */
import { parentPort, workerData } from "node:worker_threads";
import { Kysely } from "kysely";
import { isApiError } from "../domain/errors.js";
import { createAdvisoryStore } from "./advisory-store.js";
import { engineSetup } from "./dialect.js";
import type { Database } from "./tables.js";
import type { WriterRequest, WriterReply, WriterThreadOptions } from "./advisory-writer-thread.js";

const port = parentPort;
if (port === null) throw new Error("advisory-write-worker.js runs as a worker thread only");
const options = workerData as WriterThreadOptions;
const setup = engineSetup(options);
const db = new Kysely<Database>({ dialect: setup.dialect });
const advisories = createAdvisoryStore(db, setup.engine);

// One request at a time, in the order sent: the importing thread awaits each write before the next.
let queue: Promise<void> = Promise.resolve();
port.on("message", (request: WriterRequest) => {
  queue = queue.then(() => answer(request));
});

async function answer(request: WriterRequest): Promise<void> {
  let reply: WriterReply;
  try {
    if (request.op === "close") {
      await db.destroy();
      reply = { id: request.id, ok: true, outcomes: [] };
    } else if (request.op === "fold") {
      await advisories.foldCounts();
      reply = { id: request.id, ok: true, outcomes: [] };
    } else {
      reply = { id: request.id, ok: true, outcomes: await advisories.putPrepared(request.prepared, request.time) };
    }
  } catch (e) {
    // An ApiError crosses as its code and words, and its cause's (the driver's) words, which the import reports.
    const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : undefined;
    reply = {
      id: request.id,
      ok: false,
      error: {
        ...(isApiError(e) && { code: e.code }),
        message: e instanceof Error ? e.message : String(e),
        ...(cause !== undefined && { cause }),
      },
    };
  }
  port?.postMessage(reply);
}
