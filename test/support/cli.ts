/**
 * Running the built `arbor` against a test server as a script would: ARBOR_API_URL and
 * ARBOR_TOKEN set, and settings and cache folders of its own (so nobody's ~/.config leaks in).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { runArbor, type RunResult } from "./process.js";

/** A CLI bound to one server and token. */
export interface TestCli {
  /** The environment every run gets. */
  readonly env: Record<string, string>;
  /** Runs arbor with args (and more environment); the result, whatever the exit code. */
  run(args: string[], env?: Record<string, string>): Promise<RunResult>;
  /** Runs arbor with args and expects exit code 0; its stdout. */
  ok(args: string[], env?: Record<string, string>): Promise<string>;
  /** Removes the settings and cache folders. */
  dispose(): void;
}

/** A CLI talking to url with token. */
export function testCli(url: string, token: string): TestCli {
  const home = mkdtempSync(join(tmpdir(), "arbor-cli-home-"));
  const env = {
    ARBOR_API_URL: url,
    ARBOR_TOKEN: token,
    HOME: home,
    XDG_CONFIG_HOME: join(home, "config"),
    XDG_CACHE_HOME: join(home, "cache"),
  };
  const run = (args: string[], more: Record<string, string> = {}) => runArbor(args, { ...env, ...more });
  return {
    env,
    run,
    async ok(args, more) {
      const r = await run(args, more);
      expect(r.code, `arbor ${args.join(" ")}: ${r.stderr}`).toBe(0);
      return r.stdout;
    },
    dispose: () => rmSync(home, { recursive: true, force: true }),
  };
}
