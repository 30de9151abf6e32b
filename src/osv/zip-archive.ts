/**
 * The OSV documents of a zip archive (the form OSV feeds publish: one JSON file per advisory),
 * read one entry at a time, each bounded in size, so a hostile archive (a zip bomb, sizes that
 * lie) cannot exhaust memory.
 */
import { readFile, stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { crc32, inflateRawSync } from "node:zlib";
import yauzl from "yauzl";
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
 * some ten times faster than through the file; larger ones are read from the file.
 */
const IN_MEMORY_BYTES = 1024 * 1024 * 1024;

/** Opens an archive and reads its directory; throws when it is no readable zip. */
export async function openZipDocuments(path: string, label: string): Promise<ZipDocuments> {
  const options = { lazyEntries: true, autoClose: false, validateEntrySizes: true };
  const inMemory = (await stat(path)).size <= IN_MEMORY_BYTES;
  const buffer = inMemory ? await readFile(path) : undefined;
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) => {
    const done = (err: Error | null, z: yauzl.ZipFile) => (err ? reject(err) : resolve(z));
    if (buffer !== undefined) yauzl.fromBuffer(buffer, options, done);
    else yauzl.open(path, options, done);
  });
  let entries: yauzl.Entry[];
  try {
    entries = await readDirectory(zip);
  } catch (e) {
    zip.close();
    throw e;
  }
  return {
    count: entries.length,
    close: () => zip.close(),
    async *items() {
      try {
        for (const entry of entries) {
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

/** The entries that are documents (`*.json` files), in archive order. */
function readDirectory(zip: yauzl.ZipFile): Promise<yauzl.Entry[]> {
  return new Promise((resolve, reject) => {
    const entries: yauzl.Entry[] = [];
    zip.on("entry", (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith("/") && isDocumentName(entry.fileName)) entries.push(entry);
      zip.readEntry();
    });
    zip.once("end", () => resolve(entries));
    zip.once("error", reject);
    zip.readEntry();
  });
}

/**
 * An entry's data. The compressed bytes are read whole and inflated in one call (a stream per
 * entry costs more than the inflating); the size and CRC-32 are checked as yauzl would.
 */
async function readEntry(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Buffer> {
  if (entry.isEncrypted()) throw new Error("it is encrypted");
  if (entry.compressionMethod !== STORED && entry.compressionMethod !== DEFLATED) {
    throw new Error(`compression method ${entry.compressionMethod} is not supported`);
  }
  const stream = await new Promise<Readable>((resolve, reject) =>
    zip.openReadStream(entry, { decodeFileData: false }, (err, s) => (err ? reject(err) : resolve(s))),
  );
  const chunks: Buffer[] = [];
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  const raw = Buffer.concat(chunks);
  const data = entry.compressionMethod === DEFLATED ? inflateRawSync(raw, { maxOutputLength: MAX_DOCUMENT_BYTES }) : raw;
  if (data.length !== entry.uncompressedSize) throw new Error("its size differs from the archive's directory");
  if (crc32(data) !== entry.crc32) throw new Error("its checksum does not match");
  return data;
}
