/**
 * The text after a command's options in `--help`: notes, then `Examples:` (every command has
 * them; a test walks the command tree to make sure).
 */
import { InvalidArgumentError, type Command } from "commander";

/** Adds notes (optional) and examples to cmd's help. */
export function withExamples(cmd: Command, examples: readonly string[], notes?: string): Command {
  const parts = [notes === undefined ? "" : `\n${notes.trimEnd()}\n`, `\nExamples:\n${examples.map((e) => `  ${e}\n`).join("")}`];
  return cmd.addHelpText("after", parts.join(""));
}

/** Parses a whole number flag value of at least min (commander reports the flag; exit code 2). */
export function wholeNumber(min: number): (text: string) => number {
  return (text) => {
    const n = Number(text);
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(n) || n < min) {
      throw new InvalidArgumentError(`not a whole number${min > 0 ? ` of at least ${min}` : ""}`);
    }
    return n;
  };
}

/** `a group`, `an identity`. */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/.test(noun) ? "an" : "a"} ${noun}`;
}

/** The plural as people write it: `role bindings` for the `role-bindings` command. */
export function pluralOf(spec: { noun: string }): string {
  return spec.noun.replace(/-/g, " ");
}
