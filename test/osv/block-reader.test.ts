/**
 * The archive reader's cached blocks (src/osv/block-reader.ts): every read returns the file's own
 * bytes, whether it falls in one block, spans two, is larger than a block, runs past the end of
 * the file, or runs beside other reads that hold every cached buffer; its buffers are used again.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BlockReader } from "../../src/osv/block-reader.js";

const MB = 1024 * 1024;
const work = mkdtempSync(join(tmpdir(), "arbor-block-reader-"));
const path = join(work, "file.bin");
// 26.5 MB: twenty-six blocks of 1 MB and a half.
const content = randomBytes(26 * MB + MB / 2);
writeFileSync(path, content);

async function readerOf(): Promise<BlockReader> {
  return new BlockReader(await open(path, "r"), content.length);
}

function read(reader: BlockReader, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  return new Promise((resolve, reject) =>
    reader.read(buffer, 0, length, position, (e, n) => (e ? reject(e) : resolve(buffer.subarray(0, n)))),
  );
}

describe("the archive's block reader", () => {
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("returns the file's bytes for reads within a block, across blocks, larger than one, and past the end", async () => {
    const reader = await readerOf();
    const cases: [number, number][] = [
      [0, 100],
      [4 * MB - 10, 20],
      [2 * MB - 100, MB - 50],
      [8 * MB - 1, 4 * MB + 2],
      [3 * MB, 9 * MB],
      [content.length - 5, 100],
      [content.length, 10],
      [0, 0],
    ];
    // Twice, in another order: the second pass reads blocks loaded into buffers used before.
    for (const [position, length] of [...cases, ...cases.reverse()]) {
      const expected = content.subarray(position, Math.min(position + length, content.length));
      expect((await read(reader, position, length)).equals(expected)).toBe(true);
    }
    await new Promise<void>((resolve, reject) => reader.close((e) => (e ? reject(e) : resolve())));
  });

  it("returns the file's bytes to reads running side by side over more blocks than it keeps", async () => {
    const reader = await readerOf();
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const reads = Array.from({ length: 200 }, () => [next() % content.length, 1 + (next() % MB)] as const);
    const results = await Promise.all(reads.map(([position, length]) => read(reader, position, length)));
    results.forEach((got, k) => {
      const [position, length] = reads[k] as readonly [number, number];
      expect(got.equals(content.subarray(position, Math.min(position + length, content.length)))).toBe(true);
    });
    await new Promise<void>((resolve, reject) => reader.close((e) => (e ? reject(e) : resolve())));
  });

  it("streams a range as yauzl asks for one", async () => {
    const reader = await readerOf();
    const chunks: Buffer[] = [];
    for await (const chunk of reader._readStreamForRange(5 * MB - 3, 9 * MB + 4)) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(content.subarray(5 * MB - 3, 9 * MB + 4))).toBe(true);
    await new Promise<void>((resolve, reject) => reader.close((e) => (e ? reject(e) : resolve())));
  });
});
