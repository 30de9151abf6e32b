/**
 * S7: start-up to ready on an empty embedded store, resident memory under the S1 load, and
 * memory growth over 1,000,000 requests after a warm-up of 100,000 (BENCH_S7_REQUESTS and a
 * tenth of it; fewer in quick mode), with the soak's recorded memory beside it.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api, bootstrapOrg, ROOT, rssMb, startArbor } from "../lib/arbor-process.js";
import { sized } from "../lib/options.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runWrk, wrkCommand, type WrkSpec } from "../lib/wrk.js";

/** The scenario. */
export const s7Memory: Scenario = { id: "S7", run };

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const startups: number[] = [];
  for (let round = 0; round < ctx.rounds; round++) {
    const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s7-"));
    try {
      const server = await startArbor({ env: { ARBOR_DATA_DIR: dataDir } });
      startups.push(server.readyMs);
      await server.stop();
      ctx.log(`S7 start-up round ${round + 1}: ready in ${server.readyMs.toFixed(0)} ms`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s7-"));
  try {
    const server = await startArbor({ env: { ARBOR_DATA_DIR: dataDir } });
    try {
      const { org, token } = await bootstrapOrg(server.env, "bench-s7");
      const group = await api<{ uid: string }>(server.base, token, "POST", `/iam/v2beta1/groups/${org}`, { name: "target" });
      const spec: WrkSpec = {
        url: `${server.base}/iam/v2beta1/groups/${group.uid}`,
        headers: { authorization: `Bearer ${token}` },
        connections: 32,
        seconds: ctx.seconds,
      };
      const idle = rssMb(server.pid);
      const underLoad: number[] = [];
      let errors = 0;
      const rates: number[] = [];
      for (let round = 0; round < ctx.rounds; round++) {
        const sampled = await peakRss(server.pid, () => runWrk(spec));
        underLoad.push(sampled.peak);
        errors += sampled.result.errors;
        rates.push(sampled.result.rps);
        ctx.log(`S7 RSS under load round ${round + 1}: ${underLoad.at(-1)?.toFixed(1)} MB`);
      }
      // The long run: a warm-up, the baseline RSS after it, then a real `total` requests more, with
      // growth and the peak over all of them. wrk runs for a time, not a count: chunks of at most
      // 30 s, the last sized from the rate so far, summed until the count is reached.
      const total = sized(process.env, "BENCH_S7_REQUESTS", 1_000_000, 50_000);
      const warmUp = total / 10;
      const longest = ctx.quick ? 5 : 30;
      // The first wrk run is sized from the short rounds' rate, so the warm-up is not overshot.
      let rate = median(rates);
      const serve = async (count: number): Promise<{ served: number; peak: number; chunks: number[] }> => {
        let served = 0;
        let peak = rssMb(server.pid);
        const chunks: number[] = [];
        while (served < count) {
          // Rounded up: the last run ends at or past the count; when the rate dipped, one more short run.
          const seconds = rate > 0 ? Math.min(longest, Math.max(1, Math.ceil((count - served) / rate))) : longest;
          const { peak: chunkPeak, result } = await peakRss(server.pid, () => runWrk({ ...spec, seconds }));
          peak = Math.max(peak, chunkPeak);
          served += result.requests;
          errors += result.errors;
          rate = result.requests / seconds;
          chunks.push(seconds);
          ctx.log(
            `S7 ${served.toLocaleString("en-US")} of ${count.toLocaleString("en-US")} requests, RSS ${rssMb(server.pid).toFixed(1)} MB`,
          );
        }
        return { served, peak, chunks };
      };
      const warm = await serve(warmUp);
      const before = rssMb(server.pid);
      const long = await serve(total);
      const after = rssMb(server.pid);
      const growth = (after / before - 1) * 100;
      const command = wrkCommand(spec);
      const longCommand =
        `${wrkCommand({ ...spec, seconds: longest })}, ` +
        `in runs of at most ${longest} s (the last one shorter) summed until the count is reached`;
      const soak = soakMemory(readFileSync(join(ROOT, "docs/reliability.md"), "utf8"));
      return {
        id: "S7",
        title: "start-up, resident memory under load, memory after many requests",
        method: [
          "Start-up: `node bin/arbor.js serve` on a fresh, empty SQLite data dir (the first start creates the schema and signing " +
            "keys), from spawn to the first 200 of `/readyz` (polled every 5 ms); median of the rounds, a new data dir each.",
          `Memory: the resident set (VmRSS of /proc/<pid>/status, sampled every 100 ms) of one server process under the S1 load (wrk, ` +
            `32 connections, authenticated GET of a group). First, short rounds of ${ctx.seconds} s (peak per round, median over the ` +
            `${ctx.rounds} rounds). Then the long run in the same process: a warm-up of ${warmUp.toLocaleString("en-US")} requests, the ` +
            `baseline RSS sampled right after it, then ${total.toLocaleString("en-US")} requests more. wrk runs for a time, not a count, ` +
            `so each part is a series of wrk runs of at most ${longest} s, the last sized from the rate so far, summed until the part's ` +
            `count is reached (the figures say how many were served). Growth: the RSS after the ${total.toLocaleString("en-US")} ` +
            `requests against the baseline. The target is judged on the peak over the whole long run, warm-up included, because V8 sizes ` +
            `its heap to the allocation rate over tens of seconds: the short rounds would flatter it. Any non-2xx answer or socket error ` +
            `fails every target.`,
          soak === undefined
            ? "The soak (`npm run soak`, docs/reliability.md) holds the same server under a mixed load " +
              "(reads, writes, exchanges at 70 % of its capacity, 30 min); " +
              "its section of docs/reliability.md could not be read, so its memory is not shown here."
            : `Beside it, the soak's memory as docs/reliability.md last recorded it (${soak.when}), not measured by this run: ` +
              "the same server on the same kind of store, under another load: mixed reads, writes and token exchanges " +
              "held at 70 % of its capacity for 30 minutes (bench/soak.ts), against S7's one GET in a closed loop. " +
              "The two are different measurements; a gap between them is the difference of load, not an error of either.",
        ],
        figures: [
          {
            label: "start-up to ready (empty store)",
            value: median(startups),
            unit: "ms",
            command: "ARBOR_DATA_DIR=$(mktemp -d) node bin/arbor.js serve, until GET /readyz = 200",
          },
          { label: "RSS idle after bootstrap", value: idle, unit: "MB", command: "grep VmRSS /proc/$PID/status" },
          { label: `RSS peak under S1 load, ${ctx.seconds} s rounds`, value: median(underLoad), unit: "MB", command },
          {
            label: `RSS after a warm-up of ${warm.served.toLocaleString("en-US")} requests (baseline)`,
            value: before,
            unit: "MB",
            command: longCommand,
          },
          {
            label: `RSS after ${long.served.toLocaleString("en-US")} requests more (in ${long.chunks.length} wrk runs)`,
            value: after,
            unit: "MB",
            command: longCommand,
          },
          {
            label: `RSS peak over the long run (${(warm.served + long.served).toLocaleString("en-US")} requests, warm-up included)`,
            value: Math.max(warm.peak, long.peak),
            unit: "MB",
            command: longCommand,
          },
          { label: "errors (all rounds)", value: errors, unit: "", command },
          ...(soak === undefined
            ? []
            : [
                {
                  label: `soak (docs/reliability.md, ${soak.when}): server RSS, highest of its minutes, mixed load`,
                  value: soak.peak,
                  unit: "MB",
                  command: soak.command,
                },
              ]),
        ],
        checks: [
          { label: "start-up to ready", measured: median(startups), unit: "ms", op: "≤", bound: 1_000, how: "empty embedded store" },
          {
            label: "RSS under S1 load",
            measured: Math.max(warm.peak, long.peak),
            unit: "MB",
            op: "≤",
            bound: 200,
            how: `peak over ${(warm.served + long.served).toLocaleString("en-US")} requests, warm-up included`,
          },
          {
            label: `memory growth over ${long.served.toLocaleString("en-US")} requests after the warm-up`,
            measured: growth,
            unit: "%",
            op: "≤",
            bound: 10,
            how: "RSS after ÷ RSS after warm-up − 1",
          },
        ],
        charts: [
          {
            file: "s7-memory",
            title: "S7: resident memory (MB)",
            unit: "MB",
            bars: [
              { label: "idle", value: idle },
              { label: "under S1 load (peak, long run)", value: Math.max(warm.peak, long.peak) },
              { label: "after warm-up", value: before },
              { label: `after ${long.served.toLocaleString("en-US")} more`, value: after },
              ...(soak === undefined ? [] : [{ label: "soak (mixed load, recorded)", value: soak.peak }]),
            ],
          },
        ],
        errors,
        notes: errors > 0 ? [`${errors} requests failed or answered non-200.`] : [],
      };
    } finally {
      await server.stop();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The soak's memory as docs/reliability.md records it (bench/soak-run.ts writes it between the
 * soak markers): the highest server RSS of its minutes, its date and command; undefined when the
 * section is not there.
 */
export function soakMemory(doc: string): { peak: number; when: string; command: string } | undefined {
  const section = /<!-- soak:start -->([\s\S]*?)<!-- soak:end -->/.exec(doc)?.[1];
  if (section === undefined) return undefined;
  const head = /Command: `([^`]+)` \(([^,]+),/.exec(section);
  const rss = [...section.matchAll(/^\|(?:[^|]*\|){5}\s*([\d.]+)\s*\|\s*$/gm)].map((m) => Number(m[1]));
  if (head === null || rss.length === 0) return undefined;
  return { peak: Math.max(...rss), when: head[2] as string, command: head[1] as string };
}

/** Runs fn while sampling pid's RSS every 100 ms; returns the peak and what fn returned. */
async function peakRss<T>(pid: number, fn: () => Promise<T>): Promise<{ peak: number; result: T }> {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
  try {
    const result = await fn();
    return { peak: Math.max(peak, rssMb(pid)), result };
  } finally {
    clearInterval(timer);
  }
}
