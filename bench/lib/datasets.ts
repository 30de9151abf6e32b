/**
 * Large datasets, generated: groups are inserted straight into the store with one SQL statement
 * (a series turned into rows), not through the API, which would take longer than the benchmark.
 * The schema comes from Arbor itself (`arbor admin bootstrap` migrates), so the rows are
 * exactly what the server reads, and the store's triggers fire on the insert as on any other
 * (the descendant counts of migration 0008 included).
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import pg from "pg";

/** Where the generated rows go. */
export type DatasetTarget = { engine: "sqlite"; dataDir: string } | { engine: "postgres"; url: string; schema: string };

/**
 * Inserts `count` child groups under org, named g-0000001 … in uid order, with uids
 * org/000…1 …. On PostgreSQL it refreshes the planner's statistics, as autovacuum would after
 * such a load; on SQLite the server keeps the groups' statistics itself (at its start, and at its
 * look every minute, src/store/create-store.ts STATISTICS_INTERVAL_MS), as it does for its users.
 */
export async function insertGroups(target: DatasetTarget, org: string, count: number, now = Date.now()): Promise<void> {
  if (target.engine === "sqlite") {
    const db = new Database(join(target.dataDir, "arbor.db"));
    try {
      db.pragma("busy_timeout = 10000");
      db.prepare(
        `with recursive s(i) as (select 1 union all select i + 1 from s where i < ?)
         insert into groups (uid, parent_uid, name, description, create_time, update_time)
         select ? || '/' || printf('%016x', i), ?, 'g-' || printf('%07d', i), '', ?, ? from s`,
      ).run(count, org, org, now, now);
    } finally {
      db.close();
    }
    return;
  }
  await withPg(target.url, target.schema, async (client) => {
    await client.query(
      `insert into groups (uid, parent_uid, name, description, create_time, update_time)
       select $1 || '/' || lpad(to_hex(i), 16, '0'), $1, 'g-' || lpad(i::text, 7, '0'), '', $2, $2 from generate_series(1, $3::int) i`,
      [org, now, count],
    );
    await client.query("analyze");
  });
}

/**
 * Refreshes PostgreSQL's planner statistics of the whole dataset, as autovacuum would after a bulk
 * load: after rows added since insertGroups (S9's bindings), stale statistics would have the
 * planner take a table for nearly empty. With vacuum, the tables are vacuumed too, which sets the
 * visibility map an index-only scan reads. (SQLite's the server keeps itself.)
 */
export async function analyze(
  target: Extract<DatasetTarget, { engine: "postgres" }>,
  { vacuum = false }: { vacuum?: boolean } = {},
): Promise<void> {
  await withPg(target.url, target.schema, async (client) => {
    if (!vacuum) return void (await client.query("analyze"));
    // The dataset's own tables: VACUUM with no table names would vacuum every table of the database.
    const { rows } = await client.query<{ name: string }>("select tablename as name from pg_tables where schemaname = $1", [target.schema]);
    await client.query(`vacuum analyze ${rows.map((r) => `"${target.schema}"."${r.name}"`).join(", ")}`);
  });
}

/** Drops a PostgreSQL schema and everything in it. */
export async function dropSchema(url: string, schema: string): Promise<void> {
  await withPg(url, "public", (client) => client.query(`drop schema if exists "${schema}" cascade`).then(() => undefined));
}

async function withPg(url: string, schema: string, fn: (client: pg.Client) => Promise<void>): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`not a schema name: ${schema}`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`set search_path to "${schema}"`);
    await fn(client);
  } finally {
    await client.end();
  }
}
