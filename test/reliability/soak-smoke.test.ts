/**
 * The soak harness itself, run briefly against the built server: it measures a capacity, holds
 * the mixed load (reads, writes, exchanges) and sees no error. The 30-minute run is
 * `npm run soak`; its figures are in docs/reliability.md.
 */
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const SOAK = join(import.meta.dirname, "../../dist/bench/soak-run.js");

describe("soak harness (short run)", () => {
  it("holds the mixed load for 10 s with no error and reports its figures", { timeout: 90_000 }, async () => {
    const env = { ...process.env, SOAK_SECONDS: "10", SOAK_CAPACITY_SECONDS: "3", SOAK_WINDOW_MS: "5000" };
    const { stdout } = await promisify(execFile)(process.execPath, [SOAK], { env }).catch((e: { stdout: string }) => e);
    expect(stdout).toMatch(/Capacity \(closed loop, 64 clients, mixed[^)]*\): [1-9]\d* requests\/s/);
    expect(stdout).toContain("Errors: 0.");
    expect(stdout).toMatch(/\| 10 \| [1-9]\d* \| 0 \|/);
  });
});
