/**
 * The OSV documents of a zip archive (the form OSV feeds publish: one JSON file per advisory),
 * read one entry at a time, each bounded in size, so a hostile archive (a zip bomb, sizes that
 * lie) cannot exhaust memory, and neither can a large honest one (all of OSV).
 */
import { open, readFile, stat } from "node:fs/promises";
import { crc32, inflateRawSync } from "node:zlib";
import yauzl from "yauzl";
import { BlockReader } from "./block-reader.js";
import { isDocumentName, MAX_DOCUMENT_BYTES, type SourceItem } from "./source-item.js";

const STORED = 0;
const DEFLATED = 8;

/** An opened archive: how many documents it holds, and then the documents (which closes it). */
export interface ZipDocuments {
  readonly count: number;
  items(): AsyncGenerator<SourceItem>;
  /** Closes the archive without reading it. */
  close(): void;
}

/**
 * Archives up to this size are read into memory, which makes reading their many small entries
 * some ten times faster than through the file; larger ones are read through a few cached blocks
 * of the file (block-reader.ts), so memory stays bounded whatever the archive's size.
 */
const IN_MEMORY_BYTES = 64 * 1024 * 1024;

/** How an archive is read: tests read small ones through the file too. */
export interface ZipOptions {
  /** Archives up to this size are read into memory. */
  inMemoryBytes?: number;
}

/**
 * Opens an archive and counts its documents; throws when it is no readable zip, or when its
 * documents' data overlap (refuseOverlaps). The directory is read once to count and again, an
 * entry at a time, as the documents are read: nothing is kept per entry, so an archive of all of
 * OSV costs no more memory than a small one.
 */
export async function openZipDocuments(
  path: string,
  label: string,
  { inMemoryBytes = IN_MEMORY_BYTES }: ZipOptions = {},
): Promise<ZipDocuments> {
  const counting = await openZip(path, inMemoryBytes);
  // Where each document's data lies, in archive order: ascending, as archivers write them.
  let count = 0;
  let previousEnd = 0;
  let ascending = true;
  try {
    for await (const entry of documentEntries(counting)) {
      const start = entry.relativeOffsetOfLocalHeader;
      if (start < previousEnd) ascending = false;
      previousEnd = Math.max(previousEnd, entryEnd(entry));
      count++;
    }
  } finally {
    counting.close();
  }
  // An entry starting before the one before it ends: overlapping, or a directory out of order.
  if (!ascending) await refuseOverlaps(path, inMemoryBytes);
  let closed = false;
  return {
    count,
    close: () => void (closed = true),
    async *items() {
      if (closed) return;
      const zip = await openZip(path, inMemoryBytes);
      try {
        for await (const entry of documentEntries(zip)) {
          const source = `${label}!${entry.fileName}`;
          if (entry.uncompressedSize > MAX_DOCUMENT_BYTES) {
            yield { kind: "skipped", source, reason: `larger than ${MAX_DOCUMENT_BYTES} bytes` };
            continue;
          }
          try {
            yield { kind: "document", source, bytes: await readEntry(zip, entry) };
          } catch (e) {
            yield { kind: "skipped", source, reason: `cannot be read from the archive: ${(e as Error).message}` };
          }
        }
      } finally {
        zip.close();
      }
    },
  };
}

async function openZip(path: string, inMemoryBytes: number): Promise<yauzl.ZipFile> {
  const options = { lazyEntries: true, autoClose: false, validateEntrySizes: true };
  const { size } = await stat(path);
  if (size <= inMemoryBytes) {
    const buffer = await readFile(path);
    return new Promise((resolve, reject) => yauzl.fromBuffer(buffer, options, (err, z) => (err ? reject(err) : resolve(z))));
  }
  const file = await open(path, "r");
  const reader = new BlockReader(file, size);
  return new Promise((resolve, reject) =>
    yauzl.fromRandomAccessReader(reader, size, options, (err, z) => {
      if (!err) return resolve(z);
      reader.close(() => undefined);
      reject(err);
    }),
  );
}

/** The fixed part of a local file header, before its name and extra field. */
const LOCAL_HEADER_BYTES = 30;

/** Where an entry's data ends: its header, its directory name and its compressed data. */
function entryEnd(entry: yauzl.Entry): number {
  return entry.relativeOffsetOfLocalHeader + LOCAL_HEADER_BYTES + entry.fileNameLength + entry.compressedSize;
}

/**
 * Throws when two documents' data overlap in the file: a zip bomb's trick (unzip's CVE-2019-13232),
 * where thousands of directory entries point at one stream that inflates to the size limit, so a
 * few kilobytes cost gigabytes of inflating. No archiver writes such an archive. An entry is
 * taken to end at its header, its directory name and its compressed data (entryEnd); a longer
 * local extra field can only make it end later, so an honest archive is never refused. Only for
 * a directory not in ascending order (the counting pass checks those as it goes): the extents
 * are read again and sorted, 16 bytes an entry.
 */
async function refuseOverlaps(path: string, inMemoryBytes: number): Promise<void> {
  const zip = await openZip(path, inMemoryBytes);
  let starts = new Float64Array(1024);
  let ends = new Float64Array(1024);
  let n = 0;
  try {
    for await (const entry of documentEntries(zip)) {
      if (n === starts.length) {
        starts = grown(starts);
        ends = grown(ends);
      }
      starts[n] = entry.relativeOffsetOfLocalHeader;
      ends[n++] = entryEnd(entry);
    }
  } finally {
    zip.close();
  }
  const order = new Uint32Array(n).map((_, i) => i).sort((a, b) => (starts[a] ?? 0) - (starts[b] ?? 0));
  for (let i = 1; i < n; i++) {
    const at = order[i] ?? 0;
    if ((starts[at] ?? 0) < (ends[order[i - 1] ?? 0] ?? 0)) {
      throw new Error(`its entries overlap (two directory entries share data at byte ${starts[at]}), as a zip bomb's do`);
    }
  }
}

function grown(a: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> {
  const b = new Float64Array(a.length * 2);
  b.set(a);
  return b;
}

/** The entries that are documents (`*.json` files), in archive order, one read at a time. */
async function* documentEntries(zip: yauzl.ZipFile): AsyncGenerator<yauzl.Entry> {
  const next = entryReader(zip);
  for (;;) {
    const entry = await next();
    if (entry === undefined) return;
    if (!entry.fileName.endsWith("/") && isDocumentName(entry.fileName)) yield entry;
  }
}

/**
 * The zip's entries, one per call (undefined after the last). Its listeners are added once: adding
 * and removing three per entry, each a closure named by the bundle's keepNames, cost about 4 % of
 * a large import's main thread. An error between two reads is answered by the next.
 */
function entryReader(zip: yauzl.ZipFile): () => Promise<yauzl.Entry | undefined> {
  let waiting: { resolve: (entry: yauzl.Entry | undefined) => void; reject: (error: Error) => void } | undefined;
  let ended = false;
  let failure: Error | undefined;
  const settle = (): typeof waiting => {
    const w = waiting;
    waiting = undefined;
    return w;
  };
  zip.on("entry", (entry: yauzl.Entry) => settle()?.resolve(entry));
  zip.on("end", () => {
    ended = true;
    settle()?.resolve(undefined);
  });
  zip.on("error", (error: Error) => {
    failure = error;
    settle()?.reject(error);
  });
  return () =>
    new Promise((resolve, reject) => {
      if (failure !== undefined) return reject(failure);
      if (ended) return resolve(undefined);
      waiting = { resolve, reject };
      zip.readEntry();
    });
}

/**
 * An entry's data. The compressed bytes are read whole, straight from the archive (yauzl's
 * stream per entry cost more than the inflating), and inflated in one call; the size and CRC-32
 * are checked as yauzl would. Compressed data larger than its inflated size could make (deflate
 * grows incompressible data by well under 1 %) is refused before it is read.
 */
async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  if (entry.isEncrypted()) throw new Error("it is encrypted");
  if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED) {
    throw new Error(`compression method ${entry.compressionMethod} is not supported`);
  }
  if (entry.compressedSize > entry.uncompressedSize + entry.uncompressedSize / 100 + 1024) {
    throw new Error("its compressed size is larger than its data could make");
  }
  const { fileDataStart } = await zip.readLocalFileHeaderPromise(entry, { minimal: true });
  const raw = Buffer.alloc(entry.compressedSize);
  const reader = (
    zip as unknown as { reader: { read(b: Buffer, o: number, l: number, p: number, cb: (e: Error | null, n?: number) => void): void } }
  ).reader;
  if (raw.length > 0) {
    await new Promise<void>((resolve, reject) => reader.read(raw, 0, raw.length, fileDataStart, (e) => (e ? reject(e) : resolve())));
  }
  const data = entry.compressionMethod === DEFLATED ? inflateRawSync(raw, { maxOutputLength: MAX_DOCUMENT_BYTES }) : raw;
  if (data.length !== entry.uncompressedSize) throw new Error("its size differs from the archive's directory");
  if (crc32(data) !== entry.crc32) throw new Error("its checksum does not match");
  // zlib returns a view of a 64 KB buffer it shares between calls: a batch of 500 documents of a
  // few KB held some 8 MB of them. Copied, a document holds its own bytes and frees them with it.
  return data.buffer.byteLength > 2 * data.length ? Buffer.from(data) : data;
}
