/**
 * `npm run bench`: the benchmark suite of docs/benchmarks.md. Runs the scenarios (BENCH_ONLY
 * picks some), each a median over BENCH_ROUNDS rounds with its targets measured in the same
 * run, and writes docs/benchmarks.md with a chart per scenario. A subset run keeps the other
 * scenarios' last results (docs/benchmarks/results.json), each dated. Exits 1 when a scenario
 * could not run; a missed target is reported, not an error.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { ROOT } from "./lib/arbor-process.js";
import { writeBenchmarksDoc, type RunInfo } from "./lib/markdown.js";
import { benchOptions } from "./lib/options.js";
import { checkPrerequisites } from "./lib/prerequisites.js";
import type { Scenario, ScenarioResult } from "./lib/results.js";
import { advisories } from "./scenarios/advisories.js";
import { c1CliStartup } from "./scenarios/c1-cli-startup.js";
import { e1Events } from "./scenarios/e1-events.js";
import { s1Get } from "./scenarios/s1-get.js";
import { s2List } from "./scenarios/s2-list.js";
import { s3Create } from "./scenarios/s3-create.js";
import { s4Exchange } from "./scenarios/s4-exchange.js";
import { s5Authorization } from "./scenarios/s5-authorization.js";
import { s6Grpc } from "./scenarios/s6-grpc.js";
import { s7Memory } from "./scenarios/s7-memory.js";
import { s8Keystone } from "./scenarios/s8-keystone.js";
import { s9ManyBindings } from "./scenarios/s9-many-bindings.js";

const SCENARIOS: Scenario[] = [
  s1Get,
  s2List,
  s3Create,
  s4Exchange,
  s5Authorization,
  s6Grpc,
  s7Memory,
  s8Keystone,
  s9ManyBindings,
  e1Events,
  advisories,
  c1CliStartup,
];
const RESULTS = join(ROOT, "docs/benchmarks/results.json");

const options = benchOptions(process.env);
const selected = SCENARIOS.filter((s) => options.only.size === 0 || options.only.has(s.id.toUpperCase()));
const missing = checkPrerequisites(
  selected.map((s) => s.id),
  options.install,
);
if (missing !== undefined) {
  process.stderr.write(`${missing}\n`);
  process.exit(1);
}

const load = loadavg();
const othersBusy = await cpuBusy(2_000);
const info: RunInfo = {
  command: commandLine(),
  machine:
    `${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ` +
    `${(totalmem() / 2 ** 30).toFixed(0)} GB, Linux, Node ${process.version}`,
  started: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
  rounds: options.rounds,
  seconds: options.seconds,
  quick: options.quick,
  load,
};
const ctx = { ...options, log: (line: string) => process.stderr.write(`${line}\n`) };
const fresh: ScenarioResult[] = [];
let failed = 0;
for (const scenario of selected) {
  ctx.log(`== ${scenario.id}`);
  try {
    fresh.push({ ...(await scenario.run(ctx)), ranAt: info.started });
  } catch (error) {
    failed++;
    ctx.log(
      `${scenario.id} failed: ` +
        `${(error as Error).stack ?? String(error)}${(error as Error).cause ? `\ncaused by: ${String((error as Error).cause)}` : ""}`,
    );
    fresh.push({
      id: scenario.id,
      title: "could not run",
      method: [],
      figures: [],
      checks: [],
      charts: [],
      errors: NaN,
      notes: [`The run of ${info.started} failed: ${(error as Error).message.split("\n")[0]}`],
      ranAt: info.started,
    });
  }
}

// A subset run keeps the other scenarios' last results, so the doc always covers the suite.
// One stored before scenarios reported their errors has none recorded: unknown, not zero.
const previous = (
  options.only.size > 0 && existsSync(RESULTS) ? (JSON.parse(readFileSync(RESULTS, "utf8")) as Partial<ScenarioResult>[]) : []
).map((r) => ({ ...r, errors: r.errors ?? NaN }) as ScenarioResult);
const results = SCENARIOS.flatMap((s) => fresh.find((r) => r.id === s.id) ?? previous.find((r) => r.id === s.id) ?? []);
// The load average lingers for minutes after the suite's own last run; what counts is what else
// takes the CPU as this run starts.
const busy = othersBusy > 0.25;
writeBenchmarksDoc(ROOT, info, results, [
  "Speed and memory targets of Arbor, measured by the suite in bench/ (one file per scenario in bench/scenarios/). Every figure is the " +
    "median over the rounds; every target is either a bound or a ratio of two figures measured in the same run, because the machine is " +
    "shared and noisy. Load comes from separate processes: `wrk` (Debian package `wrk`), the open-loop probe bench/tools/open-loop.ts, " +
    "the gRPC client bench/tools/grpc-load.ts; S9's background binding changes come from the harness (bench/lib/churn.ts).",
  "",
  "Reproduce: `npm run bench` (all), `BENCH_ONLY=S1,S3 npm run bench` (a subset; the other sections keep their last results, each " +
    "dated), `BENCH_QUICK=1 npm run bench` (small datasets, short runs, to check the suite). `BENCH_ROUNDS` (default 5), `BENCH_SECONDS` " +
    "(default 5) and `BENCH_DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/test) tune it; the suite needs `wrk` from Debian, " +
    "and for S8 `keystone`, `uwsgi-core`, `uwsgi-plugin-python3`, `memcached`, `python3-psycopg2` and `python3-memcache` (Keystone's " +
    "database is created on the same PostgreSQL server), and says how to install them when missing (`BENCH_INSTALL=1` as root installs " +
    "them).",
  ...(busy || process.env.BENCH_PRELIMINARY === "1"
    ? [
        "",
        `> **Preliminary figures.** This run was taken while the machine was busy with other work (${Math.round(othersBusy * 100)} % ` +
          `of the CPU in use by others as it began; load average ${load.map((l) => l.toFixed(1)).join(", ")} on ${cpus().length} cores), ` +
          `so absolute figures are low and noisy; the ratios are fairer than the absolutes but still affected. Rerun on a quiet machine ` +
          `before judging a target.`,
      ]
    : []),
]);
writeFileSync(RESULTS, `${JSON.stringify(results, null, 1)}\n`);
ctx.log(`wrote docs/benchmarks.md (${results.length} scenarios${failed ? `, ${failed} failed` : ""})`);
process.exitCode = failed > 0 ? 1 : 0;

function commandLine(): string {
  const vars = ["BENCH_ONLY", "BENCH_QUICK", "BENCH_ROUNDS", "BENCH_SECONDS"]
    .filter((v) => process.env[v])
    .map((v) => `${v}=${process.env[v]}`);
  return [...vars, "npm run bench"].join(" ");
}

/** The share of all cores' time spent busy over the next ms milliseconds (before this run does anything). */
async function cpuBusy(ms: number): Promise<number> {
  const sample = () =>
    cpus().reduce((t, c) => ({ idle: t.idle + c.times.idle, all: t.all + Object.values(c.times).reduce((a, b) => a + b, 0) }), {
      idle: 0,
      all: 0,
    });
  const before = sample();
  await new Promise((r) => setTimeout(r, ms));
  const after = sample();
  return 1 - (after.idle - before.idle) / Math.max(1, after.all - before.all);
}
