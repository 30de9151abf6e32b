/**
 * OSV's `modified_id.csv` (https://google.github.io/osv.dev/data/#downloading-recent-changes):
 * one line per advisory, `<modified>,<id>` in an ecosystem's folder and `<modified>,<folder>/<id>`
 * at the top of the bucket, sorted newest first, so a reader stops at the first line it has
 * already applied. The file is remote input: it is streamed and left as soon as the lines older
 * than the cursor begin, every line is bounded and checked (an id must have the OSV id's shape
 * before it goes into a URL), and what does not parse is refused with the line's number.
 *
 * OSV's exporter sorts the lines by their text, and writes times as Go's RFC3339Nano (no trailing
 * zeros: `...:05Z`, `...:05.5Z`), so within one second the text order is not the time order
 * ('Z' sorts after '.'). Seconds are in order, so reading stops at the first line of an earlier
 * second than the cursor's, never at the first line older than the cursor.
 */
import { ADVISORY_ID } from "../domain/advisories.js";
import type { FeedCursor } from "../store/feed-cursor-store.js";

/** A line of the index listing a change to fetch. */
export interface IndexEntry {
  /** The line's time, canonical (see canonicalTime). */
  time: string;
  /** The advisory id. */
  id: string;
  /** The document's path under the index's folder, in segments: `[id]`, or `[folder, id]` at the bucket's top. */
  path: string[];
  /** Its line number, from 1. */
  line: number;
}

/** What reading the index found: the changes since the cursor, or why they cannot be told from it. */
export type IndexRead = { kind: "changes"; entries: IndexEntry[]; bytes: number } | { kind: "gap"; reason: string; bytes: number };

/** The bounds of a read. */
export interface IndexLimits {
  /** The most lines read before the cursor is reached; past it there are too many changes to fetch one by one. */
  maxLines: number;
  /** The latest time a line may carry (a little past now): a line from the future would hold the cursor ahead of every real change. */
  latest: string;
}

/** The longest line accepted, in bytes: a 255-character id, a folder and a time fit well inside. */
export const MAX_LINE_BYTES = 512;

/** An index line that does not parse; the message names the line. */
export class FeedIndexError extends Error {
  override name = "FeedIndexError";
}

const TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;
/** An OSV bucket folder: an ecosystem's name without its `:release` (`PyPI`, `crates.io`, `Rocky Linux`), or `[EMPTY]`. */
const FOLDER = /^(?:\[EMPTY\]|[A-Za-z0-9][A-Za-z0-9 ._+-]{0,63})$/;

/**
 * An RFC 3339 UTC time (`Z`, up to nine fractional digits) as `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ`,
 * whose text order is its time order; undefined when it is no such time (or no such day).
 */
export function canonicalTime(text: string): string | undefined {
  const m = TIME.exec(text);
  if (m === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction = ""] = m as unknown as string[];
  const date = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)));
  if (
    date.getUTCFullYear() !== Number(y) ||
    date.getUTCMonth() !== Number(mo) - 1 ||
    date.getUTCDate() !== Number(d) ||
    date.getUTCHours() !== Number(h) ||
    date.getUTCMinutes() !== Number(mi) ||
    date.getUTCSeconds() !== Number(s)
  ) {
    return undefined;
  }
  return `${y}-${mo}-${d}T${h}:${mi}:${s}.${fraction.padEnd(9, "0")}Z`;
}

/** The canonical time of milliseconds since the epoch. */
export function canonicalOf(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 23)}000000Z`;
}

/**
 * Reads index lines from body until they are older than cursor, and lists the changes to fetch:
 * lines newer than the cursor, and lines at the cursor's very time that it does not hold (an
 * advisory changed in the same instant as the last one applied). One entry per id, its newest.
 * Throws FeedIndexError for a malformed line.
 */
export async function readModifiedIndex(body: AsyncIterable<Uint8Array>, cursor: FeedCursor, limits: IndexLimits): Promise<IndexRead> {
  const held = new Set(cursor.boundaryIds);
  const cursorSecond = cursor.modified.slice(0, 19);
  const entries = new Map<string, IndexEntry>();
  let bytes = 0;
  let count = 0;
  // The index is known to cover every change since the cursor once it lists a time at or before it.
  let reached = false;
  for await (const { text, line, read } of lines(body)) {
    bytes = read;
    const entry = parseLine(text, line, limits.latest);
    if (entry.time.slice(0, 19) < cursorSecond) return { kind: "changes", entries: [...entries.values()], bytes };
    reached ||= entry.time <= cursor.modified;
    if (++count > limits.maxLines)
      return { kind: "gap", reason: `more than ${limits.maxLines} lines are as new as the cursor (${cursor.modified})`, bytes };
    const newer = entry.time > cursor.modified || (entry.time === cursor.modified && !held.has(entry.id));
    if (newer && !entries.has(entry.id)) entries.set(entry.id, entry);
  }
  if (reached) return { kind: "changes", entries: [...entries.values()], bytes };
  return { kind: "gap", reason: `the index ends before it reaches the cursor's time (${cursor.modified})`, bytes };
}

/** One line of the index, checked. */
function parseLine(text: string, line: number, latest: string): IndexEntry {
  const fail = (why: string) =>
    new FeedIndexError(`line ${line}: ${why}: ${JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}...` : text)}`);
  const comma = text.indexOf(",");
  if (comma < 0) throw fail("expected <modified>,<id>");
  const time = canonicalTime(text.slice(0, comma));
  if (time === undefined) throw fail("the modified time is not an RFC 3339 UTC time");
  if (time > latest) throw fail("the modified time is in the future");
  const path = text.slice(comma + 1).split("/");
  const id = path.at(-1) ?? "";
  if (path.length > 2 || !ADVISORY_ID.test(id)) throw fail("the id is not an OSV id (letters, digits and . _ : + -)");
  if (path.length === 2 && !FOLDER.test(path[0]!)) throw fail("the folder is not an OSV ecosystem folder");
  return { time, id, path, line };
}

/** The lines of body (split at `\n`, each UTF-8 and at most MAX_LINE_BYTES), with the bytes read so far. */
async function* lines(body: AsyncIterable<Uint8Array>): AsyncGenerator<{ text: string; line: number; read: number }> {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let pending: Buffer = Buffer.alloc(0);
  let line = 0;
  let read = 0;
  const decode = (bytes: Buffer) => {
    try {
      return decoder.decode(bytes);
    } catch {
      throw new FeedIndexError(`line ${line}: not UTF-8 text`);
    }
  };
  for await (const chunk of body) {
    read += chunk.length;
    pending = pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([pending, chunk]);
    let start = 0;
    for (let end = pending.indexOf(10, start); end >= 0; end = pending.indexOf(10, start)) {
      line++;
      if (end - start > MAX_LINE_BYTES) throw new FeedIndexError(`line ${line}: longer than ${MAX_LINE_BYTES} bytes`);
      yield { text: decode(pending.subarray(start, end)), line, read };
      start = end + 1;
    }
    pending = pending.subarray(start);
    if (pending.length > MAX_LINE_BYTES) throw new FeedIndexError(`line ${line + 1}: longer than ${MAX_LINE_BYTES} bytes`);
  }
  if (pending.length > 0) {
    line++;
    yield { text: decode(pending), line, read };
  }
}
