/**
 * C1's timer: spawns each command of a sequence in turn and times it from spawn to exit, from a
 * small process of its own. Timed from the harness itself, `node -e 0` took about 470 ms instead
 * of 30 to 70 ms once earlier scenarios had grown the harness's memory: a spawn copies the
 * spawning process's page tables, so its cost grows with that process's memory.
 * Usage: node spawn-timer.js '{"envs":[{…}],"runs":[{"args":[…],"env":0}, …]}'; prints a JSON
 * array of { ms, status, stdout, stderr }, one per run, in order.
 */
import { spawnSync } from "node:child_process";

/** The sequence to time: each run is node's arguments and the index of its whole environment in envs. */
export interface SpawnTimerSpec {
  envs: NodeJS.ProcessEnv[];
  runs: { args: string[]; env: number }[];
}

/** What one spawn did. */
export interface RunTime {
  ms: number;
  status: number | null;
  stdout: string;
  stderr: string;
}

const spec = JSON.parse(process.argv[2] ?? "{}") as SpawnTimerSpec;
const times: RunTime[] = spec.runs.map(({ args, env }) => {
  const t0 = performance.now();
  const out = spawnSync(process.execPath, args, { env: spec.envs[env] ?? {}, encoding: "utf8" });
  const ms = performance.now() - t0;
  return { ms, status: out.status, stdout: out.stdout.slice(0, 2_000), stderr: out.stderr.slice(0, 2_000) };
});
process.stdout.write(JSON.stringify(times));
