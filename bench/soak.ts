/**
 * `npm run soak`: the built server in its own process on a fresh embedded store, first driven
 * flat out with the mixed load (reads, writes, exchanges) to measure its capacity, then held at
 * SOAK_LOAD (0.7) of that for SOAK_MINUTES (30). Every minute: requests, errors, p50/p99 and the
 * server's resident memory. Passes when there are no errors, memory stays within 10 % of its
 * level after warm-up, and the p99 of the last five minutes is within 1.5x of the first five.
 * With SOAK_WRITE=1 the figures replace the soak section of docs/reliability.md.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { builtinRoleUid } from "../src/domain/roles.js";
import { ARBOR, freePort, rssMb } from "./lib/arbor-process.js";
import type { LoadWindow, MixedLoadSpec } from "./mixed-load.js";
import { startBenchIssuer } from "./upstream-issuer.js";

/** The run's length in minutes (SOAK_MINUTES; SOAK_SECONDS overrides, for short checks). */
export const MINUTES = Number(process.env.SOAK_MINUTES ?? 30);
const SECONDS = process.env.SOAK_SECONDS !== undefined ? Number(process.env.SOAK_SECONDS) : MINUTES * 60;
const LOAD = Number(process.env.SOAK_LOAD ?? 0.7);
const CAPACITY_SECONDS = Number(process.env.SOAK_CAPACITY_SECONDS ?? 15);
const WINDOW_MS = Number(process.env.SOAK_WINDOW_MS ?? 60_000);

/** The outcome of a soak run. */
export interface SoakResult {
  capacity: number;
  rate: number;
  windows: (LoadWindow & { rssMb: number })[];
  errors: number;
  memoryGrowth: number;
  p99Ratio: number;
  passed: boolean;
}

function runLoad(spec: MixedLoadSpec, onWindow: (w: LoadWindow) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./mixed-load.js", import.meta.url), { workerData: spec });
    worker.on("message", (m: { window?: LoadWindow; done?: true }) => {
      if (m.window) onWindow(m.window);
      if (m.done) void worker.terminate().then(() => resolve());
    });
    worker.once("error", reject);
  });
}

async function json(base: string, token: string, method: string, path: string, body: unknown): Promise<{ uid: string }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as { uid: string };
}

/** Runs the soak; SOAK_* from the environment unless given. */
export async function soak(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<SoakResult> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-soak-"));
  const issuer = await startBenchIssuer();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    ARBOR_DATA_DIR: dataDir,
    ARBOR_PORT: String(port),
    ARBOR_BASE_URL: base,
    ARBOR_EXCHANGE_RATE_LIMIT: "off",
    ARBOR_ALLOW_HTTP_LOOPBACK_ISSUERS: "true",
  };
  const server = spawn(process.execPath, [ARBOR, "serve"], { env, stdio: ["ignore", "ignore", "inherit"] });
  try {
    for (let i = 0; ; i++) {
      if ((await fetch(`${base}/readyz`).catch(() => undefined))?.status === 200) break;
      if (i > 100) throw new Error("the server did not become ready");
      await new Promise((r) => setTimeout(r, 100));
    }
    const org = (
      JSON.parse(execFileSync(process.execPath, [ARBOR, "admin", "bootstrap", "--org", "soak"], { env }).toString()) as { uid: string }
    ).uid;
    const token = execFileSync(process.execPath, [ARBOR, "admin", "token", "--org", "soak"], { env }).toString().trim();
    const identity = await json(base, token, "POST", `/iam/v2beta1/identities/${org}`, {
      name: "ci",
      claimMatch: { issuer: issuer.url, subject: "ci" },
    });
    await json(base, token, "POST", `/iam/v2beta1/roleBindings/${org}`, { identityUid: identity.uid, roleUid: builtinRoleUid("viewer") });
    const upstreamToken = await issuer.mint("ci", base, SECONDS + 3_600);
    const spec = { base, token, org, exchange: { upstreamToken, identity: identity.uid }, connections: 64 };

    let served = 0;
    await runLoad({ ...spec, seconds: CAPACITY_SECONDS, windowMs: CAPACITY_SECONDS * 1000 + 5_000 }, (w) => (served += w.requests));
    const capacity = served / CAPACITY_SECONDS;
    const rate = Math.round(capacity * LOAD);
    log(`capacity ${capacity.toFixed(0)} req/s (closed loop, 64 clients, ${CAPACITY_SECONDS} s); holding ${rate} req/s for ${SECONDS} s`);

    const windows: SoakResult["windows"] = [];
    await runLoad({ ...spec, seconds: SECONDS, rate, windowMs: WINDOW_MS }, (w) => {
      const row = { ...w, rssMb: rssMb(server.pid as number) };
      windows.push(row);
      log(
        `t=${w.t.toFixed(0)}s requests ${w.requests} errors ${w.errors} shed ${w.shed} p50 ${w.p50.toFixed(2)} ms p99 ` +
          `${w.p99.toFixed(2)} ms rss ${row.rssMb.toFixed(1)} MB${w.samples.length ? ` e.g. ${w.samples[0]}` : ""}`,
      );
    });
    return verdict(capacity, rate, windows);
  } finally {
    server.kill("SIGTERM");
    await new Promise((resolve) => server.once("exit", resolve));
    await issuer.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function verdict(capacity: number, rate: number, all: SoakResult["windows"]): SoakResult {
  const errors = all.reduce((n, w) => n + w.errors + w.shed, 0);
  // The requests still in flight when the run ends come as a last, tiny window: its "p99" is the
  // slowest of a handful and would be judged as a window. Errors in it still count (above).
  const full = Math.max(...all.map((w) => w.requests));
  const windows = all.filter((w, i) => i < all.length - 1 || w.requests >= full / 2);
  // Warm-up: the first fifth of the run (at least one window) is not the baseline.
  const warm = windows.slice(Math.max(1, Math.floor(windows.length / 5)));
  const settled = warm.length > 0 ? warm : windows;
  const baseline = settled[0]?.rssMb ?? NaN;
  const memoryGrowth = Math.max(...settled.map((w) => w.rssMb)) / baseline - 1;
  const span = Math.max(1, Math.min(5, Math.floor(settled.length / 2)));
  const maxP99 = (ws: typeof windows) => Math.max(...ws.map((w) => w.p99));
  const p99Ratio = maxP99(settled.slice(-span)) / maxP99(settled.slice(0, span));
  const passed = errors === 0 && memoryGrowth <= 0.1 && p99Ratio <= 1.5;
  return { capacity, rate, windows, errors, memoryGrowth, p99Ratio, passed };
}

/** The soak section of docs/reliability.md. */
export function soakMarkdown(r: SoakResult, command: string): string {
  const rows = r.windows.map(
    (w) =>
      `| ${w.t.toFixed(0)} | ${w.requests} | ${w.errors + w.shed} | ${w.p50.toFixed(2)} | ${w.p99.toFixed(2)} | ${w.rssMb.toFixed(1)} |`,
  );
  return [
    `Command: \`${command}\` (${new Date().toISOString().slice(0, 10)}, ${process.versions.node}, SQLite).`,
    "",
    `Capacity (closed loop, 64 clients, mixed 70 % reads / 20 % writes / 10 % exchanges): ${r.capacity.toFixed(0)} requests/s; held at ` +
      `${r.rate} requests/s (${Math.round((r.rate / r.capacity) * 100)} %).`,
    `Errors: ${r.errors}. Memory growth after warm-up: ${(r.memoryGrowth * 100).toFixed(1)} % (limit 10 %). p99 of the last windows / ` +
      `the first: ${r.p99Ratio.toFixed(2)} (limit 1.5). Verdict: **${r.passed ? "pass" : "FAIL"}**.`,
    "",
    "| t (s) | requests | errors | p50 ms | p99 ms | server RSS MB |",
    "|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
}
