/**
 * The feed sync against a feed served on loopback: import, ETag revalidation, the size and time
 * limits, failures that are logged and retried, and the server starting it from its config and
 * counting it in its metrics. The feed serves its archive alone (no `modified_id.csv`), so every
 * sync after the first falls back to the archive; test/osv/incremental-sync.test.ts has the rest.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/domain/clock.js";
import { FEED_DEFAULTS, startConfiguredSync, startFeedSync, syncFeed, type FeedOptions } from "../../src/osv/feed-sync.js";
import { createStore } from "../../src/store/create-store.js";
import type { Store } from "../../src/store/store.js";
import { engines } from "../support/engines.js";
import { folderEntries, OSV, writeZip } from "../support/osv.js";
import { startTestServer } from "../support/server.js";

interface Feed {
  url: string;
  /** The archive served, and its ETag. */
  body: Buffer;
  etag: string;
  /** How the next request is answered, when not with the archive. */
  mode: "archive" | "hang" | "error" | "chunked";
  requests: { path: string; ifNoneMatch: string | undefined }[];
  close(): Promise<void>;
}

async function serveFeed(): Promise<Feed> {
  const feed = { body: Buffer.alloc(0), etag: '"v1"', mode: "archive", requests: [] } as unknown as Feed;
  const server = http.createServer((req, res) => {
    const ifNoneMatch = req.headers["if-none-match"];
    feed.requests.push({ path: req.url ?? "", ifNoneMatch });
    if (feed.mode === "hang") return;
    if (req.url !== "/osv/all.zip") return void res.writeHead(404).end();
    if (feed.mode === "error") return void res.writeHead(503).end("down");
    if (ifNoneMatch === feed.etag) return void res.writeHead(304).end();
    if (feed.mode === "chunked") {
      res.writeHead(200, { "content-type": "application/zip" });
      return void res.end(feed.body);
    }
    res.writeHead(200, { "content-type": "application/zip", "content-length": String(feed.body.length), etag: feed.etag }).end(feed.body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  feed.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/osv/all.zip`;
  feed.close = () =>
    new Promise((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return feed;
}

function memoryLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: "info" }, sink), lines };
}

async function until(what: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await what())) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("advisories feed sync", () => {
  let dir: string;
  let store: Store;
  let feed: Feed;
  const log = memoryLogger();
  const options = (more: Partial<FeedOptions> = {}): FeedOptions => ({
    url: feed.url,
    store,
    logger: log.logger,
    ...FEED_DEFAULTS,
    maxBytes: 1_000_000,
    timeoutMs: 5_000,
    maxCursorAgeMs: 60_000,
    ...more,
  });
  const zipOf = async (entries: Record<string, string | Buffer>) => {
    const path = join(dir, `feed-${Math.random()}.zip`);
    await writeZip(path, entries);
    return readFileSync(path);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "arbor-feed-test-"));
    store = await createStore({ dataDir: dir });
    feed = await serveFeed();
    feed.body = await zipOf({ ...folderEntries(join(OSV.feed, "ghsa"), "ghsa/"), "ghsa/bad.json": "{}" });
  });
  afterAll(async () => {
    await feed?.close();
    await store?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("imports the archive, skipping and logging an invalid document; then revalidates with its ETag", async () => {
    const etag: { value?: string } = {};
    const first = await syncFeed(options(), etag, new AbortController().signal);
    expect(first).toEqual({
      kind: "imported",
      mode: "full",
      fallback: "the first sync of this feed",
      summary: { imported: 5, updated: 0, unchanged: 0, skipped: 1, unreadable: 0 },
      fetched: { documents: 6, bytes: feed.body.length },
    });
    expect(log.lines).toContainEqual(
      expect.objectContaining({
        msg: "advisory skipped",
        source: `${feed.url}!ghsa/bad.json`,
        reason: "document: must have required property 'id'",
      }),
    );
    expect(etag.value).toBe('"v1"');
    expect(await syncFeed(options(), etag, new AbortController().signal)).toEqual({
      kind: "not modified",
      mode: "full",
      fallback: `the index ${feed.url.replace("all.zip", "modified_id.csv")} answered HTTP 404`,
      fetched: { documents: 0, bytes: 0 },
    });
    expect(feed.requests.slice(-2)).toEqual([
      { path: "/osv/modified_id.csv", ifNoneMatch: undefined },
      { path: "/osv/all.zip", ifNoneMatch: '"v1"' },
    ]);
    feed.body = await zipOf(folderEntries(OSV.updates, ""));
    feed.etag = '"v2"';
    const changed = await syncFeed(options(), etag, new AbortController().signal);
    expect(changed).toMatchObject({ kind: "imported", mode: "full", summary: { imported: 2, updated: 1, unchanged: 0 } });
  });

  it.each([
    ["a declared size over the limit", "archive", { maxBytes: 100 }, /more than the 100 bytes accepted/],
    ["an undeclared size over the limit", "chunked", { maxBytes: 100 }, /more than the 100 bytes accepted/],
    ["a feed that does not answer in time", "hang", { timeoutMs: 200 }, /timeout|aborted/i],
    ["a feed that answers with an error", "error", {}, "the feed answered HTTP 503"],
  ] as const)("fails on %s", async (_name, mode, more, error) => {
    feed.mode = mode;
    try {
      await expect(syncFeed(options(more), {}, new AbortController().signal)).rejects.toThrow(error);
    } finally {
      feed.mode = "archive";
    }
  });

  it("runs on a schedule, logs each sync and a failure, and stops", async () => {
    const { logger, lines } = memoryLogger();
    feed.mode = "error";
    const sync = startFeedSync(options({ logger }), 50);
    await until(() => lines.some((l) => l.msg === "advisories sync failed; trying again at the next interval"));
    feed.mode = "archive";
    await until(() => lines.some((l) => l.msg === "advisories synced" || l.msg === "advisories feed unchanged"));
    await sync.stop();
    const count = feed.requests.length;
    await new Promise((r) => setTimeout(r, 150));
    expect(feed.requests.length).toBe(count);
  });

  it("is off unless a feed URL is configured", () => {
    const config = { advisoriesFeedUrl: undefined, advisoriesSyncIntervalMs: 60_000, advisoriesFeedMaxCursorAgeMs: 3_600_000 };
    expect(startConfiguredSync(config, store, log.logger, systemClock)).toBeUndefined();
  });

  it("starts with the server when configured, and the server serves what it imported and counts the sync", async () => {
    feed.body = await zipOf(folderEntries(join(OSV.feed, "ghsa"), ""));
    feed.etag = '"v3"';
    const metricsToken = "feed-sync-metrics-token";
    const t = await startTestServer(engines[0]!, { advisoriesFeedUrl: feed.url, metricsToken });
    try {
      const { token } = await t.organization("feed");
      await until(async () => (await t.server.store.advisories.count({})) === 5);
      const res = await t.fetch("/vulnerabilities/v2beta1/advisories?query=lodash", { token });
      expect(((await res.json()) as { totalCount: string }).totalCount).toBe("2");
      // The metrics are counted once the sync has logged its line.
      await until(() => t.logs.some((l) => l.msg === "advisories synced"));
      expect(t.logs).toContainEqual(
        expect.objectContaining({
          msg: "advisories synced",
          feed: feed.url,
          mode: "full",
          fallback: "the first sync of this feed",
          documentsFetched: 5,
          bytesFetched: feed.body.length,
          imported: 5,
        }),
      );
      const metrics = await (await t.fetch("/metrics", { token: metricsToken })).text();
      expect(metrics).toContain('arbor_advisories_feed_syncs_total{mode="full"} 1');
      expect(metrics).toContain('arbor_advisories_feed_documents_fetched_total{mode="full"} 5');
      expect(metrics).toContain(`arbor_advisories_feed_bytes_fetched_total{mode="full"} ${feed.body.length}`);
    } finally {
      await t.close();
    }
  });
});
