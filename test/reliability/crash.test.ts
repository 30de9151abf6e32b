/**
 * Crash safety (docs/reliability.md): the built server on each engine, concurrent writers, kill -9
 * at a random moment, restart on the same store; every acknowledged write must be there, every
 * acknowledged delete gone, and nothing half-written (integrity checks, orphans by SQL).
 *
 * CRASH_ROUNDS (default 3 per engine) and CRASH_SEED (default fixed; `random` picks one) set the
 * run; the seed is printed. `npm run reliability:crash` runs many rounds with a random seed.
 * Needs the build (`npm test` builds first).
 */
import { describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { Ledger } from "../support/crash/ledger.js";
import { compareWithLedger } from "../support/crash/inspect.js";
import { runCrashRounds } from "../support/crash/rounds.js";
import { printFigures } from "../support/figures.js";
import { runSeed } from "../support/run-seed.js";

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
/** Fixed unless CRASH_SEED says otherwise (`random` draws one), so a run can be repeated. */
const SEED = runSeed("CRASH_SEED", process.env.CRASH_SEED, 20_261_126);

describe("the crash check", () => {
  it("finds a lost create, a resurrected delete, a stale update and rows nobody made", () => {
    const ledger = new Ledger();
    ledger.created("group", "a", "org", { description: "x" });
    ledger.created("group", "b", "org", { description: "y" });
    ledger.created("group", "c", "org", { description: "z" });
    ledger.deleted("c");
    ledger.updated("b", "y2");
    const rows = [
      { kind: "group" as const, uid: "b", parent: "org", description: "y" },
      { kind: "group" as const, uid: "c", parent: "org", description: "z" },
      { kind: "identity" as const, uid: "d", parent: "b", description: "" },
    ];
    const { lost, unexplained } = compareWithLedger(ledger, { problems: [], rows });
    expect(lost).toHaveLength(3);
    expect(unexplained).toHaveLength(1);
    ledger.lost("identity", undefined);
    expect(compareWithLedger(ledger, { problems: [], rows }).unexplained).toEqual([]);
  });
});

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`kill -9 while writing [${engine.name}]`, () => {
    it(
      `loses no acknowledged write over ${ROUNDS} rounds (seed ${SEED})`,
      async () => {
        const location = await engine.location();
        try {
          const figures = await runCrashRounds({
            store: location.options,
            rounds: ROUNDS,
            writers: 4,
            seed: SEED,
            killAfterMs: [300, 1_500],
          });
          printFigures(`crash [${engine.name}]`, { ...figures, problems: figures.problems.slice(0, 20) });
          expect(figures.problems).toEqual([]);
          expect(figures.lost).toBe(0);
          expect(figures.acknowledged).toBeGreaterThan(ROUNDS * 10);
        } finally {
          await location.dispose();
        }
      },
      60_000 + ROUNDS * 15_000,
    );
  });
}
