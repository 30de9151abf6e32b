/**
 * `-o, --output`: how a command prints what it got. Without the flag, a table on a terminal and
 * JSON everywhere else, so a pipe or a script gets something to parse. `wide` is the table with
 * every column and full uids, whatever the terminal's width.
 */
import { Option } from "commander";
import { UsageError } from "../usage-error.js";

export const OUTPUT_FORMATS = ["table", "wide", "json", "yaml", "id"] as const;

export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The `-o, --output` option. */
export function outputOption(): Option {
  return new Option(
    "-o, --output <format>",
    "how to print; wide: every column and full uids, id: one uid a line (default table on a terminal, else json)",
  ).choices(OUTPUT_FORMATS);
}

/** The format asked for, or the default for where stdout goes. */
export function resolveFormat(flag: string | undefined, stdoutIsTty: boolean): OutputFormat {
  if (flag === undefined) return stdoutIsTty ? "table" : "json";
  const format = (OUTPUT_FORMATS as readonly string[]).find((f) => f === flag);
  if (format === undefined) throw new UsageError(`--output: "${flag}" is not one of ${OUTPUT_FORMATS.join(", ")}`);
  return format as OutputFormat;
}

/** Tells whether format is one of the tables (`table`, `wide`). */
export function isTable(format: OutputFormat): format is "table" | "wide" {
  return format === "table" || format === "wide";
}
