/**
 * ADVISORIES (issue 19): all of OSV's scale on each engine. 500,000 generated documents shaped
 * like OSV's feeds (bench/osv-documents.ts) in one zip archive, imported by `arbor advisories
 * import` (its own process: time and peak RSS), then again unchanged; then a server on that store
 * answers pages of 50 with totalCount for each filter, page 1 and page 1,000 (or the last page,
 * for a filter with fewer pages), one request at a time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arborEnv, bootstrapOrg, freePort, startArbor } from "../lib/arbor-process.js";
import { analyze, dropSchema } from "../lib/datasets.js";
import { sized } from "../lib/options.js";
import type { Check, Figure, Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { percentile } from "../lib/stats.js";
import { timedImport } from "../lib/timed-import.js";
import { osvDocument, writeOsvArchive } from "../osv-documents.js";

/** The scenario. */
export const advisories: Scenario = { id: "ADVISORIES", run };

/** A list to time: its label, its query string, its target p50 (ms), and whether to go deep. */
const LISTS: { label: string; query: string; p50: number; deep: boolean }[] = [
  { label: "no filter", query: "", p50: 10, deep: true },
  { label: "ecosystem=npm (12 %)", query: "ecosystem=npm", p50: 10, deep: true },
  { label: "ecosystem=Debian (18 %, every release)", query: "ecosystem=Debian", p50: 10, deep: true },
  { label: "ecosystem=Debian:12 (one release)", query: "ecosystem=Debian:12", p50: 10, deep: true },
  { label: "ecosystem=Hackage (0.2 %)", query: "ecosystem=Hackage", p50: 10, deep: true },
  { label: "package_name=linux (the most affected package)", query: "package_name=linux", p50: 10, deep: true },
  { label: "ecosystem=npm&package_name=openssl", query: "ecosystem=npm&package_name=openssl", p50: 10, deep: true },
  { label: "ecosystem=Debian&package_name=linux (every release)", query: "ecosystem=Debian&package_name=linux", p50: 10, deep: true },
  { label: "package_name=package-2000 (a rare package)", query: "package_name=package-2000", p50: 10, deep: false },
  { label: "query=injection (a common word)", query: "query=injection", p50: 25, deep: true },
  { label: "query=use-after-free (a rarer word)", query: "query=use-after-free", p50: 25, deep: true },
  { label: "query=package-2345 (few matches)", query: "query=package-2345", p50: 25, deep: false },
  { label: "query=cve-2019-1 (ids and aliases)", query: "query=cve-2019-1", p50: 25, deep: true },
];

/** Limits of the import (issue 19, item 3). */
const IMPORT_SECONDS = 120;
const REIMPORT_SECONDS = 30;
const IMPORT_RSS_MB = 400;

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const count = sized(process.env, "BENCH_ADVISORIES", 500_000, 5_000);
  const work = mkdtempSync(join(tmpdir(), "arbor-bench-osv-"));
  const command = `BENCH_ONLY=advisories BENCH_ADVISORIES=${count} npm run bench`;
  const figures: Figure[] = [];
  const checks: Check[] = [];
  const notes: string[] = [];
  let errorCount = 0;
  try {
    const archive = join(work, "all.zip");
    let started = performance.now();
    await writeOsvArchive(archive, count);
    // Drawn before any server runs: making it reads every document again, seconds of blocking work
    // that between two requests would leave a keep-alive connection idle past the server's timeout
    // (the server then closes it as the next request goes out on it: a reset).
    const batch = checkBatch(count);
    ctx.log(`generated ${count} documents in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    for (const engine of ["SQLite", "PostgreSQL"] as const) {
      const dataDir = mkdtempSync(join(work, "data-"));
      const schema = `bench_advisories_${process.pid}`;
      const env: Record<string, string> = {
        ARBOR_DATA_DIR: dataDir,
        ...(engine === "PostgreSQL" && { ARBOR_DATABASE_URL: ctx.databaseUrl, ARBOR_DATABASE_SCHEMA: schema }),
      };
      try {
        for (const [phase, limit] of [
          ["first import (all new)", IMPORT_SECONDS],
          ["again (all unchanged)", REIMPORT_SECONDS],
        ] as const) {
          const r = await timedImport(env, archive);
          ctx.log(`${engine} ${phase}: ${r.seconds.toFixed(1)} s, peak RSS ${r.peakRssMb.toFixed(0)} MB: ${r.output}`);
          const expected = phase.startsWith("first")
            ? `imported ${count}, updated 0, unchanged 0, skipped 0`
            : `imported 0, updated 0, unchanged ${count}, skipped 0`;
          const errors = r.exitCode === 0 && r.output.startsWith(expected) ? 0 : 1;
          errorCount += errors;
          if (errors > 0) notes.push(`${engine}, ${phase}: the import did not do what it should: ${r.output.split("\n")[0]}`);
          figures.push(
            { label: `${engine}: import of ${count.toLocaleString("en-US")} documents, ${phase}`, value: r.seconds, unit: "s", command },
            { label: `${engine}: import, ${phase}: peak RSS`, value: r.peakRssMb, unit: "MB", command },
          );
          checks.push(
            {
              label: `${engine}: import, ${phase}`,
              measured: r.seconds,
              unit: "s",
              op: "≤",
              bound: limit,
              how: "spawn to exit of `arbor advisories import all.zip`",
              errors,
            },
            {
              label: `${engine}: import, ${phase}: peak RSS`,
              measured: r.peakRssMb,
              unit: "MB",
              op: "≤",
              bound: IMPORT_RSS_MB,
              how: "VmHWM of the import process",
              errors,
            },
          );
        }
        // As PostgreSQL's autovacuum would after such a load (statistics, and the visibility map
        // that lets a count read an index alone); SQLite's advisory tables keep none, as users' do
        // (the server keeps only those of the groups, identities and role bindings).
        if (engine === "PostgreSQL") await analyze({ engine: "postgres", url: ctx.databaseUrl, schema }, { vacuum: true });
        started = performance.now();
        errorCount += await timeLists(ctx, engine, env, count, batch, figures, checks);
        ctx.log(`${engine} lists timed in ${((performance.now() - started) / 1000).toFixed(0)} s`);
      } finally {
        if (engine === "PostgreSQL") await dropSchema(ctx.databaseUrl, schema);
        rmSync(dataDir, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return {
    id: "ADVISORIES",
    title: "advisories at the scale of all of OSV: import, re-import, filtered pages",
    method: [
      `${count.toLocaleString("en-US")} generated OSV documents (\`BENCH_ADVISORIES\`; bench/osv-documents.ts: ecosystems as skewed as ` +
        `OSV's, from Debian's 18 % and Ubuntu's 15 % through npm's 12 % down to Hackage's 0.2 %, distribution ecosystems named with ` +
        `their releases, 1 to 30 affected packages (about 5 on average), package popularity skewed (\`linux\` in about 9 % of ` +
        `advisories), CVE and GHSA aliases, details of 80 to 500 words, 2 % withdrawn; about 5 KB of JSON each) in one zip archive ` +
        `(zip64), imported by \`arbor advisories import\` in its own process (time from spawn to exit, peak RSS from /proc), then ` +
        `imported again unchanged. Each engine gets its own store: SQLite in a fresh data directory, PostgreSQL in a schema of its own ` +
        `(VACUUM ANALYZE after the import, as autovacuum would). Each import figure is one run.`,
      `Then a server on that store (\`arbor serve\` in its own process, default log level to a discarded stdout, as users run it) ` +
        `answers \`GET ` +
        `/vulnerabilities/v2beta1/advisories?<filter>&page_size=50\` (a page of 50 with its totalCount), one request at a time from the ` +
        `harness: ${ctx.rounds * 20} requests of page 1, and of page 1,000 (reached by following nextPageToken, so by keyset) or of the ` +
        `last page for a filter with fewer pages; a figure is the p50 of those requests, each timed from its sending to the last byte of ` +
        `its answer (the harness parses the answer after, to check it). A request that does not answer 200 with a full ` +
        `page counts as an error and fails the figure's target. The targets (issue 19): a list p50 under 10 ms and its deep page within ` +
        `1.5 times its page 1; \`query\` p50 under 25 ms; the import under ${IMPORT_SECONDS} s in under ${IMPORT_RSS_MB} MB, the ` +
        `re-import under ${REIMPORT_SECONDS} s.`,
      `Then \`POST /vulnerabilities/v2beta1/advisories:check\` with a batch of ${CHECK_BATCH.toLocaleString("en-US")} package versions, ` +
        `${ctx.rounds * 4} requests one at a time after ${CHECK_WARMUP} untimed ones (checked all the same), each timed as a page is, ` +
        `the figure their p50 ` +
        `(target ${CHECK_MS} ms): ${CHECK_BATCH.toLocaleString("en-US")} ` +
        `(ecosystem, package) pairs drawn uniformly (seeded) from every distinct pair the documents name (release included), as a ` +
        `bill of materials asks, each at a version (\`N.0.5\`) that some of its advisories' ranges hold and others do not; the ` +
        `figure's label gives how many pairs there were and how many advisories the answer held. A request that does not answer 200 ` +
        `with a result per package version is an error.`,
    ],
    figures,
    checks,
    charts: [],
    errors: errorCount,
    notes,
  };
}

/** The lists of ids and aliases: 20 ids and 3 aliases of documents spread over the archive. */
function byIds(count: number): typeof LISTS {
  const docs = Array.from({ length: 20 }, (_, k) => osvDocument(Math.floor((k * count) / 20)) as { id: string; aliases?: string[] });
  const aliases = docs.flatMap((d) => d.aliases ?? []).slice(0, 3);
  return [
    { label: "aliases (3 CVEs)", query: aliases.map((a) => `aliases=${a}`).join("&"), p50: 10, deep: false },
    { label: "advisory_ids (20 ids)", query: docs.map((d) => `advisory_ids=${encodeURIComponent(d.id)}`).join("&"), p50: 10, deep: false },
  ];
}

/** Times page 1 and the deep page of every list on a server over env's store; returns the failed requests. */
async function timeLists(
  ctx: ScenarioContext,
  engine: string,
  env: Record<string, string>,
  count: number,
  batch: CheckBatch,
  figures: Figure[],
  checks: Check[],
): Promise<number> {
  let errors = 0;
  // The server as users run it: its own process, default log level (bench/lib/arbor-process.ts).
  const port = await freePort();
  const { token } = await bootstrapOrg(arborEnv(port, env), "bench-advisories");
  const server = await startArbor({ env, port });
  try {
    const headers = { authorization: `Bearer ${token}` };
    const base = `${server.base}/vulnerabilities/v2beta1/advisories?page_size=50`;
    for (const list of [...LISTS, ...byIds(count)]) {
      const url = list.query === "" ? base : `${base}&${list.query}`;
      const first = await timePage(url, headers, ctx.rounds * 20, 0);
      const shown = `GET …/advisories?${list.query === "" ? "" : `${list.query}&`}page_size=50`;
      figures.push({
        label: `${engine}: ${list.label}, page 1: p50 (totalCount ${first.total.toLocaleString("en-US")})`,
        value: first.p50,
        unit: "ms",
        command: shown,
      });
      checks.push({
        label: `${engine}: ${list.label}, page 1`,
        measured: first.p50,
        unit: "ms",
        op: "≤",
        bound: list.p50,
        how: "p50 of one request at a time",
        errors: first.errors,
      });
      errors += first.errors;
      if (!list.deep) continue;
      const deep = await pageAt(url, headers, Math.min(999, Math.ceil(first.total / 50) - 1));
      errors += deep.errors;
      if (deep.token === undefined) continue;
      const at = await timePage(`${url}&page_token=${encodeURIComponent(deep.token)}`, headers, ctx.rounds * 20, deep.page);
      errors += at.errors;
      const page = `page ${(deep.page + 1).toLocaleString("en-US")}`;
      figures.push({
        label: `${engine}: ${list.label}, ${page}: p50`,
        value: at.p50,
        unit: "ms",
        command: `${shown}&page_token=<token of ${page}>`,
      });
      checks.push(
        {
          label: `${engine}: ${list.label}, ${page}`,
          measured: at.p50,
          unit: "ms",
          op: "≤",
          bound: list.p50,
          how: "p50 of one request at a time",
          errors: at.errors + deep.errors,
        },
        {
          label: `${engine}: ${list.label}, ${page} ÷ page 1`,
          measured: at.p50 / first.p50,
          unit: "×",
          op: "≤",
          bound: 1.5,
          how: `p50 of ${page} ÷ p50 of page 1`,
          errors: at.errors + deep.errors + first.errors,
        },
      );
    }
    errors += await timeCheck(ctx, engine, batch, server.base, headers, figures, checks);
  } finally {
    await server.stop();
  }
  return errors;
}

/**
 * The package versions of a check, as a bill of materials asks: CHECK_BATCH (ecosystem, package)
 * pairs drawn uniformly (seeded) from every distinct pair the archive's documents name, each at a
 * version (`N.0.5`) that some of its advisories' ranges hold and others do not. Drawn from the
 * documents instead, the batch would be the corpus's most advised packages, which no real image
 * is made of.
 */
function checkBatch(count: number): CheckBatch {
  const pairs = new Map<string, { ecosystem: string; name: string; version: string }>();
  for (let i = 0; i < count; i++) {
    const doc = osvDocument(i) as { affected: { package: { ecosystem: string; name: string } }[] };
    for (const { package: p } of doc.affected) {
      const key = `${p.ecosystem}\n${p.name}`;
      if (!pairs.has(key)) pairs.set(key, { ecosystem: p.ecosystem, name: p.name, version: `${1 + (pairs.size % 9)}.0.5` });
    }
  }
  const all = [...pairs.values()];
  // A partial Fisher-Yates shuffle with a fixed LCG: the same batch every run.
  let seed = 12_345;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
  const n = Math.min(CHECK_BATCH, all.length);
  for (let i = 0; i < n; i++) {
    const j = i + Math.floor(next() * (all.length - i));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  return { packages: all.slice(0, n), pairs: all.length };
}

/** The package versions of a check request, and how many distinct packages they were drawn from. */
interface CheckBatch {
  packages: { ecosystem: string; name: string; version: string }[];
  pairs: number;
}

/** Package versions per check request (issue 19, item 4: a batch of up to 1,000). */
const CHECK_BATCH = 1_000;
/** Untimed check requests before the timed ones. */
const CHECK_WARMUP = 5;
/** The check's target at 500,000 documents (issue 19, item 4). */
const CHECK_MS = 200;

/** Times `advisories:check` with a batch of CHECK_BATCH package versions; returns the failed requests. */
async function timeCheck(
  ctx: ScenarioContext,
  engine: string,
  { packages, pairs }: CheckBatch,
  origin: string,
  headers: Record<string, string>,
  figures: Figure[],
  checks: Check[],
): Promise<number> {
  const body = JSON.stringify({ packages });
  const times: number[] = [];
  let errors = 0;
  let found = 0;
  // The first CHECK_WARMUP requests are checked like the rest but not timed: a server's first
  // checks run code V8 has not optimised yet (bench/findings.md, item 4).
  for (let i = 0; i < CHECK_WARMUP + ctx.rounds * 4; i++) {
    const response = await request(`${origin}/vulnerabilities/v2beta1/advisories:check`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body,
    });
    if (i >= CHECK_WARMUP) times.push(response.ms);
    const answer = response.body as { results?: { advisories?: unknown[]; undecided?: unknown[] }[] };
    if (response.status !== 200 || answer.results?.length !== packages.length) errors++;
    found = (answer.results ?? []).reduce((n, r) => n + (r.advisories?.length ?? 0) + (r.undecided?.length ?? 0), 0);
  }
  const p50 = percentile(
    times.sort((a, b) => a - b),
    50,
  );
  const label =
    `${engine}: check of ${packages.length.toLocaleString("en-US")} package versions ` +
    `(of ${pairs.toLocaleString("en-US")} packages; ${found.toLocaleString("en-US")} advisories in the answer)`;
  figures.push({ label: `${label}: p50`, value: p50, unit: "ms", command: "POST …/advisories:check" });
  checks.push({ label, measured: p50, unit: "ms", op: "≤", bound: CHECK_MS, how: "p50 of one request at a time", errors });
  return errors;
}

/** The p50 of n requests of url (page `page`, 0-based), the totalCount they gave, and how many failed. */
async function timePage(
  url: string,
  headers: Record<string, string>,
  n: number,
  page: number,
): Promise<{ p50: number; total: number; errors: number }> {
  const times: number[] = [];
  let errors = 0;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const answer = await request(url, { headers });
    times.push(answer.ms);
    const body = answer.body as { advisories?: unknown[]; totalCount?: string };
    if (answer.status === 200) total = Number(body.totalCount ?? 0);
    if (answer.status !== 200 || (body.advisories?.length ?? 0) !== Math.max(0, Math.min(50, total - 50 * page))) errors++;
  }
  return {
    p50: percentile(
      times.sort((a, b) => a - b),
      50,
    ),
    total,
    errors,
  };
}

/** The page token of page `page` (0-based) or of the last page before it, following nextPageToken. */
async function pageAt(
  url: string,
  headers: Record<string, string>,
  page: number,
): Promise<{ token?: string; page: number; errors: number }> {
  let token: string | undefined;
  for (let p = 0; p < page; p++) {
    const answer = await request(token === undefined ? url : `${url}&page_token=${encodeURIComponent(token)}`, { headers });
    const body = answer.body as { nextPageToken?: string };
    if (answer.status !== 200) return { page: p, errors: 1 };
    if (body.nextPageToken === undefined) return token === undefined ? { page: p, errors: 0 } : { token, page: p, errors: 0 };
    token = body.nextPageToken;
  }
  return token === undefined ? { page: 0, errors: 0 } : { token, page, errors: 0 };
}

/**
 * One request and its JSON body, and its time in ms: from the request going out to the answer's
 * last byte in, as a client waits for it; the body is parsed after, so the harness's own parsing
 * is not in the figure. A request that fails in the network (the connection reset, say) answers
 * status 0, which every caller counts as an error: it fails its figure's target, and the scenario
 * goes on to time the rest. Its cause goes to the log.
 */
async function request(url: string, init: RequestInit): Promise<{ status: number; body: unknown; ms: number }> {
  const started = performance.now();
  try {
    const response = await fetch(url, init);
    const bytes = await response.arrayBuffer();
    const ms = performance.now() - started;
    return { status: response.status, body: JSON.parse(new TextDecoder().decode(bytes)), ms };
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
    process.stderr.write(`${new Date().toISOString()} ${init.method ?? "GET"} ${url.slice(0, 160)}: ${String(e)}${cause}\n`);
    return { status: 0, body: {}, ms: performance.now() - started };
  }
}
