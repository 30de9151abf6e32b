/**
 * The audit log at scale (issue 22, item 4; not part of `npm run bench`): loads AUDIT_EVENTS
 * events (default 1,000,000) into a fresh store through multi-row SQL inserts, 50,000 to a
 * transaction (the 0014 triggers keep the counts as they would for the API's own inserts), folds
 * the counts once and runs ANALYZE (as PostgreSQL's autovacuum would after such a load), prints
 * each filter's first-page plan, then times 50 consecutive pages of 50 with their totalCount for
 * each filter, as the list service runs them (page and count at once).
 *
 *   node dist/bench/tools/audit-million.js            # SQLite in a temporary directory
 *   AUDIT_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node dist/bench/tools/audit-million.js
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, sql, type CompiledQuery } from "kysely";
import type { AuditFilter } from "../../src/domain/audit.js";
import { createSecretBox } from "../../src/domain/secret-box.js";
import { createAuditStore } from "../../src/store/audit-store.js";
import { createStore } from "../../src/store/create-store.js";
import type { AuditEventsTable, Database } from "../../src/store/tables.js";
import { engineSetup } from "../../src/store/dialect.js";

const N = Number(process.env.AUDIT_EVENTS ?? 1_000_000);
const url = process.env.AUDIT_DATABASE_URL;
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
const ORG = hex(0xa0d17, 40);
// 100 groups: 10 teams under the organization, 9 projects under each.
const TEAMS = Array.from({ length: 10 }, (_, i) => `${ORG}/${hex(i + 1, 16)}`);
const GROUPS = [ORG, ...TEAMS, ...TEAMS.flatMap((t) => Array.from({ length: 9 }, (_, j) => `${t}/${hex(j + 1, 16)}`))];
const PROJECTS = GROUPS.slice(1 + TEAMS.length);
const EMPTY = Array.from({ length: 30 }, (_, i) => `${ORG}/${hex(0x100 + i, 16)}`);
const METHODS = Array.from({ length: 20 }, (_, i) => `arbor.iam.v2beta1.Service${i % 5}/Method${i}`);
const actor = (i: number) => `${ORG}/${hex(0x1000000 + (i % 200), 16)}`;
const resource = (i: number) => `${GROUPS[i % GROUPS.length]}/${hex(0x2000000 + (i % 50_000), 16)}`;
// SQLite binds at most 32,766 values to a statement: 2,500 rows of 11 columns.
const ROWS_PER_INSERT = 2_500;
const ROWS_PER_TRANSACTION = 50_000;

function row(i: number): AuditEventsTable {
  const group = GROUPS[(i * 7) % GROUPS.length] ?? ORG;
  return {
    uid: `${group}/${hex(i, 16)}`,
    group_uid: group,
    create_time: 1_700_000_000_000 + i * 1000,
    actor_uid: actor(i),
    actor: "{}",
    method: METHODS[i % METHODS.length] ?? "",
    action: "update",
    resource_type: "arbor.iam.v2beta1.Group",
    resource_uid: resource(i),
    before: null,
    after: '{"description":"a change"}',
  };
}

const owner = { visibleUnder: [ORG] };
const FILTERS: [string, AuditFilter][] = [
  ["unfiltered", { uidp: {}, ...owner }],
  ["method", { uidp: {}, method: METHODS[3] ?? "", ...owner }],
  ["actor_uid", { uidp: {}, actorUid: actor(17), ...owner }],
  ["resource_uid", { uidp: {}, resourceUid: resource(1234), ...owner }],
  ["descendants_of a team (10 % of events)", { uidp: { descendantsOf: TEAMS[2] ?? "" }, ...owner }],
  ["descendants_of a project (1 %)", { uidp: { descendantsOf: `${TEAMS[2]}/${hex(3, 16)}` }, ...owner }],
  ["children_of the organization", { uidp: { childrenOf: ORG }, ...owner }],
  ["method and actor_uid (rows counted)", { uidp: {}, method: METHODS[3] ?? "", actorUid: actor(3), ...owner }],
  ["a team's owner, unfiltered (sees 10 %)", { uidp: {}, visibleUnder: [TEAMS[2] ?? ""] }],
  // Callers bound at many groups (issue 22): their counts sum the kept counts through a set of
  // subtrees, their pages walk the log testing membership or gather the subtrees' ranges.
  ["an auditor bound at the 90 projects, unfiltered (sees 89 %)", { uidp: {}, visibleUnder: PROJECTS }],
  ["an auditor bound at the 90 projects, method", { uidp: {}, method: METHODS[3] ?? "", visibleUnder: PROJECTS }],
  [
    "an auditor bound at 20 projects, descendants_of the organization (sees 20 %)",
    { uidp: { descendantsOf: ORG }, visibleUnder: PROJECTS.slice(0, 20) },
  ],
  ["a caller bound at a project and 30 groups without events (sees 1 %)", { uidp: {}, visibleUnder: [PROJECTS[0] ?? "", ...EMPTY] }],
];
const ORDER = [
  { field: "create_time", desc: true },
  { field: "uid", desc: true },
];

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "arbor-audit-bench-"));
  const schema = url === undefined ? undefined : `audit_bench_${process.pid}`;
  const options = { dataDir, databaseUrl: url, schema, secrets: createSecretBox([Buffer.alloc(32, 7)]), queryTimeoutMs: 600_000 };
  const store = await createStore(options);
  // The load and the timed statements go beside the store, so the bench can read their SQL.
  let last: CompiledQuery | undefined;
  const db = new Kysely<Database>({ dialect: engineSetup(options).dialect, log: (e) => void (last = e.query) });
  const audit = createAuditStore(db, store.engine);
  const out = (line: string) => process.stdout.write(`${line}\n`);
  try {
    let started = performance.now();
    for (let base = 0; base < N; base += ROWS_PER_TRANSACTION) {
      await db.transaction().execute(async (tx) => {
        for (let i = base; i < Math.min(N, base + ROWS_PER_TRANSACTION); i += ROWS_PER_INSERT) {
          const rows = Array.from({ length: Math.min(ROWS_PER_INSERT, N - i) }, (_, k) => row(i + k));
          await tx.insertInto("audit_events").values(rows).execute();
        }
      });
    }
    const loadS = (performance.now() - started) / 1000;
    started = performance.now();
    await audit.foldCounts();
    await sql`analyze`.execute(db);
    out(
      `${store.engine}: ${N} events loaded in ${loadS.toFixed(0)} s, counts folded and ANALYZE in ` +
        `${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
    for (const [name, filter] of FILTERS)
      out(
        `plan, ${name}: ${await planOf(
          db,
          store.engine,
          () => audit.list(filter, { order: ORDER, offset: 0, limit: 51 }),
          () => last,
        )}`,
      );
    out("| filter | totalCount | p50 ms | p90 ms |\n|---|---:|---:|---:|");
    for (const [name, filter] of FILTERS) {
      const times: number[] = [];
      let total = 0;
      let after: (string | number)[] | undefined;
      for (let page = 0; page < 50; page++) {
        const t0 = performance.now();
        const [rows, count] = await Promise.all([
          audit.list(filter, { order: ORDER, ...(after && { after }), offset: 0, limit: 51 }),
          audit.count(filter),
        ]);
        times.push(performance.now() - t0);
        total = count;
        const lastRow = rows[49];
        after = lastRow === undefined ? undefined : [lastRow.createTime, lastRow.uid];
      }
      times.sort((a, b) => a - b);
      out(`| ${name} | ${total.toLocaleString("en")} | ${(times[24] ?? 0).toFixed(2)} | ${(times[44] ?? 0).toFixed(2)} |`);
    }
  } finally {
    await store.close();
    if (schema !== undefined) await sql`drop schema ${sql.id(schema)} cascade`.execute(db).catch(() => undefined);
    await db.destroy();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** The plan the engine chooses for the statement run() sends: its access path, in one line. */
async function planOf(
  db: Kysely<Database>,
  engine: string,
  run: () => Promise<unknown>,
  sent: () => CompiledQuery | undefined,
): Promise<string> {
  await run();
  const query = sent();
  if (query === undefined) return "?";
  const params = [...query.parameters];
  const literal = (v: unknown) => (typeof v === "number" ? String(v) : `'${String(v).replaceAll("'", "''")}'`);
  const text =
    engine === "postgres"
      ? query.sql.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1]))
      : query.sql.replace(/\?/g, () => literal(params.shift()));
  const { rows } = await sql<Record<string, string>>`${sql.raw(`explain ${engine === "postgres" ? "" : "query plan "}${text}`)}`.execute(
    db,
  );
  return rows
    .map((r) => (r["QUERY PLAN"] ?? r.detail ?? "").trim().replace(/\s+\(cost=[^)]*\)/, ""))
    .filter((l) => !l.startsWith("Filter") && !l.startsWith("Index Cond"))
    .join(" / ");
}

await main();
