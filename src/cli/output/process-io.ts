/**
 * The process's terminal as a CliIo: main.ts makes one and hands it to the commands.
 */
import { createInterface } from "node:readline/promises";
import type { CliIo } from "./io.js";

/** The CliIo of this process, with env (main.ts passes process.env). */
export function processIo(env: Readonly<Record<string, string | undefined>>): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdinIsTty: process.stdin.isTTY === true,
    env,
    async confirm(question) {
      // The question goes to stderr, so stdout stays the command's output.
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
      } finally {
        rl.close();
      }
    },
  };
}
