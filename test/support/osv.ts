/**
 * OSV fixtures for tests: where they are, importing them as the command does, and zip archives
 * made of them.
 */
import { readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { zipOf } from "../../bench/zip-writer.js";
import type { Clock } from "../../src/domain/clock.js";
import { importAdvisories, type ImportSummary } from "../../src/osv/import-advisories.js";
import { readSources } from "../../src/osv/read-sources.js";
import type { AdvisoryStore } from "../../src/store/advisory-store.js";

/** The fixture folders (see test/fixtures/osv/README.md). */
export const OSV = {
  root: join(import.meta.dirname, "../fixtures/osv"),
  feed: join(import.meta.dirname, "../fixtures/osv/feed"),
  updates: join(import.meta.dirname, "../fixtures/osv/updates"),
  malformed: join(import.meta.dirname, "../fixtures/osv/malformed"),
};

/** The ids of the feed's documents, sorted. */
export const FEED_IDS: readonly string[] = files(OSV.feed)
  .map((f) => (JSON.parse(readFileSync(f, "utf8")) as { id: string }).id)
  .sort();

/** What an import reported: its summary, and each skipped or unreadable source with its reason. */
export interface ImportReport {
  summary: ImportSummary;
  skipped: Record<string, string>;
  unreadable: Record<string, string>;
}

/** Imports paths into store as `arbor advisories import` does; clock dates the advisories new to it. */
export async function importPaths(
  store: { advisories: AdvisoryStore },
  paths: string[],
  batchSize?: number,
  clock?: Clock,
): Promise<ImportReport> {
  const skipped: Record<string, string> = {};
  const unreadable: Record<string, string> = {};
  const sources = await readSources(paths);
  const summary = await importAdvisories(store, sources.items(), {
    ...(batchSize !== undefined && { batchSize }),
    ...(clock !== undefined && { clock }),
    onSkip: (source, reason) => (skipped[source] = reason),
    onUnreadable: (source, reason) => (unreadable[source] = reason),
  });
  return { summary, skipped, unreadable };
}

/** The JSON files under dir, recursively. */
export function files(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => join(dir, f));
}

/** Writes a zip archive at path holding entries (name to content; a name ending in `/` is a folder). */
export async function writeZip(path: string, entries: Record<string, string | Buffer>): Promise<void> {
  await writeFile(path, zipOf(Object.entries(entries).map(([name, content]) => ({ name, data: Buffer.from(content) }))));
}

/** The entries of a folder for writeZip, under prefix. */
export function folderEntries(dir: string, prefix: string): Record<string, Buffer> {
  return Object.fromEntries(files(dir).map((f) => [`${prefix}${f.slice(dir.length + 1)}`, readFileSync(f)]));
}
