/**
 * `npm run bench`: starts a real server on the embedded store, measures it with a load generator
 * in a worker thread, and writes docs/benchmarks.md. Each figure is the median of several runs.
 * The full suite of targets (against a bare server, PostgreSQL, a peer) is a later milestone;
 * these are the foundation's figures.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir, cpus } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { pino } from "pino";
import { resolveConfig } from "../src/config.js";
import { adminIdentityUid } from "../src/domain/identities.js";
import { startServer } from "../src/server/server.js";
import { createChildGroup, createOrganization } from "../src/services/groups-store-ops.js";
import type { LoadResult, LoadSpec } from "./load.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 10_000);

function load(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL("./load.js", import.meta.url), { workerData: spec });
    worker.once("message", resolve);
    worker.once("error", reject);
  });
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

interface Row {
  scenario: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function measure(scenario: string, spec: Omit<LoadSpec, "seconds">): Promise<Row> {
  const runs: LoadResult[] = [];
  for (let i = 0; i < ROUNDS; i++) runs.push(await load({ ...spec, seconds: SECONDS }));
  const row = {
    scenario,
    rps: median(runs.map((r) => r.requests / r.seconds)),
    p50: median(runs.map((r) => pct(r.latencies, 50))),
    p99: median(runs.map((r) => pct(r.latencies, 99))),
    errors: runs.reduce((n, r) => n + r.errors, 0),
  };
  process.stderr.write(`${scenario}: ${row.rps.toFixed(0)} req/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, errors ${row.errors}\n`);
  return row;
}

async function bareServer(body: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) });
    res.end(body);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((r) => server.close(() => r())) };
}

const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-"));
const config = { ...resolveConfig({ env: {} }), port: 0, host: "127.0.0.1", dataDir, baseUrl: undefined };
const server = await startServer(config, { logger: pino({ level: "silent" }) });
try {
  const org = await createOrganization(server.deps, { name: "bench", description: "" }, adminIdentityUid);
  const { token } = await server.tokens.issue(adminIdentityUid(org.uid), server.url);
  let first = "";
  for (let i = 0; i < GROUPS; i++) {
    const g = await createChildGroup(server.deps, org.uid, { name: `group-${String(i).padStart(6, "0")}`, description: "" });
    if (i === 0) first = g.uid;
  }
  const base = `http://127.0.0.1:${server.port}`;
  const auth = { authorization: `Bearer ${token}` };
  const getBody = await (await fetch(`${base}/iam/v2beta1/groups/${first}`, { headers: auth })).text();
  const bare = await bareServer(getBody);
  const rows: Row[] = [];
  rows.push(await measure("bare node:http, same bytes", { url: `${bare.url}/`, method: "GET", headers: {}, connections: 32 }));
  await bare.close();
  rows.push(await measure("GET /iam/v2beta1/groups/{uid}", { url: `${base}/iam/v2beta1/groups/${first}`, method: "GET", headers: auth, connections: 32 }));
  rows.push(
    await measure(`GET list page of 50 + totalCount, descendants of an org of ${GROUPS}`, {
      url: `${base}/iam/v2beta1/groups?uidp.descendants_of=${org.uid}&page_size=50`,
      method: "GET",
      headers: auth,
      connections: 8,
    }),
  );
  let token2 = "";
  for (let page = 0; page < Math.floor(GROUPS / 50) - 1; page++) {
    const res = (await (await fetch(`${base}/iam/v2beta1/groups?uidp.descendants_of=${org.uid}&page_size=50${token2 ? `&page_token=${token2}` : ""}`, { headers: auth })).json()) as { nextPageToken: string };
    token2 = encodeURIComponent(res.nextPageToken);
  }
  rows.push(
    await measure(`GET list, the last page reached by cursor (page ${Math.floor(GROUPS / 50)})`, {
      url: `${base}/iam/v2beta1/groups?uidp.descendants_of=${org.uid}&page_size=50&page_token=${token2}`,
      method: "GET",
      headers: auth,
      connections: 8,
    }),
  );
  rows.push(
    await measure("POST create group (distinct names)", {
      url: `${base}/iam/v2beta1/groups/${org.uid}`,
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: `{"name": "created-${process.pid}-{i}"}`,
      connections: 8,
    }),
  );
  const lines = [
    "# Benchmarks",
    "",
    "Produced by `npm run bench` (environment: `BENCH_ROUNDS`, `BENCH_SECONDS`, `BENCH_GROUPS`).",
    `Machine: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, SQLite store.`,
    `Each figure is the median of ${ROUNDS} runs of ${SECONDS} s; load comes from a closed-loop`,
    "keep-alive client in a worker thread of the same process (HTTP/1.1 REST). These are the",
    "foundation's figures; the full benchmark suite with its targets is a later milestone.",
    "",
    "| scenario | requests/s | p50 ms | p99 ms | errors |",
    "|---|---:|---:|---:|---:|",
    ...rows.map((r) => `| ${r.scenario} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.errors} |`),
    "",
    `Ratio of the authenticated GET to the bare server: ${((rows[1]!.rps / rows[0]!.rps) * 100).toFixed(0)} %.`,
    `Ratio of the last page by cursor to the first page: ${(rows[3]!.p50 / rows[2]!.p50).toFixed(2)} × (p50).`,
    "",
  ];
  writeFileSync(new URL("../../docs/benchmarks.md", import.meta.url), lines.join("\n"));
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
