/**
 * Reading documents out of zip archives: only `*.json` entries count, and an entry that lies
 * about itself (checksum, size, a zip bomb) or cannot be decoded is skipped with its reason,
 * without costing the other entries.
 */
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { zipOf, type ZipEntry } from "../../bench/zip-writer.js";
import { MAX_DOCUMENT_BYTES, type SourceItem } from "../../src/osv/source-item.js";
import { openZipDocuments } from "../../src/osv/zip-archive.js";

const good = (name: string) => ({ name, data: Buffer.from(JSON.stringify({ id: name, modified: "2024-01-01T00:00:00Z" })) });

async function read(entries: ZipEntry[]): Promise<{ count: number; items: SourceItem[] }> {
  const path = join(dir, `${Math.random()}.zip`);
  await writeFile(path, zipOf(entries));
  const zip = await openZipDocuments(path, "feed.zip");
  const items: SourceItem[] = [];
  for await (const item of zip.items()) items.push(item);
  return { count: zip.count, items };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "arbor-zip-test-"));
});

describe("zip archives of documents", () => {
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

  it("refuses a file that is no zip archive", async () => {
    const path = join(dir, "not.zip");
    await writeFile(path, "PK, but no archive");
    await expect(openZipDocuments(path, "not.zip")).rejects.toThrow();
  });
});
