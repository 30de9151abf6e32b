/**
 * The feed cursor store on every engine: none before a feed's first sync, one per feed URL, and
 * a put replacing the feed's cursor whole (its boundary ids too).
 */
import { expect, it } from "vitest";
import { describeEachEngine } from "../support/engines.js";

const FEED = "https://storage.googleapis.com/osv-vulnerabilities/PyPI/all.zip";
const OTHER = "https://storage.googleapis.com/osv-vulnerabilities/npm/all.zip";

describeEachEngine("feed cursor store", (t) => {
  it("has no cursor before a feed's first sync", async () => {
    expect(await t.store().feedCursors.get(FEED)).toBeUndefined();
  });

  it("keeps one cursor per feed, a put replacing it whole", async () => {
    const cursors = t.store().feedCursors;
    await cursors.put(FEED, {
      modified: "2026-01-03T00:00:03.000000000Z",
      boundaryIds: ["PYSEC-1", "PYSEC-2"],
      syncTime: 1_767_398_400_123,
    });
    await cursors.put(OTHER, { modified: "2026-01-01T00:00:00.000000000Z", boundaryIds: ["GHSA-x"], syncTime: 1 });
    expect(await cursors.get(FEED)).toEqual({
      modified: "2026-01-03T00:00:03.000000000Z",
      boundaryIds: ["PYSEC-1", "PYSEC-2"],
      syncTime: 1_767_398_400_123,
    });
    await cursors.put(FEED, { modified: "2026-01-04T00:00:00.500000000Z", boundaryIds: [], syncTime: 1_767_484_800_000 });
    expect(await cursors.get(FEED)).toEqual({ modified: "2026-01-04T00:00:00.500000000Z", boundaryIds: [], syncTime: 1_767_484_800_000 });
    expect(await cursors.get(OTHER)).toEqual({ modified: "2026-01-01T00:00:00.000000000Z", boundaryIds: ["GHSA-x"], syncTime: 1 });
  });
});
