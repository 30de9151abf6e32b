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
import { importAdvisories } from "../src/osv/import-advisories.js";
import { readSources } from "../src/osv/read-sources.js";
import { startServer } from "../src/server/server.js";
import { createChildGroup, createOrganization } from "../src/services/groups-store-ops.js";
import type { LoadResult, LoadSpec } from "./load.js";
import { writeOsvArchive } from "./osv-documents.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const GROUPS = Number(process.env.BENCH_GROUPS ?? 10_000);
const ADVISORIES = Number(process.env.BENCH_ADVISORIES ?? 30_000);

/** Imports a generated archive twice: new documents, then the same again (all unchanged). */
async function measureImport(store: Parameters<typeof importAdvisories>[0]): Promise<{ scenario: string; seconds: number; rate: number }[]> {
  const archive = join(dataDir, "osv-bench.zip");
  await writeOsvArchive(archive, ADVISORIES);
  const out = [];
  for (const scenario of ["first import (all new)", "again (all unchanged)"]) {
    const started = performance.now();
    const summary = await importAdvisories(store, (await readSources([archive])).items());
    const seconds = (performance.now() - started) / 1000;
    if (summary.skipped + summary.unreadable > 0) throw new Error(`the generated documents did not import: ${JSON.stringify(summary)}`);
    out.push({ scenario, seconds, rate: ADVISORIES / seconds });
    process.stderr.write(`advisory import, ${scenario}: ${(ADVISORIES / seconds).toFixed(0)} documents/s (${seconds.toFixed(2)} s)\n`);
  }
  return out;
}

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
  // `{round}` in a body keeps each round's creates distinct from the last round's.
  for (let i = 0; i < ROUNDS; i++) runs.push(await load({ ...spec, ...(spec.body && { body: spec.body.replaceAll("{round}", String(i)) }), seconds: SECONDS }));
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
      body: `{"name": "created-${process.pid}-{round}-{i}"}`,
      connections: 8,
    }),
  );
  const imports = await measureImport(server.store);
  rows.push(
    await measure(`GET advisories, ecosystem=npm, page of 50 + totalCount, of ${ADVISORIES}`, {
      url: `${base}/vulnerabilities/v2beta1/advisories?ecosystem=npm&page_size=50`,
      method: "GET",
      headers: auth,
      connections: 8,
    }),
  );
  rows.push(
    await measure(`GET advisories, query=injection (a scan), page of 50 + totalCount, of ${ADVISORIES}`, {
      url: `${base}/vulnerabilities/v2beta1/advisories?query=injection&page_size=50`,
      method: "GET",
      headers: auth,
      connections: 8,
    }),
  );
  const lines = [
    "# Benchmarks",
    "",
    "Produced by `npm run bench` (environment: `BENCH_ROUNDS`, `BENCH_SECONDS`, `BENCH_GROUPS`, `BENCH_ADVISORIES`).",
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
    "## Advisory import",
    "",
    `${ADVISORIES} generated OSV documents (\`BENCH_ADVISORIES\`; GitHub-, Go- and PyPI-style, 1 to 3`,
    "affected packages each, about 2 KB of JSON) in one zip archive, imported into the running",
    "server's store as `arbor advisories import` and the feed sync do: schema check, batches of 500",
    "per transaction. Once; each figure is one run.",
    "",
    "| import | seconds | documents/s |",
    "|---|---:|---:|",
    ...imports.map((r) => `| ${r.scenario} | ${r.seconds.toFixed(2)} | ${r.rate.toFixed(0)} |`),
    "",
  ];
  writeFileSync(new URL("../../docs/benchmarks.md", import.meta.url), lines.join("\n"));
} finally {
  await server.close();
  rmSync(dataDir, { recursive: true, force: true });
}
