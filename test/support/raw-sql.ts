/**
 * Reading a test store's tables beside it, for the columns a store keeps but never returns.
 */
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { withClient, type EngineContext } from "./engines.js";

/** The rows a read-only query (values written into its text) finds in the file's store. */
export async function rawRows(t: EngineContext, query: string): Promise<Record<string, unknown>[]> {
  const options = t.options();
  if (t.engine === "sqlite") {
    const db = new BetterSqlite3(join(options.dataDir, "arbor.db"), { readonly: true });
    try {
      return db.prepare(query).all() as Record<string, unknown>[];
    } finally {
      db.close();
    }
  }
  return withClient(options.databaseUrl ?? "", async (client) => {
    await client.query(`set search_path to "${options.schema ?? "public"}"`);
    return (await client.query(query)).rows as Record<string, unknown>[];
  });
}

/** Runs a statement (values written into its text) on the file's store beside it, as an older Arbor or an operator would. */
export async function execRaw(t: EngineContext, statement: string): Promise<void> {
  const options = t.options();
  if (t.engine === "sqlite") {
    const db = new BetterSqlite3(join(options.dataDir, "arbor.db"));
    try {
      db.pragma("busy_timeout = 5000");
      db.prepare(statement).run();
    } finally {
      db.close();
    }
    return;
  }
  await withClient(options.databaseUrl ?? "", async (client) => {
    await client.query(`set search_path to "${options.schema ?? "public"}"`);
    await client.query(statement);
  });
}

/**
 * The engine's plan of a statement a store sent, read beside it, its parameters written into its
 * text (numbers as they are, everything else quoted: the tests' own values, never a quote in them).
 */
export async function planLines(t: EngineContext, statement: { sql: string; parameters: readonly unknown[] }): Promise<string[]> {
  const values = statement.parameters.map((v) => (typeof v === "number" ? String(v) : `'${String(v)}'`));
  const text =
    t.engine === "sqlite"
      ? statement.sql.replace(/\?/g, () => values.shift() ?? "")
      : statement.sql.replace(/\$(\d+)/g, (_, n: string) => values[Number(n) - 1] ?? "");
  const rows = await rawRows(t, t.engine === "sqlite" ? `explain query plan ${text}` : `explain ${text}`);
  return rows.map((r) => String(r.detail ?? r["QUERY PLAN"]));
}
