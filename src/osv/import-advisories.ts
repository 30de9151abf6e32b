/**
 * Imports OSV documents into the store (DESIGN 1.10): each is checked against the OSV schema,
 * and an invalid one is reported with its source and reason and skipped. Valid documents are
 * written in batches, one transaction each; when a batch fails, its documents are written again
 * one per transaction, so one the store refuses costs only itself. Re-import is idempotent: a
 * document replaces the stored one only when its `modified` is newer. A document whose bytes
 * hash to those a stored advisory was imported from is that advisory as stored: it is counted
 * unchanged without being checked or written (what makes re-importing all of OSV cheap). A large
 * first import (BULK_AFTER) builds the store's secondary indexes, counts and search index once at
 * its end (src/store/advisory-deferred.ts), however it ends.
 */
import { createHash } from "node:crypto";
import { advisoryVersion, prepareAdvisory, type AdvisoryVersion, type PreparedAdvisory } from "../domain/advisories.js";
import { systemClock, type Clock } from "../domain/clock.js";
import { Code, isApiError } from "../domain/errors.js";
import type { OsvDocument } from "../domain/osv.js";
import type { AdvisoryStore, AdvisoryWriter, PutOutcome } from "../store/advisory-store.js";
import type { AdvisoryWriterThread } from "../store/advisory-writer-thread.js";
import type { SourceItem } from "./source-item.js";
import { createOsvChecker, type OsvChecker } from "./validate.js";

/** What an import did. */
export interface ImportSummary {
  /** New advisories. */
  imported: number;
  /** Advisories replaced by a newer version. */
  updated: number;
  /** Documents not newer than what the store holds. */
  unchanged: number;
  /** Documents that were invalid or could not be read or written. */
  skipped: number;
  /** Paths or archives that could not be read at all. */
  unreadable: number;
}

/** How an import reports as it goes. */
export interface ImportOptions {
  /** Documents per transaction. */
  batchSize?: number;
  /** Bytes of documents from which a batch is written before it has batchSize documents (MAX_BATCH_BYTES). */
  batchBytes?: number;
  /** A document was passed over, and why. */
  onSkip?: (source: string, reason: string) => void;
  /** A path or archive could not be read at all, and why. */
  onUnreadable?: (source: string, reason: string) => void;
  /** `done` documents have been read (and all but the last three batches written). */
  onProgress?: (done: number) => void;
  /** Stops the import between two documents (a shutdown); what was written stays, whole. */
  signal?: AbortSignal;
  /** A document passed the schema check and is about to be written (the feed sync notes the newest `modified`). */
  onDocument?: (document: OsvDocument) => void;
  /** Dates the advisories new to the store (their createTime), read once per batch; the system clock by default. */
  clock?: Clock;
  /** Documents written (new or newer) from which the import refreshes the store's statistics at its end. */
  statisticsAfter?: number;
  /** How many documents the sources hold, when known (an archive's directory says): a large first import builds its indexes at its end. */
  expected?: number;
  /** Expected documents from which an import into a store holding no advisory builds its indexes at its end (BULK_AFTER). */
  bulkAfter?: number;
  /** The documents are written and the indexes a bulk import deferred are being built. */
  onBuilding?: () => void;
  /**
   * Opens what a bulk import writes through instead of the store's advisories: a thread writing
   * into the same SQLite store (src/store/advisory-writer-thread.ts), so that the writing runs
   * beside the reading, checking and preparing instead of after them. The import closes it once
   * its last write has ended, however it ends, and before it builds what it deferred (the
   * thread's heap and page cache are memory the build can use).
   */
  bulkWriter?: () => AdvisoryWriterThread;
}

/** A document read, not yet looked up or written. */
interface ReadDocument {
  source: string;
  bytes: Uint8Array;
  hash: string;
}

/** Documents per transaction: large enough to amortise the commit, small enough to hold the write lock briefly. */
export const DEFAULT_BATCH_SIZE = 500;

/**
 * The most bytes of documents a batch holds: one is written once it has them, whatever its count.
 * A batch's documents are held until it is written, and up to three batches are under way (read,
 * looked up, written), so counting documents alone let a small archive take gigabytes: 40 entries
 * of a 35 KB zip that all point at one 32 MB deflate stream took 1.67 GB.
 */
export const MAX_BATCH_BYTES = 64 * 1024 * 1024;

export function emptySummary(): ImportSummary {
  return { imported: 0, updated: 0, unchanged: 0, skipped: 0, unreadable: 0 };
}

/** Imports the documents of items into store. UNAVAILABLE from the store ends the import. */
export async function importAdvisories(
  store: { advisories: AdvisoryStore },
  items: AsyncIterable<SourceItem>,
  options: ImportOptions = {},
  check: OsvChecker = createOsvChecker(),
): Promise<ImportSummary> {
  const summary = emptySummary();
  const skip = (source: string, reason: string) => {
    summary.skipped++;
    options.onSkip?.(source, reason);
  };
  const clock = options.clock ?? systemClock;
  let bulk = false;
  let writer: AdvisoryWriter = store.advisories;
  let read: ReadDocument[] = [];
  let readBytes = 0;
  let done = 0;
  let flushes = 0;
  // One batch is written while the next is read and checked: on PostgreSQL the server's work
  // (indexes, triggers) then runs beside the importer's instead of after it. Batches are
  // written one after the other, in order, as before.
  let writing: Promise<void> = Promise.resolve();
  let failed: { error: unknown } | undefined;
  const written = async () => {
    await writing;
    if (failed !== undefined) throw failed.error;
  };
  // A batch's hashes are looked up as soon as it is read, and the answer read at the next flush:
  // on PostgreSQL the lookup's round trip then runs beside the reading of the next batch, not
  // before it (a re-import of all of OSV makes a thousand of them). Into a store that held
  // nothing, a document is known only when this import met its bytes before (a document twice in
  // the archives): written again, it is unchanged all the same (the store decides), and the
  // importing thread's connection need not read while another writes. A document met again in the
  // next batch, looked up before its first meeting was written, is written again likewise.
  let pending: { read: ReadDocument[]; known: Promise<Set<string>> } | undefined;
  const lookUp = (docs: ReadDocument[]): Promise<Set<string>> => {
    const known = store.advisories.knownHashes(docs.map((r) => r.hash));
    // Read at the next flush; until then a failure is held, not unhandled.
    known.catch(() => undefined);
    return known;
  };
  const processBatch = async (docs: ReadDocument[], known: Set<string>) => {
    const batch: { source: string; prepared: PreparedAdvisory }[] = [];
    for (const { source, bytes, hash } of docs) {
      if (known.has(hash)) {
        summary.unchanged++;
        // The bytes passed the check when they were stored; the feed sync still notes each document.
        if (options.onDocument !== undefined) options.onDocument(JSON.parse(Buffer.from(bytes).toString("utf8")) as OsvDocument);
        continue;
      }
      const checked = check(bytes);
      if ("problem" in checked) skip(source, checked.problem);
      else {
        const version = versionOf(checked.document);
        if (typeof version === "string") skip(source, version);
        else {
          options.onDocument?.(checked.document);
          batch.push({ source, prepared: prepareAdvisory({ ...version, contentHash: hash }) });
        }
      }
    }
    await written();
    if (batch.length === 0) return;
    // Held by `failed` until the next flush or the end, so a failure never goes unhandled meanwhile.
    writing = (async () => {
      const outcomes = await write(writer, batch, clock.now(), skip);
      for (const outcome of outcomes) if (outcome !== undefined) summary[outcome]++;
      // Each write appends kept count rows; folding now and then keeps a count during a long import cheap.
      if (++flushes % FOLD_EVERY === 0) await writer.foldCounts();
    })().catch((error: unknown) => void (failed = { error }));
  };
  /** Makes next the batch pending, and processes the one pending before it, if any. */
  const advance = async (next: typeof pending) => {
    const last = pending;
    pending = next;
    if (last !== undefined) await processBatch(last.read, await last.known);
  };
  /** Starts the lookup of the batch read, and processes the batch read before it (a bulk import looks up nothing: that batch). */
  const flush = async () => {
    const docs = read;
    read = [];
    readBytes = 0;
    if (bulk) {
      if (docs.length > 0) await processBatch(docs, new Set());
      return;
    }
    await advance(docs.length === 0 ? undefined : { read: docs, known: lookUp(docs) });
  };
  // A bulk import that never reached its end (killed) left its indexes to build: first those.
  await store.advisories.buildDeferred();
  bulk = (options.expected ?? 0) >= (options.bulkAfter ?? BULK_AFTER) && (await store.advisories.deferIndexes());
  let thread: AdvisoryWriterThread | undefined;
  let ended = false;
  try {
    if (bulk && options.bulkWriter !== undefined) writer = thread = options.bulkWriter();
    const batchSize = options.batchSize ?? thread?.batchSize ?? (bulk ? BULK_BATCH_SIZE : DEFAULT_BATCH_SIZE);
    for await (const item of items) {
      if (options.signal?.aborted === true) {
        // Stopped: the batch read and looked up is written, as it was before there was a lookahead;
        // the batch being read is not.
        await advance(undefined);
        options.signal.throwIfAborted();
      }
      if (item.kind === "unreadable") {
        summary.unreadable++;
        options.onUnreadable?.(item.source, item.reason);
        continue;
      }
      if (item.kind === "skipped") skip(item.source, item.reason);
      else {
        read.push({ source: item.source, bytes: item.bytes, hash: contentHash(item.bytes) });
        readBytes += item.bytes.length;
      }
      if (read.length >= batchSize || readBytes >= (options.batchBytes ?? MAX_BATCH_BYTES)) await flush();
      options.onProgress?.(++done);
    }
    await flush();
    // The last batch read, looked up and not yet processed.
    await advance(undefined);
    await written();
    ended = true;
  } finally {
    // Stopped or failed: a lookup under way and the batch being written end, the batch committed
    // whole or not at all, before the import returns.
    await pending?.known.catch(() => undefined);
    await writing;
    if (ended) await thread?.close();
    else await thread?.close().catch(() => undefined);
    if (bulk) {
      options.onBuilding?.();
      // Stopped or failed: built all the same if the store lets it; if not, whoever opens it next builds them.
      if (ended) await store.advisories.buildDeferred();
      else await store.advisories.buildDeferred().catch(() => undefined);
    }
  }
  if (flushes > 0) await store.advisories.foldCounts();
  if (summary.imported + summary.updated >= (options.statisticsAfter ?? STATISTICS_AFTER)) await store.advisories.refreshStatistics();
  return summary;
}

/**
 * Documents written from which an import refreshes the statistics: a bulk load changes the tables'
 * make-up, and PostgreSQL's plans for the next import and for the lists follow the statistics.
 */
export const STATISTICS_AFTER = 10_000;

/**
 * Expected documents from which an import into a store holding no advisory builds the secondary
 * indexes, kept counts and search index once at its end (src/store/advisory-deferred.ts): 500,000
 * documents row by row took 463 s on SQLite, most of it rewriting those indexes' pages at every
 * commit. Below it, a first import is small enough that building row by row costs little.
 */
export const BULK_AFTER = 10_000;

/**
 * Documents per transaction of a bulk import: with only primary keys to keep, a commit's cost is
 * mostly the pages of those it rewrites, which grow more slowly than the batch (50,000 documents'
 * inserts: 7.7 s in batches of 500, 7.0 s of 1,000, 6.0 s of 2,000). 2,000 took the import of
 * 500,000 documents to about 400 MB of RSS while it writes (two batches in memory), 1,000 to
 * about 365 MB. No server writes advisories meanwhile; its other writes wait for one at most.
 */
const BULK_BATCH_SIZE = 1_000;

/** Writes between two folds of the kept counts. */
const FOLD_EVERY = 100;

/** The hash an advisory imported from bytes keeps (migration 0022). */
export function contentHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("base64url");
}

/** The version a valid document is, or why there is none: a time the schema admits but no clock shows (a leap second). */
function versionOf(document: OsvDocument): AdvisoryVersion | string {
  try {
    return advisoryVersion(document);
  } catch (e) {
    if (e instanceof RangeError) return e.message;
    throw e;
  }
}

/** Writes a batch in one transaction, or, when that fails, each document in its own. */
async function write(
  writer: AdvisoryWriter,
  batch: readonly { source: string; prepared: PreparedAdvisory }[],
  time: number,
  skip: (source: string, reason: string) => void,
): Promise<(PutOutcome | undefined)[]> {
  try {
    return await writer.putPrepared(
      batch.map((b) => b.prepared),
      time,
    );
  } catch (e) {
    if (unreachable(e)) throw e;
  }
  const outcomes: (PutOutcome | undefined)[] = [];
  for (const { source, prepared } of batch) {
    try {
      outcomes.push(...(await writer.putPrepared([prepared], time)));
    } catch (e) {
      if (unreachable(e)) throw e;
      skip(source, `the store refused it: ${causeOf(e)}`);
      outcomes.push(undefined);
    }
  }
  return outcomes;
}

function unreachable(e: unknown): boolean {
  return isApiError(e) && e.code === Code.UNAVAILABLE;
}

/** The driver's words: the operator reads them (the API never shows them to a client). */
function causeOf(e: unknown): string {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause : e;
  return cause instanceof Error ? cause.message : String(cause);
}
