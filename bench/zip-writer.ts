/**
 * A plain zip writer for generated test and benchmark archives: each entry deflated (or stored)
 * in one call. A zip library's stream per entry takes longer than the import it prepares. The
 * overrides write an entry that lies (a wrong checksum or size, another method), for the
 * reader's tests.
 */
import { open } from "node:fs/promises";
import { crc32, deflateRawSync } from "node:zlib";

/** One entry: its name (ending in `/` for a folder) and data, and what to write instead of the truth. */
export interface ZipEntry {
  name: string;
  data: Buffer;
  /** 8 (deflate, the default) or 0 (stored); another number is written as the method, the data deflated. */
  method?: number;
  crc?: number;
  /** The uncompressed size the headers claim. */
  size?: number;
  /**
   * The index of an earlier entry whose data this one's directory record points at, as a zip
   * bomb's do; its own data is not written (data is ignored).
   */
  dataOf?: number;
}

/**
 * The bytes of a zip archive of entries (at most 65,535, under 4 GiB: no zip64), listed in the
 * directory in the order given by `order` (indices into entries; by default as written).
 */
export function zipOf(entries: readonly ZipEntry[], order?: readonly number[]): Buffer {
  const parts: Buffer[] = [];
  const records: Buffer[][] = [];
  /** Where each entry's local header is, and what its headers say. */
  const written: { offset: number; fields: HeaderFields }[] = [];
  let offset = 0;
  /** Writes e's local header and data; where it is, and what its headers say. */
  const writeLocal = (e: ZipEntry, name: Buffer) => {
    const method = e.method ?? 8;
    const packed = method === 0 ? e.data : deflateRawSync(e.data);
    const fields = { method, crc: e.crc ?? crc32(e.data), packed: packed.length, size: e.size ?? e.data.length, name: name.length };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeCommon(local, 4, fields);
    parts.push(local, name, packed);
    const at = offset;
    offset += local.length + name.length + packed.length;
    return { offset: at, fields };
  };
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const shared = e.dataOf === undefined ? undefined : written[e.dataOf];
    const placed = shared === undefined ? writeLocal(e, name) : { offset: shared.offset, fields: { ...shared.fields, name: name.length } };
    written.push(placed);
    const { offset: at, fields } = placed;
    const entry = Buffer.alloc(46);
    entry.writeUInt32LE(0x02014b50, 0);
    entry.writeUInt16LE(20, 4);
    writeCommon(entry, 6, fields);
    entry.writeUInt32LE(at, 42);
    records.push([entry, name]);
  }
  const directory = Buffer.concat((order ?? records.map((_, i) => i)).flatMap((i) => records[i] ?? []));
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, directory, end]);
}

/** Bytes written to the file at once. */
const WRITE_BYTES = 4 * 1024 * 1024;

/**
 * Writes a zip archive of entries to path as they come, so an archive of 500,000 documents never
 * sits in memory (only its directory does). Past 65,535 entries the counts go in a zip64 end
 * record, as OSV's all.zip has them; sizes and offsets stay under 4 GiB.
 */
export async function writeZipFile(path: string, entries: Iterable<ZipEntry>): Promise<void> {
  const file = await open(path, "w");
  try {
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const write = async (b: Buffer, force = false) => {
      pending.push(b);
      pendingBytes += b.length;
      if (pendingBytes >= WRITE_BYTES || force) {
        await file.write(Buffer.concat(pending));
        pending = [];
        pendingBytes = 0;
      }
    };
    const central: Buffer[] = [];
    let offset = 0;
    let count = 0;
    for (const e of entries) {
      const method = e.method ?? 8;
      const packed = method === 0 ? e.data : deflateRawSync(e.data);
      const name = Buffer.from(e.name);
      const fields = { method, crc: e.crc ?? crc32(e.data), packed: packed.length, size: e.size ?? e.data.length, name: name.length };
      const local = Buffer.alloc(30);
      local.writeUInt32LE(0x04034b50, 0);
      writeCommon(local, 4, fields);
      await write(Buffer.concat([local, name, packed]));
      const entry = Buffer.alloc(46);
      entry.writeUInt32LE(0x02014b50, 0);
      entry.writeUInt16LE(45, 4);
      writeCommon(entry, 6, fields);
      entry.writeUInt32LE(offset, 42);
      central.push(entry, name);
      offset += local.length + name.length + packed.length;
      count++;
    }
    const directory = Buffer.concat(central);
    const zip64 = count > 0xffff;
    if (zip64) {
      const record = Buffer.alloc(56);
      record.writeUInt32LE(0x06064b50, 0);
      record.writeBigUInt64LE(44n, 4);
      record.writeUInt16LE(45, 12);
      record.writeUInt16LE(45, 14);
      record.writeBigUInt64LE(BigInt(count), 24);
      record.writeBigUInt64LE(BigInt(count), 32);
      record.writeBigUInt64LE(BigInt(directory.length), 40);
      record.writeBigUInt64LE(BigInt(offset), 48);
      const locator = Buffer.alloc(20);
      locator.writeUInt32LE(0x07064b50, 0);
      locator.writeBigUInt64LE(BigInt(offset + directory.length), 8);
      locator.writeUInt32LE(1, 16);
      await write(Buffer.concat([directory, record, locator]));
    } else {
      await write(directory);
    }
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(zip64 ? 0xffff : count, 8);
    end.writeUInt16LE(zip64 ? 0xffff : count, 10);
    end.writeUInt32LE(directory.length, 12);
    end.writeUInt32LE(offset, 16);
    await write(end, true);
  } finally {
    await file.close();
  }
}

/** The fields local and central headers share, from `at`: version needed, flags (UTF-8 names), method, time, sizes, name length. */
/** What a local header and a directory record both say of an entry. */
interface HeaderFields {
  method: number;
  crc: number;
  packed: number;
  size: number;
  name: number;
}

function writeCommon(b: Buffer, at: number, f: HeaderFields): void {
  b.writeUInt16LE(20, at);
  b.writeUInt16LE(0x0800, at + 2);
  b.writeUInt16LE(f.method, at + 4);
  b.writeUInt16LE(0, at + 6);
  b.writeUInt16LE(0x5821, at + 8);
  b.writeUInt32LE(f.crc >>> 0, at + 10);
  b.writeUInt32LE(f.packed, at + 14);
  b.writeUInt32LE(f.size, at + 18);
  b.writeUInt16LE(f.name, at + 22);
}
