/**
 * Reading OSV's modified_id.csv: canonical times, where reading stops, what is listed to fetch,
 * and every malformed line refused with its number (the file is remote input).
 */
import { describe, expect, it } from "vitest";
import { canonicalTime, MAX_LINE_BYTES, readModifiedIndex, type IndexRead } from "../../src/osv/modified-index.js";
import type { FeedCursor } from "../../src/store/feed-cursor-store.js";

const CURSOR: FeedCursor = { modified: "2026-01-03T00:00:03.000000000Z", boundaryIds: ["GHSA-c"], syncTime: 0 };
const LIMITS = { maxLines: 100, latest: "2026-02-01T00:00:00.000000000Z" };

/** The chunks of text, and how many of them were read. */
function body(chunks: (string | Uint8Array)[]) {
  const seen = { chunks: 0 };
  return {
    seen,
    async *[Symbol.asyncIterator]() {
      for (const c of chunks) {
        seen.chunks++;
        yield typeof c === "string" ? new TextEncoder().encode(c) : c;
      }
    },
  };
}
const read = (text: string | (string | Uint8Array)[], cursor = CURSOR, limits = LIMITS): Promise<IndexRead> =>
  readModifiedIndex(body(Array.isArray(text) ? text : [text]), cursor, limits);
const listed = async (text: string) => {
  const r = await read(text);
  return r.kind === "changes" ? r.entries.map((e) => `${e.time} ${e.path.join("/")}`) : r.reason;
};

describe("canonicalTime", () => {
  it.each([
    ["2024-08-15T00:05:00Z", "2024-08-15T00:05:00.000000000Z"],
    ["2024-08-15T00:05:00.5Z", "2024-08-15T00:05:00.500000000Z"],
    ["2024-08-15T00:05:00.123456789Z", "2024-08-15T00:05:00.123456789Z"],
    ["2024-02-29T23:59:59Z", "2024-02-29T23:59:59.000000000Z"],
    ["2023-02-29T00:00:00Z", undefined],
    ["2024-08-15T24:00:00Z", undefined],
    ["2024-08-15T00:05:60Z", undefined],
    ["2024-08-15T00:05:00.1234567890Z", undefined],
    ["2024-08-15T00:05:00+00:00", undefined],
    ["2024-08-15 00:05:00Z", undefined],
    ["2024-08-15T00:05:00z", undefined],
  ])("%s is %s", (text, canonical) => {
    expect(canonicalTime(text)).toBe(canonical);
  });
});

describe("readModifiedIndex", () => {
  it("lists what is newer than the cursor, and ids at its time it does not hold; one entry per id, its newest", async () => {
    const csv = [
      "2026-01-05T00:00:00Z,GHSA-a",
      "2026-01-04T00:00:00.25Z,GHSA-b",
      "2026-01-04T00:00:00Z,GHSA-a",
      "2026-01-03T00:00:03Z,GHSA-c",
      "2026-01-03T00:00:03Z,GHSA-d",
      "2026-01-02T00:00:00Z,GHSA-e",
    ].join("\n");
    expect(await listed(`${csv}\n`)).toEqual([
      "2026-01-05T00:00:00.000000000Z GHSA-a",
      "2026-01-04T00:00:00.250000000Z GHSA-b",
      "2026-01-03T00:00:03.000000000Z GHSA-d",
    ]);
  });

  it("takes the top-level index's <folder>/<id> paths", async () => {
    expect(
      await listed(
        "2026-01-05T00:00:00Z,PyPI/PYSEC-2026-1\n2026-01-04T00:00:00Z,Rocky Linux/RLSA-2026:1\n" +
          "2026-01-04T00:00:00Z,[EMPTY]/GHSA-x\n2026-01-01T00:00:00Z,npm/GHSA-y\n",
      ),
    ).toEqual([
      "2026-01-05T00:00:00.000000000Z PyPI/PYSEC-2026-1",
      "2026-01-04T00:00:00.000000000Z Rocky Linux/RLSA-2026:1",
      "2026-01-04T00:00:00.000000000Z [EMPTY]/GHSA-x",
    ]);
  });

  it("stops reading at the first line of an earlier second than the cursor's, reading on through the cursor's second", async () => {
    const chunks = [
      "2026-01-03T00:00:03Z,GHSA-c\n",
      "2026-01-03T00:00:03.5Z,GHSA-f\n",
      "2026-01-03T00:00:02.9Z,GHSA-g\n",
      "2026-01-01T00:00:00Z,GHSA-h\n",
      "not even a line",
    ];
    const b = body(chunks);
    const r = await readModifiedIndex(b, CURSOR, LIMITS);
    expect(r).toMatchObject({ kind: "changes", entries: [{ id: "GHSA-f", line: 2 }] });
    expect(b.seen.chunks).toBe(3);
  });

  it("lists a newer line that follows an older one of the cursor's second", async () => {
    const cursor = { ...CURSOR, modified: "2026-01-03T00:00:03.500000000Z", boundaryIds: ["GHSA-c"] };
    const r = await read(
      "2026-01-03T00:00:03Z,GHSA-x\n2026-01-03T00:00:03.7Z,GHSA-y\n2026-01-03T00:00:03.5Z,GHSA-c\n2026-01-02T00:00:00Z,GHSA-z\n",
      cursor,
    );
    expect(r).toMatchObject({ kind: "changes", entries: [{ id: "GHSA-y" }] });
    expect(r.kind === "changes" && r.entries.length).toBe(1);
  });

  it("splits lines across chunks, and counts the bytes read", async () => {
    expect(await read(["2026-01-04T00:00:00Z,GH", "SA-a\n2026-01-01T", "00:00:00Z,GHSA-b\n"])).toEqual({
      kind: "changes",
      entries: [{ time: "2026-01-04T00:00:00.000000000Z", id: "GHSA-a", path: ["GHSA-a"], line: 1 }],
      bytes: 56,
    });
  });

  it.each([
    [
      "an index that ends before the cursor's time",
      "2026-01-05T00:00:00Z,GHSA-a\n2026-01-04T00:00:00Z,GHSA-b\n",
      LIMITS,
      "the index ends before it reaches the cursor's time (2026-01-03T00:00:03.000000000Z)",
    ],
    ["an empty index", "", LIMITS, "the index ends before it reaches the cursor's time (2026-01-03T00:00:03.000000000Z)"],
    [
      "more lines than maxLines before the cursor",
      "2026-01-05T00:00:00Z,GHSA-a\n2026-01-04T00:00:00Z,GHSA-b\n2026-01-01T00:00:00Z,GHSA-c\n",
      { ...LIMITS, maxLines: 1 },
      "more than 1 lines are as new as the cursor (2026-01-03T00:00:03.000000000Z)",
    ],
  ])("finds a gap in %s", async (_name, text, limits, reason) => {
    expect(await read(text, CURSOR, limits)).toMatchObject({ kind: "gap", reason });
  });

  it("takes an index ending at the cursor's time, with or without a last newline", async () => {
    expect(await listed("2026-01-04T00:00:00Z,GHSA-a\n2026-01-03T00:00:03Z,GHSA-c")).toEqual(["2026-01-04T00:00:00.000000000Z GHSA-a"]);
  });

  it.each([
    ["no comma", "GHSA-a", 'line 1: expected <modified>,<id>: "GHSA-a"'],
    ["an empty line", "", 'line 1: expected <modified>,<id>: ""'],
    [
      "a time with an offset",
      "2026-01-04T00:00:00+01:00,GHSA-a",
      'line 1: the modified time is not an RFC 3339 UTC time: "2026-01-04T00:00:00+01:00,GHSA-a"',
    ],
    [
      "a day that is not",
      "2026-02-30T00:00:00Z,GHSA-a",
      'line 1: the modified time is not an RFC 3339 UTC time: "2026-02-30T00:00:00Z,GHSA-a"',
    ],
    ["a time in the future", "2027-01-01T00:00:00Z,GHSA-a", 'line 1: the modified time is in the future: "2027-01-01T00:00:00Z,GHSA-a"'],
    [
      "a path up the tree",
      "2026-01-04T00:00:00Z,../../etc/passwd",
      'line 1: the id is not an OSV id (letters, digits and . _ : + -): "2026-01-04T00:00:00Z,../../etc/passwd"',
    ],
    [
      "a folder up the tree",
      "2026-01-04T00:00:00Z,../GHSA-a",
      'line 1: the folder is not an OSV ecosystem folder: "2026-01-04T00:00:00Z,../GHSA-a"',
    ],
    [
      "an absolute path",
      "2026-01-04T00:00:00Z,/GHSA-a",
      'line 1: the folder is not an OSV ecosystem folder: "2026-01-04T00:00:00Z,/GHSA-a"',
    ],
    [
      "an escaped path",
      "2026-01-04T00:00:00Z,%2e%2e%2fGHSA-a",
      'line 1: the id is not an OSV id (letters, digits and . _ : + -): "2026-01-04T00:00:00Z,%2e%2e%2fGHSA-a"',
    ],
    [
      "a URL",
      "2026-01-04T00:00:00Z,http://evil.example/x",
      'line 1: the id is not an OSV id (letters, digits and . _ : + -): "2026-01-04T00:00:00Z,http://evil.example/x"',
    ],
    [
      "a quoted field",
      '2026-01-04T00:00:00Z,"GHSA-a"',
      'line 1: the id is not an OSV id (letters, digits and . _ : + -): "2026-01-04T00:00:00Z,\\"GHSA-a\\""',
    ],
    [
      "a carriage return",
      "2026-01-04T00:00:00Z,GHSA-a\r",
      'line 1: the id is not an OSV id (letters, digits and . _ : + -): "2026-01-04T00:00:00Z,GHSA-a\\r"',
    ],
    [
      "a third column",
      "2026-01-04T00:00:00Z,GHSA-a,x",
      'line 1: the id is not an OSV id (letters, digits and . _ : + -): "2026-01-04T00:00:00Z,GHSA-a,x"',
    ],
  ])("refuses %s, naming the line", async (_name, line, message) => {
    await expect(read(`2026-01-05T00:00:00Z,GHSA-z\n${line}\n`.replace(/^[^\n]*\n/, ""))).rejects.toThrow(message);
    await expect(read(`2026-01-05T00:00:00Z,GHSA-z\n${line}\n`)).rejects.toThrow(message.replace(/^line 1/, "line 2"));
  });

  it("refuses a line longer than MAX_LINE_BYTES, before it ends", async () => {
    const long = `2026-01-04T00:00:00Z,${"A".repeat(MAX_LINE_BYTES)}`;
    await expect(read(`2026-01-05T00:00:00Z,GHSA-z\n${long}\n`)).rejects.toThrow(`line 2: longer than ${MAX_LINE_BYTES} bytes`);
    const b = body(["2026-01-05T00:00:00Z,GHSA-z\n", "A".repeat(MAX_LINE_BYTES + 1), "never read"]);
    await expect(readModifiedIndex(b, CURSOR, LIMITS)).rejects.toThrow(`line 2: longer than ${MAX_LINE_BYTES} bytes`);
    expect(b.seen.chunks).toBe(2);
  });

  it("refuses a line that is not UTF-8", async () => {
    await expect(read([new Uint8Array([0x32, 0xff, 0x0a])])).rejects.toThrow("line 1: not UTF-8 text");
  });
});
