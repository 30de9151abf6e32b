/**
 * A file as yauzl reads it, through a few cached blocks: an archive's reads are small and nearly
 * sequential in two places (the central directory, and the entries' data), so a block of each
 * serves thousands of them with one read of the file, while memory stays a few blocks whatever
 * the archive's size (reading a 300 MB archive whole into memory, as small ones are, would be
 * most of the import's memory budget).
 */
import type { FileHandle } from "node:fs/promises";
import { Readable } from "node:stream";
import yauzl from "yauzl";

/** Bytes per block. */
const BLOCK = 1024 * 1024;
/** Blocks kept: the directory's, the data's, and one each for a read across a boundary. */
const BLOCKS = 4;

/** A block of the file in one of the reader's buffers, and how many reads are copying from it. */
interface Slot {
  index: number;
  buffer: Buffer;
  /** The block's bytes: a view of buffer, as many as the file has there. */
  loaded: Promise<Buffer>;
  users: number;
  lastUse: number;
}

/**
 * Reads of file (size bytes long) served from cached blocks; closing the reader closes the file.
 * The blocks' buffers are allocated once and used again: every read copies out of them, so no
 * view of one outlives the read (allocated anew, each 4 MB block outlived two young-generation
 * collections, and those read past piled up in the old generation until its next full one: tens
 * of MB of an import's memory). A buffer is loaded again only once no read is copying from it.
 */
export class BlockReader extends yauzl.RandomAccessReader {
  private readonly slots: Slot[] = [];
  private uses = 0;

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
    this.copy(buffer, offset, position, position + length).then(
      (n) => callback(null, n),
      (e: unknown) => callback(e instanceof Error ? e : new Error(String(e))),
    );
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const range = async () => {
      const data = Buffer.allocUnsafe(Math.max(0, Math.min(end, this.size) - start));
      return data.subarray(0, await this.copy(data, 0, start, end));
    };
    return Readable.from(
      (async function* () {
        yield await range();
      })(),
    );
  }

  override close(callback: (err: Error | null) => void): void {
    this.slots.length = 0;
    this.file.close().then(
      () => callback(null),
      (e: unknown) => callback(e instanceof Error ? e : new Error(String(e))),
    );
  }

  /** Copies the file's bytes from start to end into target at offset; how many there were (fewer past the end of the file). */
  private async copy(target: Buffer, offset: number, start: number, end: number): Promise<number> {
    const stop = Math.min(end, this.size);
    if (stop <= start) return 0;
    if (stop - start > BLOCK) {
      // An entry larger than a block is read alone (documents are at most 32 MB).
      const { bytesRead } = await this.file.read(target, offset, stop - start, start);
      return bytesRead;
    }
    let copied = 0;
    for (let i = Math.floor(start / BLOCK); i * BLOCK < stop; i++) {
      const slot = this.slot(i);
      slot.users++;
      try {
        const data = await slot.loaded;
        const from = Math.max(start, i * BLOCK) - i * BLOCK;
        const to = Math.min(stop, (i + 1) * BLOCK) - i * BLOCK;
        copied += data.copy(target, offset + copied, from, Math.min(to, data.length));
      } finally {
        slot.users--;
      }
    }
    return copied;
  }

  /**
   * The slot holding block i: cached, or loaded into a new buffer (up to BLOCKS) or into that of
   * the least recently used slot no read is copying from. When reads running side by side hold
   * every buffer, into a buffer of its own that is not kept.
   */
  private slot(i: number): Slot {
    let slot = this.slots.find((s) => s.index === i);
    if (slot === undefined) {
      const idle = this.slots.filter((s) => s.users === 0).sort((a, b) => a.lastUse - b.lastUse)[0];
      const kept = this.slots.length < BLOCKS || idle !== undefined;
      const buffer = this.slots.length < BLOCKS || idle === undefined ? Buffer.allocUnsafe(BLOCK) : idle.buffer;
      slot = { index: i, buffer, loaded: this.load(i, buffer), users: 0, lastUse: 0 };
      if (this.slots.length < BLOCKS) this.slots.push(slot);
      else if (idle !== undefined) this.slots[this.slots.indexOf(idle)] = slot;
      if (!kept) return slot;
    }
    slot.lastUse = ++this.uses;
    return slot;
  }

  private async load(i: number, buffer: Buffer): Promise<Buffer> {
    const length = Math.min(BLOCK, this.size - i * BLOCK);
    const { bytesRead } = await this.file.read(buffer, 0, length, i * BLOCK);
    return buffer.subarray(0, bytesRead);
  }
}
