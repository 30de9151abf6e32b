/**
 * VISIBILITY (docs/benchmarks.md): a page and a count of groups and of repos under n scopes, with
 * the filter as index ranges and as membership (src/store/hierarchy-filter.ts), on one engine.
 * A fresh store of 5,001 groups (an organization and its children) and 10 repos; scope i is
 * child i. Best of 5 per figure, after one warm-up.
 * Usage: node dist/bench/tools/visibility-forms.js sqlite|postgres [postgres URL]
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, sql, type Expression, type SqlBool } from "kysely";
import pg from "pg";
import { createSecretBox } from "../../src/domain/secret-box.js";
import { createStore, type StoreOptions } from "../../src/store/create-store.js";
import { engineSetup } from "../../src/store/dialect.js";
import { byMembership, inRanges } from "../../src/store/hierarchy-filter.js";

const GROUPS = 5_000;
const SCOPES = [2, 4, 8, 16, 64, 400, 5_000];
const T = 1_700_000_000_000;
const ORG = "a".repeat(40);
const child = (n: number) => `${ORG}/${n.toString(16).padStart(16, "0")}`;

async function options(engine: string, url: string): Promise<StoreOptions> {
  if (engine !== "postgres") return { dataDir: mkdtempSync(join(tmpdir(), "arbor-visibility-")) };
  const schema = `visibility_${Date.now()}`;
  const client = new pg.Client(url);
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  return { dataDir: "unused", databaseUrl: url, schema };
}

async function best(run: () => Promise<unknown>): Promise<number> {
  await run();
  let fastest = Infinity;
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    await run();
    fastest = Math.min(fastest, performance.now() - start);
  }
  return fastest;
}

const engine = process.argv[2] ?? "sqlite";
const opts = await options(engine, process.argv[3] ?? "postgres://postgres@127.0.0.1:5432/test");
const store = await createStore({ ...opts, secrets: createSecretBox([Buffer.alloc(32, 7)]) });
await store.groups.insert({ uid: ORG, parentUid: null, name: "org", description: "", createTime: T, updateTime: T });
for (let s = 0; s < GROUPS; s += 500) {
  await store.atomically(async (tx) => {
    for (let n = s; n < s + 500; n++)
      await tx.groups.insert({ uid: child(n), parentUid: ORG, name: `g${n}`, description: "", createTime: T, updateTime: T });
  });
}
for (let n = 0; n < 10; n++) {
  await store.repos.insert({
    uid: `${child(n * 7)}/${"1".repeat(16)}`,
    parentUid: child(n * 7),
    name: "r",
    description: "",
    createTime: T,
    updateTime: T,
  });
}
const db = new Kysely<Record<string, { uid: string }>>({ dialect: engineSetup(opts).dialect });
const forms = { ranges: inRanges, membership: byMembership };
process.stdout.write("| engine | table | scopes | form | page of 6 (ms) | count (ms) |\n|---|---|---:|---|---:|---:|" + "\n");
for (const n of SCOPES) {
  const tops = Array.from({ length: n }, (_, i) => child(i));
  for (const table of ["groups", "repos"]) {
    for (const [name, form] of Object.entries(forms)) {
      // 5,000 ranges: SQLite refuses the statement (expression tree too deep), PostgreSQL runs
      // past pg's 10 s query timeout on the groups count: the failure issue 22 reports.
      if (name === "ranges" && n > 1_000) continue;
      const where: Expression<SqlBool> = form("uid", tops);
      const page = await best(() => sql`select uid from ${sql.table(table)} where ${where} order by uid limit 6`.execute(db));
      const count = await best(() => sql`select count(*) from ${sql.table(table)} where ${where}`.execute(db));
      process.stdout.write(`| ${engine} | ${table} | ${n} | ${name} | ${page.toFixed(2)} | ${count.toFixed(2)} |` + "\n");
    }
  }
}
await db.destroy();
await store.close();
