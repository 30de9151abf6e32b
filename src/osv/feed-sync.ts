/**
 * The periodic sync of advisories from a feed: a zip archive of OSV documents at a URL (as OSV
 * databases publish `all.zip` per ecosystem), fetched with a size and time limit into a
 * temporary file and imported like `arbor advisories import` does. The archive's ETag is
 * remembered, so an unchanged feed is not downloaded again.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Logger } from "pino";
import type { Config } from "../config.js";
import type { Clock } from "../domain/clock.js";
import { startPeriodic, type Gate, type Periodic } from "../domain/periodic.js";
import type { AdvisoryStore } from "../store/advisory-store.js";
import { importAdvisories, type ImportSummary } from "./import-advisories.js";
import { openZipDocuments } from "./zip-archive.js";

/** Where the feed is and how it is fetched. */
export interface FeedOptions {
  url: string;
  store: { advisories: AdvisoryStore };
  logger: Logger;
  /** The largest archive accepted, in bytes. */
  maxBytes: number;
  /** The longest a download may take, in milliseconds. */
  timeoutMs: number;
  /** Dates the advisories new to the store; the system clock by default. */
  clock?: Clock;
  /** Lets one of several replicas sync (Store.leads); every process syncs without it. */
  gate?: Gate;
}

/** The feed limits: OSV's largest per-ecosystem archives are a few hundred megabytes. */
export const FEED_DEFAULTS = { maxBytes: 2 * 1024 ** 3, timeoutMs: 15 * 60 * 1000 } as const;

/** What one sync did: an import, or nothing because the feed had not changed. */
export type SyncResult = { kind: "imported"; summary: ImportSummary } | { kind: "not modified" };

export type FeedSync = Periodic;

/** Fetches and imports the feed once; `etag` carries the last archive's ETag between calls. */
export async function syncFeed(options: FeedOptions, etag: { value?: string }, signal: AbortSignal): Promise<SyncResult> {
  const res = await fetch(options.url, {
    signal: AbortSignal.any([signal, AbortSignal.timeout(options.timeoutMs)]),
    headers: etag.value === undefined ? {} : { "if-none-match": etag.value },
  });
  if (res.status === 304) return { kind: "not modified" };
  if (!res.ok || res.body === null) throw new Error(`the feed answered HTTP ${res.status}`);
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > options.maxBytes) throw new Error(`the feed is ${declared} bytes, more than the ${options.maxBytes} bytes accepted`);
  const dir = await mkdtemp(join(tmpdir(), "arbor-feed-"));
  try {
    const file = join(dir, "feed.zip");
    await pipeline(Readable.fromWeb(res.body), limit(options.maxBytes), createWriteStream(file));
    const zip = await openZipDocuments(file, options.url);
    const summary = await importAdvisories(options.store, zip.items(), {
      onSkip: (source, reason) => options.logger.warn({ source, reason }, "advisory skipped"),
      signal,
      ...(options.clock !== undefined && { clock: options.clock }),
    });
    const tag = res.headers.get("etag");
    if (tag !== null) etag.value = tag;
    return { kind: "imported", summary };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Syncs now and then every intervalMs until stopped; a failed sync is logged and tried again next time. */
export function startFeedSync(options: FeedOptions, intervalMs: number): FeedSync {
  const etag: { value?: string } = {};
  return startPeriodic(
    async (signal) => {
      const started = performance.now();
      const result = await syncFeed(options, etag, signal);
      const durationMs = Math.round(performance.now() - started);
      if (result.kind === "not modified") options.logger.info({ feed: options.url, durationMs }, "advisories feed unchanged");
      else options.logger.info({ feed: options.url, durationMs, ...result.summary }, "advisories synced");
    },
    intervalMs,
    (e) => options.logger.warn({ feed: options.url, err: e }, "advisories sync failed; trying again at the next interval"),
    options.gate,
  );
}

/** The sync the configuration asks for, started; undefined when it names no feed (the default). */
export function startConfiguredSync(
  config: Pick<Config, "advisoriesFeedUrl" | "advisoriesSyncIntervalMs">,
  store: { advisories: AdvisoryStore; leads: Gate },
  logger: Logger,
  clock: Clock,
): FeedSync | undefined {
  if (config.advisoriesFeedUrl === undefined) return undefined;
  return startFeedSync({ url: config.advisoriesFeedUrl, store, logger, clock, gate: store.leads, ...FEED_DEFAULTS }, config.advisoriesSyncIntervalMs);
}

/** A pipeline stage passing bytes through that fails once more than max went through. */
function limit(max: number): (source: AsyncIterable<Uint8Array>) => AsyncGenerator<Uint8Array> {
  return async function* (source) {
    let size = 0;
    for await (const chunk of source) {
      size += chunk.length;
      if (size > max) throw new Error(`the feed is more than the ${max} bytes accepted`);
      yield chunk;
    }
  };
}
