/**
 * The periodic sync of advisories from a feed: a zip archive of OSV documents at a URL, as OSV
 * buckets publish `<ecosystem>/all.zip`. The first sync imports the archive, fetched with a size
 * and time limit into a temporary file, as `arbor advisories import` does, and remembers in the
 * store how far it got (a cursor: the newest `modified` applied). Later syncs of an OSV bucket
 * are incremental (incremental-sync.ts): they read `modified_id.csv` down to the cursor and fetch
 * only the documents it lists as changed. Whenever the changes cannot be told from the index (it
 * is missing or malformed, lists too many changes, or the cursor is too old), the sync imports
 * the whole archive again, and says why in its log line. The archive's ETag is remembered, so an
 * unchanged archive is not downloaded again.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import { systemClock, type Clock } from "../domain/clock.js";
import { startPeriodic, type Gate, type Periodic } from "../domain/periodic.js";
import type { AdvisoryStore } from "../store/advisory-store.js";
import type { FeedCursorStore } from "../store/feed-cursor-store.js";
import { importAdvisories, type ImportSummary } from "./import-advisories.js";
import { latestFeedTime, osvFolderOf, syncIncrementally } from "./incremental-sync.js";
import { canonicalTime } from "./modified-index.js";
import { openZipDocuments } from "./zip-archive.js";

/** Where the feed is and how it is fetched. */
export interface FeedOptions {
  url: string;
  store: { advisories: AdvisoryStore; feedCursors: FeedCursorStore };
  logger: Logger;
  /** The largest archive accepted, in bytes. */
  maxBytes: number;
  /** The longest a sync's fetching may take, in milliseconds. */
  timeoutMs: number;
  /** A cursor not confirmed by a sync for this long is not trusted: the archive is imported again. */
  maxCursorAgeMs: number;
  /** The most changes an incremental sync fetches one by one; more, and it imports the archive. */
  maxChanges: number;
  /** Documents an incremental sync fetches at once. */
  concurrency: number;
  /** Dates the advisories new to the store and the cursor; the system clock by default. */
  clock?: Clock;
  /** Lets one of several replicas sync (Store.leads); every process syncs without it. */
  gate?: Gate;
  /** Hears of each sync that ended well (the server counts them in its metrics). */
  onSynced?: (result: SyncResult) => void;
}

/**
 * The feed limits: OSV's largest per-ecosystem archives are a few hundred megabytes; ten
 * thousand changes fetched one by one cost about what such an archive does.
 */
export const FEED_DEFAULTS = { maxBytes: 2 * 1024 ** 3, timeoutMs: 15 * 60 * 1000, maxChanges: 10_000, concurrency: 8 } as const;

/** How a sync fetched: only the changes the index lists, or the whole archive. */
export type SyncMode = "incremental" | "full";

/** What one sync did: an import, or nothing because the feed had not changed; how, and what it fetched. */
export type SyncResult = ({ kind: "imported"; summary: ImportSummary } | { kind: "not modified" }) & {
  mode: SyncMode;
  /** Why a full import ran where an incremental sync was not possible (the first sync, a missing index, ...). */
  fallback?: string;
  /** Documents fetched (one by one, or read from the archive) and bytes downloaded. */
  fetched: { documents: number; bytes: number };
};

export type FeedSync = Periodic;

/** Syncs the feed once; `etag` carries the last archive's ETag between calls. */
export async function syncFeed(options: FeedOptions, etag: { value?: string }, signal: AbortSignal): Promise<SyncResult> {
  const clock = options.clock ?? systemClock;
  const within = AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]);
  const folder = osvFolderOf(options.url);
  let fallback: string;
  let indexBytes = 0;
  if (folder === undefined) {
    fallback = "the feed is not an OSV bucket's all.zip, which has no index of changes";
  } else {
    const cursor = await options.store.feedCursors.get(options.url);
    if (cursor === undefined) fallback = "the first sync of this feed";
    else if (clock.now() - cursor.syncTime > options.maxCursorAgeMs) {
      fallback =
        `the cursor was last confirmed at ${new Date(cursor.syncTime).toISOString()}, ` +
        `longer ago than the ${options.maxCursorAgeMs} ms trusted`;
    } else {
      const result = await syncIncrementally({ ...options, clock }, folder, cursor, within);
      if (result.kind === "applied") {
        await options.store.feedCursors.put(options.url, result.cursor);
        const fetched = { documents: result.documents, bytes: result.bytes };
        if (result.documents === 0) return { kind: "not modified", mode: "incremental", fetched };
        return { kind: "imported", mode: "incremental", summary: result.summary, fetched };
      }
      fallback = result.reason;
      indexBytes = result.bytes;
    }
  }
  const full = await importArchive(options, clock, etag, { download: within, import: signal }, folder !== undefined);
  return { ...full, fallback, fetched: { ...full.fetched, bytes: full.fetched.bytes + indexBytes } };
}

/**
 * Downloads and imports the whole archive; when it is an OSV bucket's, sets the cursor to its
 * newest document. The time limit bounds the download; the import stops only for a shutdown.
 */
async function importArchive(
  options: FeedOptions,
  clock: Clock,
  etag: { value?: string },
  signals: { download: AbortSignal; import: AbortSignal },
  keepsCursor: boolean,
): Promise<SyncResult> {
  const res = await fetch(options.url, {
    signal: signals.download,
    headers: etag.value === undefined ? {} : { "if-none-match": etag.value },
  });
  if (res.status === 304) return { kind: "not modified", mode: "full", fetched: { documents: 0, bytes: 0 } };
  if (!res.ok || res.body === null) throw new Error(`the feed answered HTTP ${res.status}`);
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > options.maxBytes) throw new Error(`the feed is ${declared} bytes, more than the ${options.maxBytes} bytes accepted`);
  const dir = await mkdtemp(join(tmpdir(), "arbor-feed-"));
  try {
    const file = join(dir, "feed.zip");
    const size = { bytes: 0 };
    await pipeline(Readable.fromWeb(res.body), limit(options.maxBytes, size), createWriteStream(file));
    const zip = await openZipDocuments(file, options.url);
    const newest = newestOf(latestFeedTime(clock));
    const summary = await importAdvisories(options.store, zip.items(), {
      onSkip: (source, reason) => options.logger.warn({ source, reason }, "advisory skipped"),
      onDocument: newest.note,
      signal: signals.import,
      clock,
    });
    const cursor = newest.cursor(clock.now());
    if (keepsCursor && cursor !== undefined) await options.store.feedCursors.put(options.url, cursor);
    const tag = res.headers.get("etag");
    if (tag !== null) etag.value = tag;
    return { kind: "imported", mode: "full", summary, fetched: { documents: zip.count, bytes: size.bytes } };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * The newest `modified` of the documents noted, and the ids at it: the cursor an archive's import
 * leaves. A time past `latest` is passed over, so a document dated in the future cannot hold the
 * cursor ahead of every real change.
 */
function newestOf(latest: string) {
  let modified: string | undefined;
  let ids = new Set<string>();
  return {
    note(document: { id: string; modified: string }) {
      const time = canonicalTime(document.modified);
      if (time === undefined || time > latest || (modified !== undefined && time < modified)) return;
      if (time !== modified) ids = new Set();
      modified = time;
      ids.add(document.id);
    },
    cursor: (now: number) => (modified === undefined ? undefined : { modified, boundaryIds: [...ids].sort(), syncTime: now }),
  };
}

/** Syncs now and then every intervalMs until stopped; a failed sync is logged and tried again next time. */
export function startFeedSync(options: FeedOptions, intervalMs: number): FeedSync {
  const etag: { value?: string } = {};
  return startPeriodic(
    async (signal) => {
      const started = performance.now();
      const result = await syncFeed(options, etag, signal);
      const durationMs = Math.round(performance.now() - started);
      const line = {
        feed: options.url,
        mode: result.mode,
        ...(result.fallback !== undefined && { fallback: result.fallback }),
        documentsFetched: result.fetched.documents,
        bytesFetched: result.fetched.bytes,
        durationMs,
      };
      if (result.kind === "not modified") options.logger.info(line, "advisories feed unchanged");
      else options.logger.info({ ...line, ...result.summary }, "advisories synced");
      options.onSynced?.(result);
    },
    intervalMs,
    (e) => options.logger.warn({ feed: options.url, err: e }, "advisories sync failed; trying again at the next interval"),
    options.gate,
  );
}

/** The sync the configuration asks for, started; undefined when it names no feed (the default). */
export function startConfiguredSync(
  config: Pick<Config, "advisoriesFeedUrl" | "advisoriesSyncIntervalMs" | "advisoriesFeedMaxCursorAgeMs">,
  store: { advisories: AdvisoryStore; feedCursors: FeedCursorStore; leads: Gate },
  logger: Logger,
  clock: Clock,
  onSynced?: (result: SyncResult) => void,
): FeedSync | undefined {
  if (config.advisoriesFeedUrl === undefined) return undefined;
  return startFeedSync(
    {
      url: config.advisoriesFeedUrl,
      store,
      logger,
      clock,
      gate: store.leads,
      maxCursorAgeMs: config.advisoriesFeedMaxCursorAgeMs,
      ...FEED_DEFAULTS,
      ...(onSynced !== undefined && { onSynced }),
    },
    config.advisoriesSyncIntervalMs,
  );
}

/** A pipeline stage passing bytes through (counting them in size) that fails once more than max went through. */
function limit(max: number, size: { bytes: number }): (source: AsyncIterable<Uint8Array>) => AsyncGenerator<Uint8Array> {
  return async function* (source) {
    for await (const chunk of source) {
      size.bytes += chunk.length;
      if (size.bytes > max) throw new Error(`the feed is more than the ${max} bytes accepted`);
      yield chunk;
    }
  };
}
