/**
 * The seeds of the randomized harnesses (test/support/run-seed.ts): fixed unless asked otherwise,
 * so a run can be repeated, and refused when they are not a number.
 */
import { describe, expect, it } from "vitest";
import { runSeed } from "../support/run-seed.js";

describe("a harness run's seed", () => {
  it("is the harness's fixed seed when unset, so every run without one repeats the last", () => {
    expect(runSeed("CRASH_SEED", undefined, 20_261_126)).toBe(20_261_126);
    expect(runSeed("CRASH_SEED", "", 20_261_126)).toBe(20_261_126);
  });

  it("is the number given, or a new one for random", () => {
    expect(runSeed("CRASH_SEED", "4242", 1)).toBe(4242);
    const drawn = runSeed("CRASH_SEED", "random", 1);
    expect(Number.isSafeInteger(drawn) && drawn >= 0).toBe(true);
  });

  it("refuses anything else, naming the variable", () => {
    expect(() => runSeed("FUZZ_SEED", "soon", 1)).toThrow('FUZZ_SEED must be a non-negative integer or "random", not "soon"');
    expect(() => runSeed("FUZZ_SEED", "-3", 1)).toThrow(/FUZZ_SEED/);
  });
});
