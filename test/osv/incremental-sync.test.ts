/**
 * The incremental feed sync against an OSV-shaped bucket on loopback, on every engine: what an
 * unchanged feed costs (the index alone), which documents a change fetches, the cursor at a
 * boundary time, a sync that fails midway, and each fallback to the full archive.
 */
import { pino } from "pino";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Clock } from "../../src/domain/clock.js";
import { FEED_DEFAULTS, syncFeed, type FeedOptions, type SyncResult } from "../../src/osv/feed-sync.js";
import { describeEachEngine } from "../support/engines.js";
import { serveOsvBucket, type BucketDocument, type BucketFolder, type OsvBucket } from "../support/osv-bucket.js";

const DAY = 24 * 60 * 60 * 1000;

describeEachEngine("incremental advisories feed sync", (t) => {
  let bucket: OsvBucket;
  let now = Date.parse("2026-01-10T00:00:00Z");
  const clock: Clock = { now: () => now };
  let folders = 0;
  /** Advisory n of the current test: each test has ids of its own, as the engine's store is the file's. */
  const id = (n: number) => `PYSEC-${folders}-${n}`;
  const json = (n: number) => `${id(n)}.json`;
  const doc = (n: number, modified: string, more: Partial<BucketDocument> = {}): BucketDocument => ({ id: id(n), modified, ...more });
  const base = () => [doc(1, "2026-01-01T00:00:01Z"), doc(2, "2026-01-02T00:00:02.5Z"), doc(3, "2026-01-03T00:00:03Z")];

  beforeAll(async () => {
    bucket = await serveOsvBucket();
  });
  afterAll(async () => {
    await bucket?.close();
  });

  /** A folder of its own (cursors are per feed URL), holding documents; `/bucket-<n>/PyPI`, or the bucket's top. */
  const folderWith = (documents: () => BucketDocument[], ecosystem = "/PyPI") => {
    const f = bucket.folder(`/bucket-${++folders}${ecosystem}`);
    f.put(...documents());
    return f;
  };
  const options = (f: BucketFolder, more: Partial<FeedOptions> = {}): FeedOptions => ({
    url: f.url,
    store: t.store(),
    logger: pino({ level: "silent" }),
    ...FEED_DEFAULTS,
    timeoutMs: 5_000,
    maxCursorAgeMs: 7 * DAY,
    clock,
    ...more,
  });
  /** Syncs once, and answers with the result and the paths the bucket saw. */
  const sync = async (f: BucketFolder, more: Partial<FeedOptions> = {}): Promise<{ result: SyncResult; paths: string[] }> => {
    const before = bucket.requests.length;
    const result = await syncFeed(options(f, more), {}, new AbortController().signal);
    const prefix = new URL(f.url).pathname.slice(0, -"all.zip".length);
    return {
      result,
      paths: bucket.requests
        .slice(before)
        .map((p) => p.slice(prefix.length))
        .sort(),
    };
  };
  const stored = async (id: string) => (await t.store().advisories.get(id))?.document;
  const snapshot = async () =>
    JSON.stringify(await t.store().advisories.list({}, { order: [{ field: "uid", desc: false }], limit: 1000, offset: 0 } as never));

  it("imports the archive at first, then an unchanged feed costs its index alone and changes nothing", async () => {
    const f = folderWith(base);
    const first = await sync(f);
    expect(first.result).toMatchObject({
      kind: "imported",
      mode: "full",
      fallback: "the first sync of this feed",
      summary: { imported: 3 },
      fetched: { documents: 3 },
    });
    expect(first.paths).toEqual(["all.zip"]);
    expect(await t.store().feedCursors.get(f.url)).toEqual({
      modified: "2026-01-03T00:00:03.000000000Z",
      boundaryIds: [id(3)],
      syncTime: now,
    });

    const before = await snapshot();
    now += 1000;
    const second = await sync(f);
    expect(second.paths).toEqual(["modified_id.csv"]);
    expect(second.result).toEqual({
      kind: "not modified",
      mode: "incremental",
      fetched: { documents: 0, bytes: expect.any(Number) as number },
    });
    expect(second.result.fetched.bytes).toBeGreaterThan(0);
    expect(await snapshot()).toBe(before);
    expect(await t.store().feedCursors.get(f.url)).toEqual({
      modified: "2026-01-03T00:00:03.000000000Z",
      boundaryIds: [id(3)],
      syncTime: now,
    });
  });

  it("fetches a modified, a new and a withdrawn document alone, and applies them as the full import does", async () => {
    const f = folderWith(() => [...base(), doc(4, "2026-01-04T00:00:04Z")]);
    await sync(f);
    f.put(
      doc(1, "2026-01-05T00:00:00.123456789Z", { summary: "changed" }),
      doc(5, "2026-01-05T00:00:01Z"),
      doc(2, "2026-01-05T00:00:02Z", { withdrawn: "2026-01-05T00:00:02Z" }),
    );
    const { result, paths } = await sync(f);
    expect(paths).toEqual([json(1), json(2), json(5), "modified_id.csv"]);
    expect(result).toMatchObject({
      kind: "imported",
      mode: "incremental",
      summary: { imported: 1, updated: 2, unchanged: 0, skipped: 0 },
      fetched: { documents: 3 },
    });
    expect(result.fallback).toBeUndefined();
    expect(await stored(id(1))).toMatchObject({ summary: "changed", modified: "2026-01-05T00:00:00.123456789Z" });
    expect(await stored(id(2))).toMatchObject({ withdrawn: "2026-01-05T00:00:02Z" });
    expect(await stored(id(5))).toMatchObject({ id: id(5) });
    expect(await t.store().feedCursors.get(f.url)).toMatchObject({ modified: "2026-01-05T00:00:02.000000000Z", boundaryIds: [id(2)] });
    expect((await sync(f)).paths).toEqual(["modified_id.csv"]);
  });

  it("fetches a document listed at the cursor's very time that the cursor does not hold, and only it", async () => {
    const f = folderWith(base);
    await sync(f);
    f.put(doc(9, "2026-01-03T00:00:03Z"));
    const { result, paths } = await sync(f);
    expect(paths).toEqual([json(9), "modified_id.csv"]);
    expect(result).toMatchObject({ mode: "incremental", summary: { imported: 1 } });
    expect(await t.store().feedCursors.get(f.url)).toMatchObject({
      modified: "2026-01-03T00:00:03.000000000Z",
      boundaryIds: [id(3), id(9)],
    });
    expect((await sync(f)).paths).toEqual(["modified_id.csv"]);
  });

  it("reads past a line of the cursor's second that sorts before a newer one (OSV sorts the text: 'Z' after '.')", async () => {
    const f = folderWith(() => [doc(1, "2026-01-01T00:00:01Z"), doc(2, "2026-01-03T00:00:05Z"), doc(3, "2026-01-03T00:00:05.5Z")]);
    await sync(f);
    f.put(doc(4, "2026-01-03T00:00:05.7Z"));
    expect(f.index().split("\n").slice(0, 3)).toEqual([
      `2026-01-03T00:00:05Z,${id(2)}`,
      `2026-01-03T00:00:05.7Z,${id(4)}`,
      `2026-01-03T00:00:05.5Z,${id(3)}`,
    ]);
    const { result, paths } = await sync(f);
    expect(paths).toEqual([json(4), "modified_id.csv"]);
    expect(result).toMatchObject({ mode: "incremental", summary: { imported: 1 } });
  });

  it("follows the bucket's top-level index, whose lines name <ecosystem>/<id>", async () => {
    const top = folderWith(base, "");
    const pypi = bucket.folder(`/bucket-${folders}/PyPI`);
    pypi.put(...base());
    expect(top.url).toMatch(/\/bucket-\d+\/all\.zip$/);
    await sync(top);
    pypi.put(doc(4, "2026-01-07T00:00:00Z"));
    top.overrides.set("modified_id.csv", pypi.index().replaceAll(",", ",PyPI/"));
    const { result, paths } = await sync(top);
    expect(paths).toEqual([`PyPI/${json(4)}`, "modified_id.csv"]);
    expect(result).toMatchObject({ mode: "incremental", summary: { imported: 1 } });
  });

  it("keeps the cursor behind a document dated in the future", async () => {
    const f = folderWith(() => [...base(), doc(4, "2027-01-01T00:00:00Z")]);
    expect((await sync(f)).result).toMatchObject({ mode: "full", summary: { imported: 4 } });
    expect(await t.store().feedCursors.get(f.url)).toMatchObject({ modified: "2026-01-03T00:00:03.000000000Z", boundaryIds: [id(3)] });
  });

  it("leaves the cursor behind when a document cannot be fetched, and the next sync applies everything", async () => {
    const f = folderWith(base);
    await sync(f);
    const cursor = await t.store().feedCursors.get(f.url);
    f.put(doc(1, "2026-01-06T00:00:00Z", { summary: "one" }), doc(2, "2026-01-06T00:00:01Z", { summary: "two" }));
    f.overrides.set(json(2), 503);
    await expect(sync(f)).rejects.toThrow(
      "1 of 2 changed documents could not be applied, so the cursor stays at 2026-01-03T00:00:03.000000000Z: " +
        `${f.url.replace("all.zip", json(2))}: HTTP 503`,
    );
    expect(await t.store().feedCursors.get(f.url)).toEqual(cursor);
    expect(await stored(id(1))).toMatchObject({ summary: "one" });

    f.overrides.delete(json(2));
    const { result, paths } = await sync(f);
    expect(paths).toEqual([json(1), json(2), "modified_id.csv"]);
    expect(result).toMatchObject({ mode: "incremental", summary: { updated: 1, unchanged: 1 } });
    expect(await stored(id(2))).toMatchObject({ summary: "two" });
    expect(await t.store().feedCursors.get(f.url)).toMatchObject({ modified: "2026-01-06T00:00:01.000000000Z" });
  });

  it("keeps the cursor when a document is older than the index says (a stale cached copy)", async () => {
    const f = folderWith(base);
    await sync(f);
    f.put(doc(1, "2026-01-06T00:00:00Z"));
    f.overrides.set(json(1), JSON.stringify({ id: id(1), modified: "2026-01-01T00:00:01Z" }));
    await expect(sync(f)).rejects.toThrow(
      `${f.url.replace("all.zip", json(1))}: its modified time 2026-01-01T00:00:01.000000000Z ` +
        "is older than the index's 2026-01-06T00:00:00.000000000Z (a stale copy)",
    );
    expect(await t.store().feedCursors.get(f.url)).toMatchObject({ modified: "2026-01-03T00:00:03.000000000Z" });
  });

  it.each([
    [
      "the index is missing",
      (f: BucketFolder) => f.overrides.set("modified_id.csv", 404),
      {},
      /^the index http:.*\/modified_id\.csv answered HTTP 404$/,
    ],
    ["the index fails", (f: BucketFolder) => f.overrides.set("modified_id.csv", 500), {}, /answered HTTP 500$/],
    [
      "a line is malformed",
      (f: BucketFolder) => f.overrides.set("modified_id.csv", f.index().replace(`,${id(3)}\n`, ",../../etc/passwd\n")),
      {},
      /is malformed: line 2: the id is not an OSV id \(letters, digits and \. _ : \+ -\): "2026-01-06T00:00:00Z,..\/..\/etc\/passwd"$/,
    ],
    [
      "the oldest line is newer than the cursor (too many changes in between)",
      (f: BucketFolder) => f.overrides.set("modified_id.csv", f.index().split("\n")[0]! + "\n"),
      {},
      /^the index ends before it reaches the cursor's time \(2026-01-03T00:00:03.000000000Z\)$/,
    ],
    [
      "more lines than maxChanges are newer than the cursor",
      () => undefined,
      { maxChanges: 1 },
      /^more than 1 lines are as new as the cursor/,
    ],
    [
      "the cursor is older than maxCursorAgeMs",
      () => (now += 8 * DAY),
      {},
      /^the cursor was last confirmed at .*, longer ago than the 604800000 ms trusted$/,
    ],
  ] as const)("imports the archive when %s, and says why", async (_name, arrange, more, reason) => {
    const f = folderWith(base);
    await sync(f);
    f.put(doc(3, "2026-01-06T00:00:00Z", { summary: "newer" }), doc(4, "2026-01-06T00:00:01Z"));
    arrange(f);
    const count = await t.store().advisories.count({});
    const { result, paths } = await sync(f, more);
    expect(result).toMatchObject({
      kind: "imported",
      mode: "full",
      summary: { imported: 1, updated: 1, unchanged: 2 },
      fetched: { documents: 4 },
    });
    expect(result.fallback).toMatch(reason);
    expect(paths).toContain("all.zip");
    expect(paths.filter((p) => p.endsWith(".json"))).toEqual([]);
    expect(await t.store().advisories.count({})).toBe(count + 1);
    expect(await t.store().feedCursors.get(f.url)).toMatchObject({ modified: "2026-01-06T00:00:01.000000000Z", boundaryIds: [id(4)] });
  });

  it("always imports an archive that is not an OSV bucket's all.zip, and keeps no cursor", async () => {
    const f = folderWith(base);
    const url = f.url.replace(/all\.zip$/, "mirror.zip");
    f.overrides.set("mirror.zip", 404);
    const before = bucket.requests.length;
    await expect(syncFeed(options(f, { url }), {}, new AbortController().signal)).rejects.toThrow("the feed answered HTTP 404");
    expect(bucket.requests.slice(before)).toEqual([new URL(url).pathname]);
    expect(await t.store().feedCursors.get(url)).toBeUndefined();
  });
});
