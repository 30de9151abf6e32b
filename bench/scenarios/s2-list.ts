/**
 * S2: a list page of 50 with totalCount, `uidp.descendants_of` an organization of 100,000
 * groups on SQLite and 1,000,000 on PostgreSQL (generated straight into the store), page 1 and
 * the page reached by following nextPageToken 2,000 times.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { api, arborEnv, bootstrapOrg, freePort, startArbor } from "../lib/arbor-process.js";
import { dropSchema, insertGroups, type DatasetTarget } from "../lib/datasets.js";
import { sized } from "../lib/options.js";
import type { Check, Chart, Figure, Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runWrk, wrkCommand } from "../lib/wrk.js";

/** The scenario. */
export const s2List: Scenario = { id: "S2", run };

interface EngineRun {
  engine: "SQLite" | "PostgreSQL";
  groups: number;
  page: number;
  p50First: number;
  p50Deep: number;
  ratio: number;
  total: number;
  /** Failed requests (non-2xx answers and socket errors under wrk), warm-up included. */
  errors: number;
  commandFirst: string;
  commandDeep: string;
}

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const sqlite = await measureEngine(ctx, "SQLite", sized(process.env, "BENCH_S2_SQLITE_GROUPS", 100_000, 5_000));
  const postgres = await measureEngine(ctx, "PostgreSQL", sized(process.env, "BENCH_S2_POSTGRES_GROUPS", 1_000_000, 20_000));
  const figures: Figure[] = [];
  const checks: Check[] = [];
  const bars: Chart["bars"] = [];
  for (const [r, bound] of [
    [sqlite, 5],
    [postgres, 15],
  ] as const) {
    figures.push(
      {
        label: `${r.engine}, ${r.groups.toLocaleString("en-US")} groups: page 1 p50`,
        value: r.p50First,
        unit: "ms",
        command: r.commandFirst,
      },
      {
        label: `${r.engine}: page ${r.page.toLocaleString("en-US")} (by cursor) p50`,
        value: r.p50Deep,
        unit: "ms",
        command: r.commandDeep,
      },
      { label: `${r.engine}: totalCount returned`, value: r.total, unit: "", command: r.commandFirst },
      { label: `${r.engine}: errors (all rounds)`, value: r.errors, unit: "", command: r.commandFirst },
    );
    checks.push(
      {
        label: `${r.engine} page 1 p50`,
        measured: r.p50First,
        unit: "ms",
        op: "≤",
        bound,
        how: `${r.groups.toLocaleString("en-US")} groups, one connection`,
      },
      {
        label: `${r.engine} page ${r.page.toLocaleString("en-US")} vs page 1`,
        measured: r.ratio,
        unit: "×",
        op: "≤",
        bound: 1.2,
        how: "p50 deep ÷ p50 first, per round",
      },
    );
    bars.push({ label: `${r.engine} page 1`, value: r.p50First }, { label: `${r.engine} page ${r.page}`, value: r.p50Deep });
  }
  return {
    id: "S2",
    title: "list a page of 50 with totalCount, descendants of a large organization",
    method: [
      "The groups are generated straight into the store (one INSERT … SELECT over a series, after `arbor admin bootstrap` created the " +
        "schema and the organization), then the server starts on that data: SQLite in a fresh data dir, PostgreSQL in a schema of its " +
        "own (`ARBOR_DATABASE_SCHEMA`, dropped afterwards). Default log level.",
      "The request is `GET /iam/v2beta1/groups?uidp.descendants_of={org}&page_size=50` with the owner token; every page carries " +
        "totalCount. The deep page is reached by following nextPageToken from page 1 (2,000 pages in a full run; fewer in quick mode, " +
        "where the organization is small). Latency is measured with one wrk connection (no queueing: the figure is the service time of " +
        "one request), page 1 and the deep page alternating within each round; the ratio is taken per round. A non-2xx answer or a " +
        "socket error of any request, warm-up included, fails both engines' targets.",
    ],
    figures,
    checks,
    errors: sqlite.errors + postgres.errors,
    charts: [{ file: "s2-list-p50", title: "S2: list page of 50 + totalCount, p50 (ms)", unit: "ms", bars }],
    notes: [],
  };
}

async function measureEngine(ctx: ScenarioContext, engine: EngineRun["engine"], groups: number): Promise<EngineRun> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s2-"));
  const schema = `bench_s2_${process.pid}`;
  const target: DatasetTarget = engine === "SQLite" ? { engine: "sqlite", dataDir } : { engine: "postgres", url: ctx.databaseUrl, schema };
  const settings: Record<string, string> = {
    ARBOR_DATA_DIR: dataDir,
    ...(engine === "PostgreSQL" && { ARBOR_DATABASE_URL: ctx.databaseUrl, ARBOR_DATABASE_SCHEMA: schema }),
  };
  try {
    const port = await freePort();
    const { org, token } = await bootstrapOrg(arborEnv(port, settings), "bench-s2");
    const t0 = performance.now();
    await insertGroups(target, org, groups);
    ctx.log(`S2 ${engine}: generated ${groups} groups in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const server = await startArbor({ env: settings, port });
    try {
      const first = `/iam/v2beta1/groups?uidp.descendants_of=${org}&page_size=50`;
      const page = Math.min(2_000, Math.floor(groups / 50));
      let deep = first;
      let total = NaN;
      for (let p = 1; p < page; p++) {
        const res = await api<{ nextPageToken?: string; totalCount?: string | number }>(server.base, token, "GET", deep);
        if (p === 1) total = Number(res.totalCount);
        if (!res.nextPageToken) throw new Error(`page ${p} of ${engine} had no nextPageToken`);
        deep = `${first}&page_token=${encodeURIComponent(res.nextPageToken)}`;
      }
      const spec = (path: string) => ({
        url: `${server.base}${path}`,
        headers: { authorization: `Bearer ${token}` },
        connections: 1,
        threads: 1,
        seconds: ctx.seconds,
      });
      let errors = (await runWrk({ ...spec(first), seconds: 1 })).errors;
      const firsts: number[] = [];
      const deeps: number[] = [];
      for (let round = 0; round < ctx.rounds; round++) {
        const [f, d] = [await runWrk(spec(first)), await runWrk(spec(deep))];
        firsts.push(f.p50);
        deeps.push(d.p50);
        errors += f.errors + d.errors;
        ctx.log(
          `S2 ${engine} round ${round + 1}: page 1 p50 ${f.p50.toFixed(2)} ms, page ${page} p50 ${d.p50.toFixed(2)} ms, errors ` +
            `${f.errors + d.errors}`,
        );
      }
      return {
        engine,
        groups,
        page,
        total,
        errors,
        p50First: median(firsts),
        p50Deep: median(deeps),
        ratio: median(deeps.map((d, i) => d / (firsts[i] as number))),
        commandFirst: wrkCommand(spec(first)),
        commandDeep: wrkCommand(spec(`${first}&page_token=<token of page ${page}>`)),
      };
    } finally {
      await server.stop();
    }
  } finally {
    if (engine === "PostgreSQL") await dropSchema(ctx.databaseUrl, schema);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
