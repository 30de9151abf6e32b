/**
 * Runs one of bench/tools/*.ts (built) as its own Node process: the spec goes in as JSON in
 * argv, the result comes back as JSON on stdout. Load generators live in their own process so
 * they share neither an event loop nor a core's scheduling with the harness.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Runs tools/<name>.js with spec and returns what it printed, parsed. */
export async function runTool<T>(name: string, spec: unknown): Promise<T> {
  const script = join(import.meta.dirname, "../tools", `${name}.js`);
  const { stdout } = await run(process.execPath, [script, JSON.stringify(spec)], { maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as T;
}
