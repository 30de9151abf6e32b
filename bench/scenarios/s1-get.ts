/**
 * S1: authenticated GET of a group on SQLite, keep-alive, load from wrk in its own process,
 * against a bare node:http server answering the same bytes on the same port, round by round
 * (Arbor, then the baseline, alternating), so both see the same machine. Then an open-loop
 * probe at half of Arbor's throughput for the p99.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api, bootstrapOrg, freePort, startArbor } from "../lib/arbor-process.js";
import { startChildServer } from "../lib/child-server.js";
import { openLoopCommand, runOpenLoop } from "../lib/open-loop.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runWrk, wrkCommand, type WrkResult } from "../lib/wrk.js";

const CONNECTIONS = 32;

/** The scenario. */
export const s1Get: Scenario = { id: "S1", run };

/** What S1 reads: the group it GETs, an owner's token, and the answer Arbor gave (for the bare server to repeat). */
export interface S1Target {
  path: string;
  token: string;
  body: string;
  contentType: string;
}

/**
 * Makes S1's store in env's data directory: an organization and the group S1 reads, through a
 * server started on port and stopped again; also bench/tools/s1-calibration.ts.
 */
export async function s1Target(env: Record<string, string>, port: number): Promise<S1Target> {
  const server = await startArbor({ env, port });
  try {
    const { org, token } = await bootstrapOrg(server.env, "bench-s1");
    const group = await api<{ uid: string }>(server.base, token, "POST", `/iam/v2beta1/groups/${org}`, {
      name: "target",
      description: "the group S1 reads",
    });
    const path = `/iam/v2beta1/groups/${group.uid}`;
    const sample = await fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${token}` } });
    return { path, token, body: await sample.text(), contentType: sample.headers.get("content-type") ?? "application/json" };
  } finally {
    await server.stop();
  }
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s1-"));
  const port = await freePort();
  const env = { ARBOR_DATA_DIR: dataDir };
  try {
    const { path, token, body, contentType } = await s1Target(env, port);

    const spec = {
      url: `http://127.0.0.1:${port}${path}`,
      headers: { authorization: `Bearer ${token}` },
      connections: CONNECTIONS,
      seconds: ctx.seconds,
    };
    const arbor: WrkResult[] = [];
    const bare: WrkResult[] = [];
    const probes: { rate: number; p99: number; p50: number; errors: number }[] = [];
    for (let round = 0; round < ctx.rounds; round++) {
      const server = await startArbor({ env, port });
      try {
        await runWrk({ ...spec, seconds: 1 });
        const a = await runWrk(spec);
        arbor.push(a);
        const rate = Math.round(a.rps / 2);
        const probe = await runOpenLoop({ url: spec.url, headers: spec.headers, rate, seconds: ctx.seconds });
        probes.push({ rate, p99: probe.p99, p50: probe.p50, errors: probe.errors });
        ctx.log(
          `S1 round ${round + 1}: Arbor ${a.rps.toFixed(0)} req/s (p99 ${a.p99.toFixed(2)} ms, errors ${a.errors}); at ${rate} req/s ` +
            `open loop p99 ${probe.p99.toFixed(2)} ms`,
        );
      } finally {
        await server.stop();
      }
      const baseline = await startChildServer("bare-server", { port, body, contentType });
      try {
        await runWrk({ ...spec, seconds: 1 });
        const b = await runWrk(spec);
        bare.push(b);
        ctx.log(`S1 round ${round + 1}: bare node:http ${b.rps.toFixed(0)} req/s`);
      } finally {
        await baseline.stop();
      }
    }
    const arborRps = median(arbor.map((r) => r.rps));
    const bareRps = median(bare.map((r) => r.rps));
    const ratio = median(arbor.map((a, i) => a.rps / (bare[i] as WrkResult).rps));
    const p99Half = median(probes.map((p) => p.p99));
    const errors = [...arbor, ...bare].reduce((n, r) => n + r.errors, 0) + probes.reduce((n, p) => n + p.errors, 0);
    const wrk = wrkCommand(spec);
    const probeCmd = openLoopCommand({ url: spec.url, rate: Math.round(arborRps / 2), seconds: ctx.seconds });
    return {
      id: "S1",
      title: "authenticated GET /iam/v2beta1/groups/{uid} vs a bare node:http server",
      method: [
        `Arbor runs as its own process (\`node bin/arbor.js serve\`, SQLite in a fresh data dir, default log level \`info\` to a ` +
          `discarded stdout, as a user would run it). wrk (${CONNECTIONS} keep-alive connections, 2 threads) sends the owner token's GET ` +
          `of one group. The baseline is bare \`node:http\` in its own process on the same port, answering the very bytes and content ` +
          `type Arbor answered. Each round restarts Arbor, warms both up for 1 s, and measures Arbor then the baseline; the ratio is ` +
          `taken per round and its median reported.`,
        "The p99 at half load comes from an open-loop generator (bench/tools/open-loop.ts, its own process; wrk cannot hold a rate) " +
          "sending at half of that round's Arbor throughput, timing each request from when it was due, so queueing shows.",
      ],
      figures: [
        { label: "Arbor GET, requests/s", value: arborRps, unit: "req/s", command: wrk },
        { label: "Arbor GET p50 under full load", value: median(arbor.map((r) => r.p50)), unit: "ms", command: wrk },
        { label: "Arbor GET p99 under full load", value: median(arbor.map((r) => r.p99)), unit: "ms", command: wrk },
        { label: "bare node:http, same bytes, requests/s", value: bareRps, unit: "req/s", command: wrk },
        {
          label: "open-loop rate (half of Arbor's throughput)",
          value: median(probes.map((p) => p.rate)),
          unit: "req/s",
          command: probeCmd,
        },
        { label: "Arbor GET p50 at half load", value: median(probes.map((p) => p.p50)), unit: "ms", command: probeCmd },
        { label: "Arbor GET p99 at half load", value: p99Half, unit: "ms", command: probeCmd },
        { label: "errors (all rounds)", value: errors, unit: "", command: wrk },
      ],
      checks: [
        {
          label: "throughput vs bare node:http",
          measured: ratio * 100,
          unit: "%",
          op: "≥",
          bound: 60,
          how: "Arbor req/s ÷ bare req/s, per round",
        },
        { label: "p99 at half load", measured: p99Half, unit: "ms", op: "≤", bound: 5, how: "open loop at ½ Arbor req/s" },
      ],
      charts: [
        {
          file: "s1-throughput",
          title: "S1: GET a group, requests/s (median)",
          unit: "req/s",
          bars: [
            { label: "bare node:http (same bytes)", value: bareRps },
            { label: "Arbor (auth + store)", value: arborRps },
          ],
        },
      ],
      errors,
      notes: errors > 0 ? [`${errors} requests failed or answered non-200.`] : [],
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
