/**
 * kill -9 rounds against the built server (`arbor serve`) on one store: start it, let concurrent
 * writers work, SIGKILL it at a random moment, inspect the store, restart on the same store, and
 * go again. The ledger carries across rounds, so every round also checks the ones before.
 */
import type { StoreOptions } from "../../../src/store/create-store.js";
import { runArbor, serveArbor } from "../process.js";
import { Ledger } from "./ledger.js";
import { adopt, compareWithLedger, inspectStore } from "./inspect.js";
import { runWriter, seededRandom } from "./writers.js";

/** What a series of rounds did. */
export interface CrashFigures {
  rounds: number;
  /** Writes acknowledged before the kills, in all rounds. */
  acknowledged: number;
  /** Acknowledged writes missing after a restart: must be 0. */
  lost: number;
  /** Integrity problems, orphans, lost writes and unexplained rows, each described. */
  problems: string[];
  seed: number;
}

/** Options of a series. */
export interface CrashOptions {
  store: StoreOptions;
  rounds: number;
  writers: number;
  seed: number;
  /** The kill comes this many milliseconds after the writers start, at random between the two. */
  killAfterMs: [number, number];
}

/** The server's environment for a store: a fixed base URL, so tokens outlive the port of one run. */
function envOf(store: StoreOptions): Record<string, string> {
  return {
    ARBOR_DATA_DIR: store.dataDir,
    ARBOR_BASE_URL: "http://crash.test",
    ...(store.databaseUrl !== undefined && { ARBOR_DATABASE_URL: store.databaseUrl }),
    ...(store.schema !== undefined && { ARBOR_DATABASE_SCHEMA: store.schema }),
  };
}

/** Runs the rounds. */
export async function runCrashRounds(options: CrashOptions): Promise<CrashFigures> {
  const env = envOf(options.store);
  const made = await runArbor(["admin", "bootstrap", "--org", "crash"], env);
  if (made.code !== 0) throw new Error(`bootstrap failed: ${made.stderr}`);
  const org = (JSON.parse(made.stdout) as { uid: string }).uid;
  const issued = await runArbor(["admin", "token", "--org", "crash"], env);
  if (issued.code !== 0) throw new Error(`token failed: ${issued.stderr}`);
  const token = issued.stdout.trim();
  const random = seededRandom(options.seed);
  const ledger = new Ledger();
  const figures: CrashFigures = { rounds: 0, acknowledged: 0, lost: 0, problems: [], seed: options.seed };
  let names = 0;
  const homes: string[] = [];

  for (let round = 0; round < options.rounds; round++) {
    const served = await serveArbor([], env);
    const baseUrl = `http://127.0.0.1:${served.port}`;
    try {
      while (homes.length < options.writers) {
        const res = await fetch(`${baseUrl}/iam/v2beta1/groups/${org}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ name: `home ${homes.length}`, description: "" }),
        });
        const body = (await res.json()) as { uid: string };
        if (res.status !== 200) throw new Error(`home group: ${JSON.stringify(body)}`);
        homes.push(body.uid);
        ledger.created("group", body.uid, org, { description: "" });
      }
      const writers = homes.map((home) => runWriter({ baseUrl, token, home, ledger, random, nextName: () => `n${round}-${names++}` }));
      const [low, high] = options.killAfterMs;
      await new Promise((r) => setTimeout(r, low + random() * (high - low)));
      served.child.kill("SIGKILL");
      await served.exited;
      await Promise.all(writers);
    } finally {
      served.child.kill("SIGKILL");
    }
    const inspection = await inspectStore(options.store);
    const { lost, unexplained } = compareWithLedger(ledger, inspection);
    figures.problems.push(
      ...inspection.problems.map((p) => `round ${round}: ${p}`),
      ...lost.map((p) => `round ${round}: ${p}`),
      ...unexplained.map((p) => `round ${round}: ${p}`),
    );
    figures.lost += lost.length;
    figures.rounds++;
    adopt(ledger, inspection);
  }
  // The last restart: the server must come up on what the last kill left, and serve it.
  const last = await serveArbor([], env);
  try {
    const ready = await fetch(`http://127.0.0.1:${last.port}/readyz`);
    if (ready.status !== 200) figures.problems.push(`not ready after the last restart: ${ready.status}`);
  } finally {
    last.child.kill("SIGKILL");
    await last.exited;
  }
  figures.acknowledged = ledger.acknowledged;
  return figures;
}
