/**
 * docs/cli.md, rendered from the command tree: the hand-written preamble (cli-preamble.ts), then
 * every command's `--help` (usage, description, options, examples) at a fixed width, with the
 * notes that say more than help can (cli-notes.ts). A test compares the committed file with this.
 */
import type { Command } from "commander";
import { CLI_NOTES } from "./cli-notes.js";
import { CLI_PREAMBLE } from "./cli-preamble.js";

/** Where the reference lives, relative to the package root. */
export const CLI_REFERENCE_PATH = "docs/cli.md";

/** The width help is wrapped at, whatever terminal runs the generator. */
const HELP_WIDTH = 100;

/** The Markdown of the command reference for program. */
export function renderCliReference(program: Command): string {
  const parts = [CLI_PREAMBLE.trimEnd(), ""];
  const visit = (cmd: Command, path: string[], depth: number) => {
    const title = path.join(" ");
    // The program and its commands are sections; deeper commands nest below them.
    parts.push(`${"#".repeat(Math.max(2, depth + 1))} ${title}`, "");
    parts.push("```", helpOf(cmd).trimEnd(), "```", "");
    const note = CLI_NOTES[title];
    if (note !== undefined) parts.push(note.trimEnd(), "");
    for (const sub of cmd.commands) visit(sub, [...path, sub.name()], depth + 1);
  };
  visit(program, [program.name()], 0);
  return `${parts.join("\n").trimEnd()}\n`;
}

/** What `--help` prints for cmd, wrapped at HELP_WIDTH. */
export function helpOf(cmd: Command): string {
  let text = "";
  const saved = cmd.configureOutput();
  const help = cmd.configureHelp();
  cmd.configureHelp({ ...help, helpWidth: HELP_WIDTH });
  cmd.configureOutput({ ...saved, writeOut: (s) => (text += s), getOutHelpWidth: () => HELP_WIDTH, getOutHasColors: () => false });
  try {
    cmd.outputHelp();
  } finally {
    cmd.configureOutput(saved);
    cmd.configureHelp(help);
  }
  return text;
}
