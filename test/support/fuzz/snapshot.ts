/**
 * Every row of every table of a store, read beside the server (its own connection), so a test
 * can tell that a batch of refused requests changed no data.
 */
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import type { StoreOptions } from "../../../src/store/create-store.js";
import { withClient } from "../engines.js";

/** Table name to its rows, each row as JSON, sorted: equal snapshots mean equal data. */
export type Snapshot = Record<string, string[]>;

/** The rows of every table of the store at options (SQLite when there is no database URL). */
export async function snapshotStore(options: StoreOptions): Promise<Snapshot> {
  if (options.databaseUrl === undefined || options.databaseUrl === "") return snapshotSqlite(options.dataDir);
  const schema = options.schema ?? "public";
  return withClient(options.databaseUrl, async (client) => {
    const tables = await client.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = $1 and table_type = 'BASE TABLE' order by 1",
      [schema],
    );
    const out: Snapshot = {};
    for (const { name } of tables.rows) {
      const { rows } = await client.query(`select * from "${schema}"."${name}"`);
      out[name] = rows.map((r) => JSON.stringify(r)).sort();
    }
    return out;
  });
}

function snapshotSqlite(dataDir: string): Snapshot {
  const db = new BetterSqlite3(join(dataDir, "arbor.db"), { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by 1").all() as {
      name: string;
    }[];
    const out: Snapshot = {};
    for (const { name } of tables) {
      const rows = db.prepare(`select * from "${name}"`).all();
      out[name] = rows.map((r) => JSON.stringify(r)).sort();
    }
    return out;
  } finally {
    db.close();
  }
}

/** The differences between two snapshots, by table, empty when they are equal. */
export function diffSnapshots(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const a = new Set(before[table] ?? []);
    const b = new Set(after[table] ?? []);
    const gone = [...a].filter((r) => !b.has(r));
    const added = [...b].filter((r) => !a.has(r));
    if (gone.length > 0 || added.length > 0)
      out.push(
        `${table}: -${gone.length} +${added.length} ${[...gone.map((r) => `- ${r}`), ...added.map((r) => `+ ${r}`)].slice(0, 4).join(" ")}`,
      );
  }
  return out;
}
