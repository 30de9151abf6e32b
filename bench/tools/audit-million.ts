/**
 * The audit log at scale (issue 22, item 4; not part of `npm run bench`): loads AUDIT_EVENTS
 * events (default 1,000,000) into a fresh store through batched SQL inserts (the 0014 triggers
 * keep the counts as they would for the API's own inserts), folds the counts once, then times
 * 50 pages of 50 with their totalCount for each filter, as the list service runs them (page and
 * count at once), as the owner of the organization sees them.
 *
 *   node dist/bench/tools/audit-million.js            # SQLite in a temporary directory
 *   AUDIT_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test node dist/bench/tools/audit-million.js
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AuditFilter } from "../../src/domain/audit.js";
import { createSecretBox } from "../../src/domain/secret-box.js";
import { Kysely, sql } from "kysely";
import { createStore } from "../../src/store/create-store.js";
import type { Database } from "../../src/store/database.js";
import { engineSetup } from "../../src/store/dialect.js";

const N = Number(process.env.AUDIT_EVENTS ?? 1_000_000);
const url = process.env.AUDIT_DATABASE_URL;
const hex = (n: number, width: number) => n.toString(16).padStart(width, "0");
const ORG = hex(0xa0d17, 40);
// 100 groups: 10 teams under the organization, 9 projects under each.
const TEAMS = Array.from({ length: 10 }, (_, i) => `${ORG}/${hex(i + 1, 16)}`);
const GROUPS = [ORG, ...TEAMS, ...TEAMS.flatMap((t) => Array.from({ length: 9 }, (_, j) => `${t}/${hex(j + 1, 16)}`))];
const METHODS = Array.from({ length: 20 }, (_, i) => `arbor.iam.v2beta1.Service${i % 5}/Method${i}`);
const actor = (i: number) => `${ORG}/${hex(0x1000000 + (i % 200), 16)}`;
const resource = (i: number) => `${GROUPS[i % GROUPS.length]}/${hex(0x2000000 + (i % 50_000), 16)}`;

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "arbor-audit-bench-"));
  const schema = url === undefined ? undefined : `audit_bench_${process.pid}`;
  const options = { dataDir, databaseUrl: url, schema, secrets: createSecretBox([Buffer.alloc(32, 7)]), queryTimeoutMs: 600_000 };
  const store = await createStore(options);
  // The load goes beside the store, as raw SQL would.
  const db = new Kysely<Database>({ dialect: engineSetup(options).dialect });
  try {
    let started = performance.now();
    const BATCH = 1_000;
    for (let base = 0; base < N; base += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, N - base) }, (_, k) => {
        const i = base + k;
        const group = GROUPS[(i * 7) % GROUPS.length] ?? ORG;
        return {
          uid: `${group}/${hex(i, 16)}`, group_uid: group, create_time: 1_700_000_000_000 + i * 1000, actor_uid: actor(i), actor: "{}",
          method: METHODS[i % METHODS.length] ?? "", action: "update", resource_type: "arbor.iam.v2beta1.Group", resource_uid: resource(i),
          before: null, after: '{"description":"a change"}',
        };
      });
      await db.transaction().execute((tx) => tx.insertInto("audit_events").values(rows).execute());
    }
    const loadS = (performance.now() - started) / 1000;
    started = performance.now();
    await store.audit.foldCounts();
    const foldS = (performance.now() - started) / 1000;
    process.stdout.write(`${`${store.engine}: ${N} events loaded in ${loadS.toFixed(0)} s, counts folded in ${foldS.toFixed(1)} s`}\n`);
    const owner = { visibleUnder: [ORG] };
    const filters: [string, AuditFilter][] = [
      ["unfiltered", { uidp: {}, ...owner }],
      ["method", { uidp: {}, method: METHODS[3] ?? "", ...owner }],
      ["actor_uid", { uidp: {}, actorUid: actor(17), ...owner }],
      ["resource_uid", { uidp: {}, resourceUid: resource(1234), ...owner }],
      ["descendants_of a team (10 % of events)", { uidp: { descendantsOf: TEAMS[2] ?? "" }, ...owner }],
      ["descendants_of a project (1 %)", { uidp: { descendantsOf: `${TEAMS[2]}/${hex(3, 16)}` }, ...owner }],
      ["children_of the organization", { uidp: { childrenOf: ORG }, ...owner }],
      ["method and actor_uid (rows counted)", { uidp: {}, method: METHODS[3] ?? "", actorUid: actor(3), ...owner }],
    ];
    const order = [{ field: "create_time", desc: true }, { field: "uid", desc: true }];
    process.stdout.write(`${"| filter | totalCount | p50 ms | p90 ms |\n|---|---:|---:|---:|"}\n`);
    for (const [name, filter] of filters) {
      const times: number[] = [];
      let total = 0;
      let after: (string | number)[] | undefined;
      for (let page = 0; page < 50; page++) {
        const t0 = performance.now();
        const [rows, count] = await Promise.all([store.audit.list(filter, { order, ...(after && { after }), offset: 0, limit: 51 }), store.audit.count(filter)]);
        times.push(performance.now() - t0);
        total = count;
        const last = rows[49];
        after = last === undefined ? undefined : [last.createTime, last.uid];
      }
      times.sort((a, b) => a - b);
      process.stdout.write(`${`| ${name} | ${total.toLocaleString("en")} | ${(times[24] ?? 0).toFixed(2)} | ${(times[44] ?? 0).toFixed(2)} |`}\n`);
    }
  } finally {
    await store.close();
    if (schema !== undefined) await sql`drop schema ${sql.id(schema)} cascade`.execute(db).catch(() => undefined);
    await db.destroy();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
