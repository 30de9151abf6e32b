/**
 * S3: create groups with concurrent clients (wrk, 16 connections, distinct names) under one
 * organization, on SQLite and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bootstrapOrg, startArbor } from "../lib/arbor-process.js";
import { dropSchema } from "../lib/datasets.js";
import type { Scenario, ScenarioContext, ScenarioResult } from "../lib/results.js";
import { median } from "../lib/stats.js";
import { runWrk, wrkCommand, type WrkSpec } from "../lib/wrk.js";

const CONNECTIONS = 16;

/** S3's load: wrk POSTing groups of new names (`{prefix}-{n}`) into org with its owner's token. */
export function createLoad(base: string, org: string, token: string, prefix: string, seconds: number): WrkSpec {
  return {
    url: `${base}/iam/v2beta1/groups/${org}`,
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: `{"name":"${prefix}-{n}"}`,
    connections: CONNECTIONS,
    seconds,
  };
}

/** The scenario. */
export const s3Create: Scenario = { id: "S3", run };

async function run(ctx: ScenarioContext): Promise<ScenarioResult> {
  const sqlite = await measure(ctx, "SQLite");
  const postgres = await measure(ctx, "PostgreSQL");
  return {
    id: "S3",
    title: "create group, concurrent clients",
    method: [
      `Arbor in its own process (default log level), a fresh store each: SQLite in a new data dir, PostgreSQL in a schema of its own. ` +
        `wrk with ${CONNECTIONS} keep-alive connections POSTs \`{"name": …}\` to \`/iam/v2beta1/groups/{org}\` with the owner token, ` +
        `each request a new name (thread and counter in the name, the round as a prefix), so every request is a real insert with its ` +
        `audit record; non-200 answers count as errors. The organization grows over the rounds (to a few ten thousand children), as a ` +
        `real one would.`,
    ],
    figures: [
      { label: "SQLite creates/s", value: sqlite.rps, unit: "/s", command: sqlite.command },
      { label: "SQLite create p99", value: sqlite.p99, unit: "ms", command: sqlite.command },
      { label: "PostgreSQL creates/s", value: postgres.rps, unit: "/s", command: postgres.command },
      { label: "PostgreSQL create p99", value: postgres.p99, unit: "ms", command: postgres.command },
      { label: "errors (all rounds)", value: sqlite.errors + postgres.errors, unit: "", command: sqlite.command },
    ],
    checks: [
      { label: "SQLite creates/s", measured: sqlite.rps, unit: "/s", op: "≥", bound: 2_000, how: `${CONNECTIONS} connections` },
      { label: "PostgreSQL creates/s", measured: postgres.rps, unit: "/s", op: "≥", bound: 1_000, how: `${CONNECTIONS} connections` },
    ],
    charts: [
      {
        file: "s3-create",
        title: "S3: create group, per second (median)",
        unit: "/s",
        bars: [
          { label: "SQLite", value: sqlite.rps },
          { label: "PostgreSQL", value: postgres.rps },
        ],
      },
    ],
    errors: sqlite.errors + postgres.errors,
    notes: sqlite.errors + postgres.errors > 0 ? [`${sqlite.errors + postgres.errors} creates failed.`] : [],
  };
}

async function measure(
  ctx: ScenarioContext,
  engine: "SQLite" | "PostgreSQL",
): Promise<{ rps: number; p99: number; errors: number; command: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-bench-s3-"));
  const schema = `bench_s3_${process.pid}`;
  const env: Record<string, string> = {
    ARBOR_DATA_DIR: dataDir,
    ...(engine === "PostgreSQL" && { ARBOR_DATABASE_URL: ctx.databaseUrl, ARBOR_DATABASE_SCHEMA: schema }),
  };
  try {
    const server = await startArbor({ env });
    try {
      const { org, token } = await bootstrapOrg(server.env, "bench-s3");
      const spec = (prefix: string, seconds: number) => createLoad(server.base, org, token, prefix, seconds);
      await runWrk(spec("warm", 1));
      const runs = [];
      for (let round = 0; round < ctx.rounds; round++) {
        const r = await runWrk(spec(`r${round}`, ctx.seconds));
        runs.push(r);
        ctx.log(`S3 ${engine} round ${round + 1}: ${r.rps.toFixed(0)} creates/s, p99 ${r.p99.toFixed(2)} ms, errors ${r.errors}`);
      }
      return {
        rps: median(runs.map((r) => r.rps)),
        p99: median(runs.map((r) => r.p99)),
        errors: runs.reduce((n, r) => n + r.errors, 0),
        command: wrkCommand(spec("r{round}", ctx.seconds)),
      };
    } finally {
      await server.stop();
    }
  } finally {
    if (engine === "PostgreSQL") await dropSchema(ctx.databaseUrl, schema);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
