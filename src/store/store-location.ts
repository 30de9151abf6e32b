/**
 * Which store a set of options points at, said in words, and whether it holds an installation
 * yet. The admin commands act on whatever store they open: opening one in the wrong place would
 * silently make a second installation, so they name the one they opened and refuse to make one.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { Kysely, sql } from "kysely";
import type { StoreOptions } from "./create-store.js";
import type { Database } from "./tables.js";
import { engineSetup, SQLITE_FILES, sqliteStore } from "./dialect.js";

/**
 * The store in words, never a password or a user name: `SQLite /abs/data/arbor.db` or
 * `PostgreSQL db.example:5432/arbor (schema public)`.
 */
export function describeStore(options: Pick<StoreOptions, "databaseUrl" | "dataDir" | "schema">): string {
  if (sqliteStore(options)) return `SQLite ${sqliteFile(options.dataDir)}`;
  const url = options.databaseUrl ?? "";
  const schema = options.schema ?? "public";
  if (!URL.canParse(url)) return `PostgreSQL (an unparsable URL) (schema ${schema})`;
  const parsed = new URL(url);
  // A socket directory or a host in the query (?host=) leaves the URL's host empty.
  const host = parsed.hostname === "" ? (parsed.searchParams.get("host") ?? "the default host") : parsed.hostname;
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, "")) || "the default database";
  return `PostgreSQL ${host}:${parsed.port || "5432"}/${database} (schema ${schema})`;
}

/**
 * Whether the store was made already: the SQLite file exists, or the PostgreSQL schema holds
 * Arbor's settings table. Reading it makes nothing (no directory, no file, no schema).
 */
export async function storeExists(options: StoreOptions): Promise<boolean> {
  if (sqliteStore(options)) return existsSync(sqliteFile(options.dataDir));
  // Without the schema option, so the probe does not depend on a search_path that may not exist yet.
  const db = new Kysely<Database>({ dialect: engineSetup({ ...options, schema: undefined }).dialect });
  try {
    const found = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables
      where table_schema = ${options.schema ?? "public"} and table_name = 'settings'`.execute(db);
    return (found.rows[0]?.n ?? 0) > 0;
  } finally {
    await db.destroy();
  }
}

function sqliteFile(dataDir: string): string {
  return join(resolve(dataDir), SQLITE_FILES[0]);
}
