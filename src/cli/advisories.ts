/**
 * `arbor advisories`: vulnerability advisories, acting directly on the store like the admin
 * commands (and, like them, safe while the server runs).
 */
import type { Command } from "commander";
import type { Config } from "../config.js";
import { addCheckCommand } from "./advisories-check.js";
import { ADVISORIES } from "./advisories-resource.js";
import type { CliIo } from "./output/io.js";
import { withExamples } from "./resource/help-text.js";
import { addGetCommand } from "./resource/item-commands.js";
import { addListCommand } from "./resource/list-command.js";

/**
 * Adds the `advisories` commands to program (inheriting its settings: exit codes, help after
 * errors); storeOptions and configOf are the program's, so flags mean the same everywhere.
 * `list`, `get` and `check` ask the API; `import` writes to the store, whose code it loads when
 * it runs (advisories-import.ts), so the other commands start without it.
 */
export function addAdvisoriesCommands<F>(
  program: Command,
  storeOptions: (cmd: Command) => Command,
  configOf: (flags: F, explicit: (key: string) => boolean) => Config,
  io: CliIo,
): void {
  const advisories = program.command("advisories").description("vulnerability advisories (OSV documents)");
  withExamples(advisories, [
    "arbor advisories list --ecosystem npm --package lodash",
    "arbor advisories get GHSA-jf85-cpcp-j695 -o yaml",
    "arbor advisories import ./advisories/",
  ]);
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
          "a path cannot be read or holds no document at all. A first import of 10,000 documents or\n" +
          "more into a store holding no advisory builds its indexes once, at its end.\n\n" +
          "Examples:\n  arbor advisories import ./advisories/\n  arbor advisories import PyPI-all.zip npm-all.zip\n",
      ),
  ).action(async (paths: string[], opts: F & { strict?: boolean }, cmd: Command) => {
    const config = configOf(opts, (k) => cmd.getOptionValueSource(k) === "cli");
    const { runImport } = await import("./advisories-import.js");
    process.exitCode = await runImport(config, paths, { strict: opts.strict === true }, { stdout: process.stdout, stderr: process.stderr });
  });
}
