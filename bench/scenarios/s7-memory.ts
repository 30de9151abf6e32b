/**
 * S7: start-up to ready on an empty embedded store, resident memory under the S1 load, and
 * memory after 1,000,000 requests (BENCH_S7_REQUESTS; fewer in quick mode).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api, bootstrapOrg, rssMb, startArbor } from "../lib/arbor-process.js";
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
      for (let round = 0; round < ctx.rounds; round++) {
        underLoad.push(await peakRss(server.pid, async () => (errors += (await runWrk(spec)).errors)));
        ctx.log(`S7 RSS under load round ${round + 1}: ${underLoad.at(-1)?.toFixed(1)} MB`);
      }
      // Memory growth: a baseline after a warm-up, then the rest of the requests.
      const total = sized(process.env, "BENCH_S7_REQUESTS", 1_000_000, 50_000);
      const chunk = { ...spec, seconds: ctx.quick ? 5 : 30 };
      let served = 0;
      while (served < total / 10) {
        const r = await runWrk(chunk);
        served += r.requests;
        errors += r.errors;
      }
      const before = rssMb(server.pid);
      let peak = before;
      while (served < total) {
        let requests = 0;
        peak = Math.max(
          peak,
          await peakRss(server.pid, async () => {
            const r = await runWrk(chunk);
            requests = r.requests;
            errors += r.errors;
          }),
        );
        served += requests;
        ctx.log(`S7 ${served.toLocaleString("en-US")} requests served, RSS ${rssMb(server.pid).toFixed(1)} MB`);
      }
      const after = rssMb(server.pid);
      const growth = (after / before - 1) * 100;
      const command = wrkCommand(spec);
      const longCommand = `${wrkCommand(chunk)}, repeated until ${total.toLocaleString("en-US")} requests`;
      return {
        id: "S7",
        title: "start-up, resident memory under load, memory after many requests",
        method: [
          "Start-up: `node bin/arbor.js serve` on a fresh, empty SQLite data dir (the first start creates the schema and signing keys), from spawn to the first 200 of `/readyz` (polled every 5 ms); median of the rounds, a new data dir each.",
          `Memory: the resident set (VmRSS of /proc/<pid>/status) of one server process under the S1 load (wrk, 32 connections, authenticated GET of a group). The target is judged on the peak over the whole long run (${total.toLocaleString("en-US")} requests after the warm-up, sampled every 100 ms), because V8 sizes its heap to the allocation rate over tens of seconds: the short rounds (sampled every 100 ms, peak per round, median over rounds) are reported too but would flatter it. Growth: the RSS after the first tenth of the requests (the warm-up) against the RSS after all of them, same process, same load.`,
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
            label: `RSS after ${(total / 10).toLocaleString("en-US")} requests (baseline)`,
            value: before,
            unit: "MB",
            command: longCommand,
          },
          { label: `RSS after ${served.toLocaleString("en-US")} requests`, value: after, unit: "MB", command: longCommand },
          { label: "RSS peak during the long run", value: peak, unit: "MB", command: longCommand },
        ],
        checks: [
          { label: "start-up to ready", measured: median(startups), unit: "ms", op: "≤", bound: 1_000, how: "empty embedded store" },
          {
            label: "RSS under S1 load",
            measured: peak,
            unit: "MB",
            op: "≤",
            bound: 200,
            how: `peak over ${served.toLocaleString("en-US")} requests`,
          },
          {
            label: `memory growth over ${total.toLocaleString("en-US")} requests`,
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
              { label: "under S1 load (peak, long run)", value: peak },
              { label: "after warm-up", value: before },
              { label: `after ${served.toLocaleString("en-US")} requests`, value: after },
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

/** Runs fn while sampling pid's RSS every 100 ms; returns the peak. */
async function peakRss(pid: number, fn: () => Promise<unknown>): Promise<number> {
  let peak = rssMb(pid);
  const timer = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
  try {
    await fn();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, rssMb(pid));
}
