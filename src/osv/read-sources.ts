/**
 * The documents named by import paths: JSON files, folders (searched recursively for `*.json`
 * and `*.zip`, passing over hidden entries such as `.git`), and zip archives. Everything is
 * listed first, so the number of documents is known before the first is read; an archive is
 * opened to count its documents and closed again, and read when its turn comes, so only one is
 * open at a time.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { isArchiveName, isDocumentName, MAX_DOCUMENT_BYTES, type SourceItem } from "./source-item.js";
import { openZipDocuments, type ZipDocuments } from "./zip-archive.js";

/** The documents found under paths, and how many there are. */
export interface Sources {
  readonly count: number;
  items(): AsyncGenerator<SourceItem>;
}

type Found =
  { kind: "file"; path: string } | { kind: "zip"; path: string; count: number } | { kind: "unreadable"; path: string; reason: string };

/** Lists what paths hold; a path that cannot be read becomes an `unreadable` item. */
export async function readSources(paths: readonly string[]): Promise<Sources> {
  const found: Found[] = [];
  for (const path of paths) await find(path, true, found);
  const count = found.reduce((n, f) => n + (f.kind === "file" ? 1 : f.kind === "zip" ? f.count : 0), 0);
  return {
    count,
    async *items() {
      for (const f of found) {
        if (f.kind === "unreadable") yield { kind: "unreadable", source: f.path, reason: f.reason };
        else if (f.kind === "zip") yield* archiveItems(f.path);
        else yield await readDocument(f.path);
      }
    },
  };
}

/** Adds what path holds to found; a named file is a document whatever its name, unless it is a zip. */
async function find(path: string, named: boolean, found: Found[]): Promise<void> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) {
      const names = (await readdir(path)).filter((n) => !n.startsWith(".")).sort();
      for (const name of names) await find(join(path, name), false, found);
    } else if (isArchiveName(path)) {
      const zip = await openZipDocuments(path, path);
      zip.close();
      found.push({ kind: "zip", path, count: zip.count });
    } else if (info.isFile() && (named || isDocumentName(path))) {
      found.push({ kind: "file", path });
    }
  } catch (e) {
    found.push({ kind: "unreadable", path, reason: reasonOf(e) });
  }
}

async function* archiveItems(path: string): AsyncGenerator<SourceItem> {
  let zip: ZipDocuments;
  try {
    zip = await openZipDocuments(path, path);
  } catch (e) {
    yield { kind: "unreadable", source: path, reason: reasonOf(e) };
    return;
  }
  yield* zip.items();
}

async function readDocument(path: string): Promise<SourceItem> {
  try {
    const { size } = await stat(path);
    if (size > MAX_DOCUMENT_BYTES) return { kind: "skipped", source: path, reason: `larger than ${MAX_DOCUMENT_BYTES} bytes` };
    return { kind: "document", source: path, bytes: await readFile(path) };
  } catch (e) {
    return { kind: "skipped", source: path, reason: `cannot be read: ${reasonOf(e)}` };
  }
}

function reasonOf(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  if (code === "ENOENT") return "no such file or folder";
  if (code === "EACCES") return "permission denied";
  return (e as Error).message ?? String(e);
}
