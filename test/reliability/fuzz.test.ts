/**
 * Property-based fuzzing of every REST route, every Connect and gRPC method, and the other
 * endpoints of a real server on each engine (docs/reliability.md). The routes and methods come
 * from the same route table and service list the server uses, so new RPCs are fuzzed unasked.
 *
 * FUZZ_CASES (default 100000, shared out between the engines) and FUZZ_SEED (default fixed, so
 * `npm test` is repeatable; `random` picks one) set the run; `npm run fuzz` is the long run
 * (a million cases, a random seed). The seed is printed: FUZZ_SEED=<it> replays a run.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRouteTable } from "../../src/server/rest/route-table.js";
import { createServices } from "../../src/services/routes.js";
import { engines } from "../support/engines.js";
import { runCampaign } from "../support/fuzz/campaign.js";
import { snapshotStore } from "../support/fuzz/snapshot.js";
import { startFuzzWorld, type FuzzWorld } from "../support/fuzz/world.js";
import { printFigures } from "../support/figures.js";
import { runSeed } from "../support/run-seed.js";

const CASES = Number(process.env.FUZZ_CASES ?? 100_000);
const SEED = runSeed("FUZZ_SEED", process.env.FUZZ_SEED, 20_261_122);
/**
 * At most this share of answers may be UNAVAILABLE (each one a deliberate overload or outage
 * answer, checked by the verdict): the store is local and healthy, so only a store too busy to
 * answer within its timeouts may say so, and more than one in a thousand would be a server
 * shedding the load it should carry.
 */
const MAX_UNAVAILABLE_SHARE = 0.001;
/** SQLite takes most of the cases (it is the cheaper engine); PostgreSQL the rest. */
const SHARE: Record<string, number> = { sqlite: 0.9, postgres: 0.1 };

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`fuzzing every route and method [${engine.name}]`, () => {
    let world: FuzzWorld;
    // The server runs in this process: a warning Node emits while serving (a timer overflowed by
    // a far-off deadline, a listener leak) is the server's.
    const processWarnings: string[] = [];
    const onWarning = (w: Error) => processWarnings.push(`${w.name}: ${w.message}`);
    beforeAll(async () => {
      world = await startFuzzWorld(engine);
      process.on("warning", onWarning);
    });
    afterAll(() => {
      process.off("warning", onWarning);
      return world?.close();
    });

    const cases = Math.round(CASES * (SHARE[engine.name] ?? 0.5));
    it(
      `keeps every invariant over ${cases} hostile cases (seed ${SEED})`,
      async () => {
        const services = createServices(world.server.deps).map((s) => s.service);
        const result = await runCampaign({
          seed: SEED,
          cases,
          batchSize: 500,
          concurrency: 16,
          routes: createRouteTable(services).routes,
          methods: services.flatMap((s) => s.methods),
          context: world.context,
          baseUrl: world.server.url,
          snapshot: () => snapshotStore(world.store),
        });
        const { failures, ...figures } = result;
        printFigures(`fuzz [${engine.name}]`, figures);
        for (const f of failures.slice(0, 20))
          printFigures(`fuzz failure [${engine.name}] batch ${f.batch} ${f.target}`, { problems: f.problems, sent: f.sent });
        const internal = world.warnings.filter((l) => (l.level as number) >= 50).slice(0, 5);
        expect(failures).toEqual([]);
        expect(internal).toEqual([]);
        expect(processWarnings.slice(0, 5)).toEqual([]);
        expect(result.unsendable).toBeLessThan(result.sent * 0.05);
        expect(result.unavailable, "UNAVAILABLE answers").toBeLessThanOrEqual(Math.floor(result.sent * MAX_UNAVAILABLE_SHARE));
        expect(result.comparedBatches).toBeGreaterThan(0);
      },
      // About 0.9 ms a case on a shared 2-core machine (docs/reliability.md); the margin is for busier ones.
      Math.max(120_000, CASES * 8),
    );
  });
}
