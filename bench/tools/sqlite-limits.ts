/**
 * What a bound LIMIT costs a SQLite statement run through better-sqlite3, and what writing it into
 * the text saves (src/store/sqlite-limits.ts; bench/findings.md, "Statements prepared again on
 * every run"). A fresh SQLite store made by Arbor's own migrations (its tables as they leave
 * them: what a prepare costs does not depend on the rows); each statement, as the stores write
 * it, run as the driver ran it before (its LIMIT bound, the parameters bound anew on every run,
 * after which better-sqlite3 clears them) and as it runs it now (inlineLimits), alternated for
 * 5 rounds of 30,000 runs after a warm-up; the medians printed, with the same statement bound
 * once (`bind()`, never cleared, so never prepared again) beside them for what a run costs
 * without a prepare.
 * Usage: node dist/bench/tools/sqlite-limits.js
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { createStore } from "../../src/store/create-store.js";
import { inlineLimits } from "../../src/store/sqlite-limits.js";
import { median } from "../lib/stats.js";

const RUNS = 30_000;
const ROUNDS = 5;

/** The statements, as Kysely writes them for the stores, with values of a first page. */
const STATEMENTS: { label: string; sql: string; parameters: unknown[] }[] = [
  {
    label: "the outbox's read for a subscription with its descendants",
    sql:
      'select * from "event_outbox" where (position > ? and ("group_uid" >= ? and "group_uid" < ?) and 1 = 1) ' +
      'order by "position" limit ?',
    parameters: [0, "a", "b", 100],
  },
  {
    label: "a page of an organization's audit events",
    sql: 'select * from "audit_events" where ("uid" > ? and "uid" < ?) order by "create_time" desc, "uid" desc limit ? offset ?',
    parameters: ["a", "z", 51, 0],
  },
  {
    label: "a page of advisories by id",
    sql: 'select * from "advisories" where 1 = 1 and ("uid") > (?) order by "uid" asc limit ? offset ?',
    parameters: ["", 51, 0],
  },
  {
    label: "the outbox's read for a subscription to one group (an equality beside the ORDER BY)",
    sql: 'select * from "event_outbox" where (position > ? and group_uid = ? and 1 = 1) order by "position" limit ?',
    parameters: [0, "a", 100],
  },
  {
    label: "a page of roles (an equality beside the ORDER BY)",
    sql: 'select * from "roles" where "parent_uid" = ? order by "name" asc, "uid" asc limit ? offset ?',
    parameters: ["x", 51, 0],
  },
];

function time(run: () => unknown): number {
  for (let i = 0; i < RUNS / 10; i++) run();
  const start = process.hrtime.bigint();
  for (let i = 0; i < RUNS; i++) run();
  return Number(process.hrtime.bigint() - start) / RUNS / 1000;
}

const dir = mkdtempSync(join(tmpdir(), "arbor-sqlite-limits-"));
try {
  await (await createStore({ dataDir: dir })).close();
  const db = new BetterSqlite3(join(dir, "arbor.db"), { readonly: true });
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`| statement (${ROUNDS} rounds of ${RUNS.toLocaleString("en")} runs, medians) | LIMIT bound | LIMIT written in | bound once |`);
  out("|---|---:|---:|---:|");
  for (const { label, sql, parameters } of STATEMENTS) {
    const inlined = inlineLimits(sql, parameters);
    const bound = db.prepare(sql);
    const written = db.prepare(inlined.sql);
    const once = db.prepare(sql).bind(...parameters);
    const samples: [number[], number[], number[]] = [[], [], []];
    for (let round = 0; round < ROUNDS; round++) {
      samples[0].push(time(() => bound.all(parameters)));
      samples[1].push(time(() => written.all(inlined.parameters)));
      samples[2].push(time(() => once.all()));
    }
    out(`| ${label} | ${samples.map((s) => `${median(s).toFixed(2)} µs`).join(" | ")} |`);
  }
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
