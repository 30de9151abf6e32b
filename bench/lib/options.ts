/**
 * The suite's knobs, read once from the environment: BENCH_ROUNDS, BENCH_SECONDS, BENCH_QUICK,
 * BENCH_ONLY, BENCH_INSTALL and BENCH_DATABASE_URL.
 */

/** What a run of the suite was asked to do. */
export interface BenchOptions {
  /** Rounds per figure; the figure is their median. */
  rounds: number;
  /** Seconds of each load round. */
  seconds: number;
  /** Small datasets and short runs, to check the suite itself. */
  quick: boolean;
  /** Scenario ids to run (upper case); empty: all. */
  only: Set<string>;
  /** Whether missing Debian packages may be installed (as root). */
  install: boolean;
  /** The PostgreSQL server of the PostgreSQL figures. */
  databaseUrl: string;
}

/** Reads the options from env, rejecting values that are not numbers or not scenario ids. */
export function benchOptions(env: NodeJS.ProcessEnv): BenchOptions {
  const quick = env.BENCH_QUICK === "1";
  const only = new Set(
    (env.BENCH_ONLY ?? "")
      .split(",")
      .map((s) => s.trim().toUpperCase())
      .filter(Boolean),
  );
  for (const id of only)
    if (!/^(S[1-9]|E1|C1|ADVISORIES)$/.test(id)) throw new Error(`BENCH_ONLY: "${id}" is not a scenario (S1 ... S9, E1, C1, ADVISORIES)`);
  return {
    rounds: positive(env, "BENCH_ROUNDS", quick ? 3 : 5),
    seconds: positive(env, "BENCH_SECONDS", quick ? 2 : 5),
    quick,
    only,
    install: env.BENCH_INSTALL === "1",
    databaseUrl: env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test",
  };
}

/** A number from the environment or its default: a larger dataset in a full run than a quick one. */
export function sized(env: NodeJS.ProcessEnv, name: string, full: number, quick: number): number {
  return positive(env, name, env.BENCH_QUICK === "1" ? quick : full);
}

function positive(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, not "${raw}"`);
  return n;
}
