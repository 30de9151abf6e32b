/**
 * A file as yauzl reads it, through a few cached blocks: an archive's reads are small and nearly
 * sequential in two places (the central directory, and the entries' data), so a block of each
 * serves hundreds of them with one read of the file, while memory stays a few blocks whatever
 * the archive's size (reading a 300 MB archive whole into memory, as small ones are, would be
 * most of the import's memory budget).
 */
import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import yauzl from "yauzl";

/**
 * Bytes per block. Small enough that a block read past dies young: blocks of 4 MB outlived two
 * young-generation collections, and the ones read past piled up in the old generation until its
 * next full collection (tens of MB of an import's memory).
 */
const BLOCK = 256 * 1024;
/** Blocks kept: the directory's, the data's, and one each for a read across a boundary. */
const BLOCKS = 4;

/** Reads of file (size bytes long) served from cached blocks; closing the reader closes the file. */
export class BlockReader extends yauzl.RandomAccessReader {
  private readonly blocks = new Map<number, Promise<Buffer>>();

  constructor(
    private readonly file: FileHandle,
    private readonly size: number,
  ) {
    super();
  }

  override read(
    buffer: Buffer,
    offset: number,
    length: number,
    position: number,
    callback: (err: Error | null, bytesRead?: number) => void,
  ): void {
    this.range(position, position + length).then(
      (data) => callback(null, data.copy(buffer, offset)),
      (e: unknown) => callback(e instanceof Error ? e : new Error(String(e))),
    );
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const range = () => this.range(start, end);
    return Readable.from(
      (async function* () {
        yield await range();
      })(),
    );
  }

  override close(callback: (err: Error | null) => void): void {
    this.blocks.clear();
    this.file.close().then(
      () => callback(null),
      (e: unknown) => callback(e instanceof Error ? e : new Error(String(e))),
    );
  }

  /** The bytes from start to end (fewer past the end of the file). */
  private async range(start: number, end: number): Promise<Buffer> {
    const stop = Math.min(end, this.size);
    if (stop <= start) return Buffer.alloc(0);
    if (stop - start > BLOCK) {
      // An entry larger than a block is read alone (documents are at most 32 MB).
      const data = Buffer.alloc(stop - start);
      const { bytesRead } = await this.file.read(data, 0, data.length, start);
      return data.subarray(0, bytesRead);
    }
    const first = Math.floor(start / BLOCK);
    const last = Math.floor((stop - 1) / BLOCK);
    const parts: Buffer[] = [];
    for (let i = first; i <= last; i++) parts.push(await this.block(i));
    const joined = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts);
    return joined.subarray(start - first * BLOCK, stop - first * BLOCK);
  }

  private block(i: number): Promise<Buffer> {
    let block = this.blocks.get(i);
    if (block !== undefined) {
      this.blocks.delete(i);
    } else {
      block = this.load(i);
      if (this.blocks.size >= BLOCKS) this.blocks.delete(this.blocks.keys().next().value as number);
    }
    this.blocks.set(i, block);
    return block;
  }

  private async load(i: number): Promise<Buffer> {
    const data = Buffer.alloc(Math.min(BLOCK, this.size - i * BLOCK));
    const { bytesRead } = await this.file.read(data, 0, data.length, i * BLOCK);
    return data.subarray(0, bytesRead);
  }
}
