/**
 * Reading documents out of zip archives: only `*.json` entries count, and an entry that lies
 * about itself (checksum, size, a zip bomb) or cannot be decoded is skipped with its reason,
 * without costing the other entries.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { writeZipFile, zipOf, type ZipEntry } from "../../bench/zip-writer.js";
import { MAX_DOCUMENT_BYTES, type SourceItem } from "../../src/osv/source-item.js";
import { openZipDocuments } from "../../src/osv/zip-archive.js";

const good = (name: string) => ({ name, data: Buffer.from(JSON.stringify({ id: name, modified: "2024-01-01T00:00:00Z" })) });

async function readAt(entries: ZipEntry[], inMemoryBytes?: number): Promise<{ count: number; items: SourceItem[] }> {
  const path = join(dir, `${Math.random()}.zip`);
  await writeFile(path, zipOf(entries));
  const zip = await openZipDocuments(path, "feed.zip", inMemoryBytes === undefined ? {} : { inMemoryBytes });
  const items: SourceItem[] = [];
  for await (const item of zip.items()) items.push(item);
  return { count: zip.count, items };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-zip-test-"));
});

describe.each([
  ["in memory", undefined],
  ["through the file, a few blocks at a time", 0],
])("zip archives of documents, read %s", (_how, inMemoryBytes) => {
  const read = (entries: ZipEntry[]) => readAt(entries, inMemoryBytes);

  it("yields the JSON entries, deflated or stored, in archive order, named archive!entry", async () => {
    const { count, items } = await read([
      good("b/A-1.json"),
      { name: "b/", data: Buffer.alloc(0) },
      { ...good("A-2.JSON"), method: 0 },
      good("README.md"),
    ]);
    expect(count).toBe(2);
    expect(items.map((i) => [i.kind, i.source])).toEqual([
      ["document", "feed.zip!b/A-1.json"],
      ["document", "feed.zip!A-2.JSON"],
    ]);
    expect(JSON.parse(Buffer.from((items[1] as { bytes: Uint8Array }).bytes).toString())).toEqual({
      id: "A-2.JSON",
      modified: "2024-01-01T00:00:00Z",
    });
  });

  it.each<[string, ZipEntry, string]>([
    ["a wrong checksum", { ...good("x.json"), crc: 1234 }, "cannot be read from the archive: its checksum does not match"],
    [
      "a size that lies low",
      { ...good("x.json"), size: 10 },
      "cannot be read from the archive: its size differs from the archive's directory",
    ],
    [
      "a zip bomb claiming to be small",
      { name: "x.json", data: Buffer.alloc(MAX_DOCUMENT_BYTES + 1, 0x20), size: 100 },
      expect.stringMatching(/^cannot be read from the archive: /) as unknown as string,
    ],
    [
      "more compressed bytes than its size could make",
      { name: "x.json", data: randomBytes(5000), size: 100 },
      "cannot be read from the archive: its compressed size is larger than its data could make",
    ],
    ["a size over the limit", { ...good("x.json"), size: MAX_DOCUMENT_BYTES + 1 }, `larger than ${MAX_DOCUMENT_BYTES} bytes`],
    [
      "another compression method",
      { ...good("x.json"), method: 12 },
      "cannot be read from the archive: compression method 12 is not supported",
    ],
  ])("skips an entry with %s, and reads the next", async (_name, bad, reason) => {
    const { items } = await read([bad, good("y.json")]);
    expect(items).toEqual([
      { kind: "skipped", source: "feed.zip!x.json", reason },
      { kind: "document", source: "feed.zip!y.json", bytes: expect.anything() },
    ]);
  });

  it("refuses an archive whose entries share their data, as a zip bomb's do, and reads one whose directory is out of order", async () => {
    const open = async (zip: Buffer) => {
      const path = join(dir, `${Math.random()}.zip`);
      await writeFile(path, zip);
      return openZipDocuments(path, "feed.zip", inMemoryBytes === undefined ? {} : { inMemoryBytes });
    };
    const a = good("a.json");
    const b = good("b.json");
    const bomb = zipOf([a, ...[1, 2].map((i) => ({ name: `${i}.json`, data: Buffer.alloc(0), dataOf: 0 }))]);
    await expect(open(bomb)).rejects.toThrow("its entries overlap (two directory entries share data at byte 0), as a zip bomb's do");
    // Two entries, the directory listing the second first: honest, and read in directory order.
    const reversed = await open(zipOf([a, b], [1, 0]));
    expect(reversed.count).toBe(2);
    const items: SourceItem[] = [];
    for await (const item of reversed.items()) items.push(item);
    expect(items.map((i) => [i.kind, i.source])).toEqual([
      ["document", "feed.zip!b.json"],
      ["document", "feed.zip!a.json"],
    ]);
  });

  it("refuses a file that is no zip archive", async () => {
    const path = join(dir, "not.zip");
    await writeFile(path, "PK, but no archive");
    await expect(openZipDocuments(path, "not.zip", inMemoryBytes === undefined ? {} : { inMemoryBytes })).rejects.toThrow();
  });
});

describe("a zip64 archive of more entries than a plain zip holds, larger than a block", () => {
  it("is counted and read whole, in order, through the file", async () => {
    const n = 70_000;
    const path = join(dir, "zip64.zip");
    // Stored, so the archive (about 8 MB) spans blocks of the reader.
    await writeZipFile(
      path,
      (function* () {
        for (let i = 0; i < n; i++) yield { ...good(`d/${String(i).padStart(6, "0")}.json`), method: 0 };
      })(),
    );
    const zip = await openZipDocuments(path, "all.zip", { inMemoryBytes: 0 });
    expect(zip.count).toBe(n);
    let i = 0;
    for await (const item of zip.items()) {
      const name = `d/${String(i).padStart(6, "0")}.json`;
      if (item.kind !== "document" || item.source !== `all.zip!${name}`) throw new Error(`entry ${i}: ${JSON.stringify(item)}`);
      if (i % 9_999 === 0) expect(JSON.parse(Buffer.from(item.bytes).toString())).toEqual({ id: name, modified: "2024-01-01T00:00:00Z" });
      i++;
    }
    expect(i).toBe(n);
  });
});
