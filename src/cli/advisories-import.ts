/**
 * `arbor advisories import`: OSV documents into the store, directly (like the admin commands, safe
 * while the server runs). Loaded only when the command runs: the store is no part of the commands
 * that ask the API.
 */
import type { Config } from "../config.js";
import { importAdvisories, type ImportSummary } from "../osv/import-advisories.js";
import { readSources } from "../osv/read-sources.js";
import { openAdvisoryWriterThread } from "../store/advisory-writer-thread.js";
import { createStore, type StoreOptions } from "../store/create-store.js";
import { progressBar, type BarStream } from "./progress-bar.js";

/** How `import` talks to the person running it. */
export interface ImportIo {
  stdout: { write(text: string): unknown };
  /** Reports and, on a terminal, the progress bar. */
  stderr: BarStream;
}

/**
 * The import's SQLite page cache: its writes land in every index of a store that grows to GBs at
 * OSV's scale, and with the default 16 MB many of them read their page back from the OS first
 * (100,000 documents: 70 s with 16 MB, 58 s with 64 MB, on a busy machine). Within the import's
 * memory budget (400 MB at 500,000 documents, docs/benchmarks.md).
 */
const IMPORT_SQLITE_CACHE_MB = 64;

/**
 * The WAL pages the import lets pile up between checkpoints (256 MB): each of its commits changes
 * pages all over the store's indexes, many of them again in the next commits, and each change is
 * written to the WAL and again by the checkpoint. 150,000 documents: 22.8 GB written and 131 s with
 * SQLite's 1,000 pages, 16.1 GB and 106 s with these (docs/benchmarks.md, ADVISORIES).
 */
const IMPORT_SQLITE_CHECKPOINT_PAGES = 65_536;

/**
 * The page cache of the thread a bulk import into SQLite writes from: with only primary keys and
 * the content hashes' index to keep, it reads back few pages. 500,000 documents (scratch runs,
 * 2026-11-27): 91 s of writing with 16 MB as with 32 MB, and 17 MB less memory.
 */
const BULK_WRITER_SQLITE_CACHE_MB = 16;

// The writer thread's PostgreSQL commits do not wait for their WAL to reach disk (StoreOptions
// .synchronousCommit): a bulk import commits a batch of 300 at a time, 1,667 commits for 500,000
// documents, each of which waited for a flush. The build at the end commits as usual, which
// flushes every commit before it, so an import that ends has all of its rows on disk; one cut
// short by a crash of the database server is run again, as any cut short. 500,000 documents
// (scratch runs, 2026-11-27, batches of 300): writing 75.2 and 72.4 s with it (the whole import
// 101.6 and 98.3 s), 97.6 and 104.1 s without (129.0 and 137.1 s).

/** Imports paths into the configured store; the exit code. */
export async function runImport(config: Config, paths: readonly string[], options: { strict: boolean }, io: ImportIo): Promise<number> {
  const storeOptions: StoreOptions = {
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    schema: config.databaseSchema,
    sqliteCacheMb: IMPORT_SQLITE_CACHE_MB,
    sqliteCheckpointPages: IMPORT_SQLITE_CHECKPOINT_PAGES,
    // One connection, whose cache the memory bound was measured with; nothing else writes beside it.
    sqliteReader: false,
    // A large first import builds its indexes at its end, each in one statement that may rightly
    // run long (as a migration's may); the serving timeout would cut it.
    queryTimeoutMs: 0,
  };
  const store = await createStore(storeOptions);
  try {
    const started = performance.now();
    const sources = await readSources(paths);
    const bar = progressBar(io.stderr, "importing", sources.count);
    let summary: ImportSummary;
    try {
      summary = await importAdvisories(store, sources.items(), {
        onSkip: (source, reason) => bar.log(`arbor: skipped ${source}: ${reason}`),
        onUnreadable: (source, reason) => bar.log(`arbor: cannot read ${source}: ${reason}`),
        onProgress: (done) => bar.update(done),
        expected: sources.count,
        // A bulk import writes from a thread of its own, beside the reading and checking (its own
        // connection; on PostgreSQL the protocol's encoding then leaves the importing thread too).
        bulkWriter: () =>
          openAdvisoryWriterThread({ ...storeOptions, sqliteCacheMb: BULK_WRITER_SQLITE_CACHE_MB, synchronousCommit: false }),
        onBuilding: () =>
          bar.log("arbor: building the advisories' indexes, counts and search index (a large first import builds them once, at its end)"),
      });
    } finally {
      bar.finish();
    }
    io.stdout.write(`${summaryLine(summary, performance.now() - started)}\n`);
    const documents = summary.imported + summary.updated + summary.unchanged + summary.skipped;
    if (summary.unreadable > 0 || documents === 0) return 1;
    return options.strict && summary.skipped > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

/** `imported 12, updated 1, unchanged 30, skipped 2 (45 documents in 1.2 s)`. */
export function summaryLine(s: ImportSummary, elapsedMs: number): string {
  const documents = s.imported + s.updated + s.unchanged + s.skipped;
  const unreadable = s.unreadable > 0 ? `, unreadable paths ${s.unreadable}` : "";
  return (
    `imported ${s.imported}, updated ${s.updated}, unchanged ${s.unchanged}, skipped ${s.skipped}${unreadable} ` +
    `(${documents} documents in ${(elapsedMs / 1000).toFixed(1)} s)`
  );
}
