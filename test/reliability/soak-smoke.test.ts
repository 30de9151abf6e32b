/**
 * The soak harness itself, run briefly against the built server: it measures a capacity, holds
 * the mixed load (reads, writes, exchanges), sees no error and exits 0 (its verdict). The
 * 30-minute run is `npm run soak`; its figures are in docs/reliability.md.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const SOAK = join(import.meta.dirname, "../../dist/bench/soak-run.js");

/** Runs a script with node; its exit code (null when a signal ended it), stdout and stderr. */
function run(script: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [script], { env }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}

describe("soak harness (short run)", () => {
  it("holds the mixed load for 10 s with no error, passes its verdict and reports its figures", { timeout: 90_000 }, async () => {
    const env = { ...process.env, SOAK_SECONDS: "10", SOAK_CAPACITY_SECONDS: "3", SOAK_WINDOW_MS: "5000" };
    const { code, stdout, stderr } = await run(SOAK, env);
    // The exit code is the soak's verdict (errors, memory growth, p99 drift) and its health: a
    // run that failed or crashed after printing its figures must not pass.
    expect(code, `the soak exited ${code}:\n${stderr.slice(-2_000)}`).toBe(0);
    expect(stdout).toMatch(/Capacity \(closed loop, 64 clients, mixed[^)]*\): [1-9]\d* requests\/s/);
    expect(stdout).toContain("Errors: 0.");
    expect(stdout).toMatch(/\| 10 \| [1-9]\d* \| 0 \|/);
  });
});
