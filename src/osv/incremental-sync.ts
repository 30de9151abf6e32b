/**
 * The incremental sync of an OSV bucket folder: its `modified_id.csv` is read down to the
 * cursor, and only the documents it lists as changed are fetched (`<folder>/<id>.json`, a few at
 * a time) and imported as the full import imports them. The new cursor is handed back, to be
 * written only when every listed document was applied; a sync that stops midway leaves the old
 * cursor, so the next one fetches those documents again (their upsert is idempotent).
 */
import type { Logger } from "pino";
import type { Clock } from "../domain/clock.js";
import type { AdvisoryStore } from "../store/advisory-store.js";
import type { FeedCursor } from "../store/feed-cursor-store.js";
import { emptySummary, importAdvisories, type ImportSummary } from "./import-advisories.js";
import { canonicalOf, canonicalTime, FeedIndexError, readModifiedIndex, type IndexEntry } from "./modified-index.js";
import { MAX_DOCUMENT_BYTES, type SourceItem } from "./source-item.js";

/** What an incremental sync needs. */
export interface IncrementalOptions {
  store: { advisories: AdvisoryStore };
  logger: Logger;
  clock: Clock;
  /** The most changes fetched one by one; more, and the full archive is cheaper. */
  maxChanges: number;
  /** Documents fetched at once. */
  concurrency: number;
}

/** An incremental sync done, or why it could not be (the caller imports the full archive instead). */
export type IncrementalResult =
  | { kind: "applied"; summary: ImportSummary; documents: number; bytes: number; cursor: FeedCursor }
  | { kind: "fallback"; reason: string; bytes: number };

/** How far ahead of the clock a feed's time may be (clocks differ a little). */
const CLOCK_SKEW_MS = 60 * 60 * 1000;

/**
 * The folder of an OSV bucket whose `all.zip` url is (`.../PyPI/all.zip`, or the bucket's top),
 * where `modified_id.csv` and the documents are; undefined for any other archive.
 */
export function osvFolderOf(url: string): URL | undefined {
  const parsed = new URL(url);
  if (!parsed.pathname.endsWith("/all.zip")) return undefined;
  const folder = new URL("./", parsed);
  folder.search = "";
  folder.hash = "";
  return folder;
}

/** The latest time a feed may name now: a time past it is refused. */
export function latestFeedTime(clock: Clock): string {
  return canonicalOf(clock.now() + CLOCK_SKEW_MS);
}

/** Syncs the folder's changes since cursor into the store. Throws when a listed document could not be applied. */
export async function syncIncrementally(
  options: IncrementalOptions,
  folder: URL,
  cursor: FeedCursor,
  signal: AbortSignal,
): Promise<IncrementalResult> {
  const indexUrl = new URL("modified_id.csv", folder);
  let res: Response;
  try {
    res = await fetch(indexUrl, { signal });
  } catch (e) {
    signal.throwIfAborted();
    return { kind: "fallback", reason: `the index ${indexUrl.href} could not be fetched: ${(e as Error).message}`, bytes: 0 };
  }
  if (!res.ok || res.body === null) {
    await res.body?.cancel();
    return { kind: "fallback", reason: `the index ${indexUrl.href} answered HTTP ${res.status}`, bytes: 0 };
  }
  let read;
  try {
    read = await readModifiedIndex(res.body, cursor, { maxLines: options.maxChanges, latest: latestFeedTime(options.clock) });
  } catch (e) {
    if (!(e instanceof FeedIndexError)) throw e;
    return { kind: "fallback", reason: `the index ${indexUrl.href} is malformed: ${e.message}`, bytes: 0 };
  } finally {
    await res.body.cancel().catch(() => undefined);
  }
  if (read.kind === "gap") return { kind: "fallback", reason: read.reason, bytes: read.bytes };
  const problems: string[] = [];
  let bytes = read.bytes;
  const summary =
    read.entries.length === 0
      ? emptySummary()
      : await importAdvisories(
          options.store,
          fetchDocuments(folder, read.entries, options.concurrency, signal, problems, (n) => (bytes += n)),
          {
            onSkip: (source, reason) => options.logger.warn({ source, reason }, "advisory skipped"),
            signal,
            clock: options.clock,
          },
        );
  if (problems.length > 0) {
    throw new Error(
      `${problems.length} of ${read.entries.length} changed documents could not be applied, ` +
        `so the cursor stays at ${cursor.modified}: ${problems.slice(0, 3).join("; ")}`,
    );
  }
  return { kind: "applied", summary, documents: read.entries.length, bytes, cursor: advance(cursor, read.entries, options.clock.now()) };
}

/** The cursor once entries are applied: their newest time, with every id listed at it. */
function advance(cursor: FeedCursor, entries: readonly IndexEntry[], now: number): FeedCursor {
  let newest = cursor.modified;
  for (const e of entries) if (e.time > newest) newest = e.time;
  const ids = new Set(newest === cursor.modified ? cursor.boundaryIds : []);
  for (const e of entries) if (e.time === newest) ids.add(e.id);
  return { modified: newest, boundaryIds: [...ids].sort(), syncTime: now };
}

/**
 * The documents of entries, fetched `concurrency` at a time and yielded in the index's order. A
 * document that cannot be fetched, or is older than the index says (a stale copy in a cache), is
 * added to problems and not yielded: the sync then fails and keeps its cursor.
 */
async function* fetchDocuments(
  folder: URL,
  entries: readonly IndexEntry[],
  concurrency: number,
  signal: AbortSignal,
  problems: string[],
  onBytes: (n: number) => void,
): AsyncGenerator<SourceItem> {
  const abort = new AbortController();
  const both = AbortSignal.any([signal, abort.signal]);
  const start = (entry: IndexEntry) => {
    const p = fetchDocument(folder, entry, both, onBytes);
    p.catch(() => undefined); // awaited in turn below; this only keeps an early failure from being unhandled
    return p;
  };
  const pending: Promise<SourceItem | { kind: "failed"; reason: string }>[] = [];
  let next = 0;
  try {
    while (next < entries.length && pending.length < concurrency) pending.push(start(entries[next++]!));
    while (pending.length > 0) {
      const item = await pending.shift()!;
      if (next < entries.length) pending.push(start(entries[next++]!));
      if (item.kind === "failed") problems.push(item.reason);
      else yield item;
    }
  } finally {
    abort.abort();
  }
}

/** One document, bounded in size; a document too large is skipped as the full import skips it. */
async function fetchDocument(
  folder: URL,
  entry: IndexEntry,
  signal: AbortSignal,
  onBytes: (n: number) => void,
): Promise<SourceItem | { kind: "failed"; reason: string }> {
  const url = documentUrl(folder, entry.path);
  const source = url.href;
  const failed = (why: string) => ({ kind: "failed" as const, reason: `${source}: ${why}` });
  try {
    if (url.origin !== folder.origin || !url.pathname.startsWith(folder.pathname)) return failed("it is outside the feed's folder");
    const res = await fetch(url, { signal });
    if (!res.ok || res.body === null) {
      await res.body?.cancel();
      return failed(`HTTP ${res.status}`);
    }
    const tooLarge = { kind: "skipped" as const, source, reason: `larger than ${MAX_DOCUMENT_BYTES} bytes` };
    if (Number(res.headers.get("content-length") ?? "0") > MAX_DOCUMENT_BYTES) {
      await res.body.cancel();
      return tooLarge;
    }
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.length;
      onBytes(chunk.length);
      if (size > MAX_DOCUMENT_BYTES) return tooLarge; // leaving the loop cancels the body
      chunks.push(chunk);
    }
    const bytes = Buffer.concat(chunks);
    const listed = describedAs(bytes);
    if (listed !== undefined && listed.id !== entry.id) {
      return {
        kind: "skipped",
        source,
        reason: `its id is ${JSON.stringify(listed.id)}, not ${entry.id} as the index (line ${entry.line}) says`,
      };
    }
    if (listed?.modified !== undefined && listed.modified < entry.time) {
      return failed(`its modified time ${listed.modified} is older than the index's ${entry.time} (a stale copy)`);
    }
    return { kind: "document", source, bytes };
  } catch (e) {
    signal.throwIfAborted();
    return failed((e as Error).message);
  }
}

/** The id and canonical modified time a document gives, when it parses; the import's schema check reports the rest. */
function describedAs(bytes: Buffer): { id: unknown; modified: string | undefined } | undefined {
  try {
    const value = JSON.parse(bytes.toString("utf8")) as { id?: unknown; modified?: unknown };
    if (value === null || typeof value !== "object") return undefined;
    return { id: value.id, modified: typeof value.modified === "string" ? canonicalTime(value.modified) : undefined };
  } catch {
    return undefined;
  }
}

/**
 * A document's URL: each segment was checked (an OSV id, an ecosystem folder) and is escaped, so it
 * stays inside folder (fetchDocument checks).
 */
function documentUrl(folder: URL, path: readonly string[]): URL {
  return new URL(`${path.map(encodeURIComponent).join("/")}.json`, folder);
}
