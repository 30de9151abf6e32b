/**
 * `arbor advisories`: vulnerability advisories, acting directly on the store like the admin
 * commands (and, like them, safe while the server runs).
 */
import type { Command } from "commander";
import type { Config } from "../config.js";
import { importAdvisories, type ImportSummary } from "../osv/import-advisories.js";
import { readSources } from "../osv/read-sources.js";
import { createStore } from "../store/create-store.js";
import { addCheckCommand } from "./advisories-check.js";
import { ADVISORIES } from "./advisories-resource.js";
import type { CliIo } from "./output/io.js";
import { progressBar, type BarStream } from "./progress-bar.js";
import { withExamples } from "./resource/help-text.js";
import { addGetCommand } from "./resource/item-commands.js";
import { addListCommand } from "./resource/list-command.js";

/** How `import` talks to the person running it. */
export interface ImportIo {
  stdout: { write(text: string): unknown };
  /** Reports and, on a terminal, the progress bar. */
  stderr: BarStream;
}

/**
 * Adds the `advisories` commands to program (inheriting its settings: exit codes, help after
 * errors); storeOptions and configOf are the program's, so flags mean the same everywhere.
 * `list`, `get` and `check` ask the API; `import` writes to the store.
 */
export function addAdvisoriesCommands<F>(
  program: Command,
  storeOptions: (cmd: Command) => Command,
  configOf: (flags: F, explicit: (key: string) => boolean) => Config,
  io: CliIo,
): void {
  const advisories = program.command("advisories").description("vulnerability advisories (OSV documents)");
  withExamples(advisories, ["arbor advisories list --ecosystem npm --package lodash", "arbor advisories get GHSA-jf85-cpcp-j695 -o yaml", "arbor advisories import ./advisories/"]);
  addListCommand(advisories, ADVISORIES, io);
  addGetCommand(advisories, ADVISORIES, io);
  addCheckCommand(advisories, io);
  storeOptions(
    advisories
      .command("import")
      .description("import OSV documents: JSON files, folders (searched recursively) and .zip archives of them")
      .argument("<paths...>", "files, folders or .zip archives")
      .option("--strict", "exit with 1 when any document was skipped")
      .addHelpText(
        "after",
        "\nEach document is checked against the OSV schema; an invalid one is reported on stderr with\n" +
          "its file and reason and skipped. A document replaces the stored advisory of its id only\n" +
          "when its `modified` is newer, so importing again changes nothing. The last line on stdout\n" +
          "counts what happened. Exit code 0, even with skipped documents (unless --strict); 1 when\n" +
          "a path cannot be read or holds no document at all.\n\n" +
          "Examples:\n  arbor advisories import ./advisories/\n  arbor advisories import PyPI-all.zip npm-all.zip\n",
      ),
  ).action(async (paths: string[], opts: F & { strict?: boolean }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    process.exitCode = await runImport(config, paths, { strict: opts.strict === true }, { stdout: process.stdout, stderr: process.stderr });
  });
}

/** Imports paths into the configured store; the exit code. */
export async function runImport(config: Config, paths: readonly string[], options: { strict: boolean }, io: ImportIo): Promise<number> {
  const store = await createStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.databaseSchema });
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
  return `imported ${s.imported}, updated ${s.updated}, unchanged ${s.unchanged}, skipped ${s.skipped}${unreadable} (${documents} documents in ${(elapsedMs / 1000).toFixed(1)} s)`;
}
