/**
 * Reading a store after a kill -9, beside any server: the engine's own integrity checks (SQLite's
 * integrity_check and foreign_key_check), orphans by SQL, and the rows the writers make, to hold
 * against the ledger.
 */
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import type { StoreOptions } from "../../../src/store/create-store.js";
import { withClient } from "../engines.js";
import { ORPHAN_QUERIES } from "../orphans.js";
import type { Kind, Ledger } from "./ledger.js";

/** A row the writers made. */
export interface Row {
  kind: Kind;
  uid: string;
  parent: string;
  description?: string;
  identity?: string;
}

/** What the store holds after a crash. */
export interface Inspection {
  /** Integrity problems and orphans; empty when sound. */
  problems: string[];
  rows: Row[];
}

const ROWS = [
  "select 'group' as kind, uid, parent_uid as parent, description, null as identity from groups where parent_uid is not null",
  "select 'identity' as kind, uid, parent_uid as parent, description, null as identity from identities where parent_uid is not null",
  "select 'binding' as kind, uid, group_uid as parent, null as description, identity_uid as identity " +
    "from role_bindings where group_uid like '%/%'",
];

/** Runs read queries on the store at options. */
async function query(options: StoreOptions, fn: (q: (text: string) => Promise<Record<string, unknown>[]>) => Promise<void>): Promise<void> {
  if (options.databaseUrl === undefined || options.databaseUrl === "") {
    // Opened read-write: the first connection after a crash replays the WAL.
    const db = new BetterSqlite3(join(options.dataDir, "arbor.db"));
    try {
      await fn(async (text) => db.prepare(text).all() as Record<string, unknown>[]);
    } finally {
      db.close();
    }
    return;
  }
  await withClient(options.databaseUrl, async (client) => {
    await client.query(`set search_path to "${options.schema ?? "public"}"`);
    await fn(async (text) => (await client.query(text)).rows as Record<string, unknown>[]);
  });
}

/** Inspects the store at options. */
export async function inspectStore(options: StoreOptions): Promise<Inspection> {
  const problems: string[] = [];
  const rows: Row[] = [];
  await query(options, async (q) => {
    if (options.databaseUrl === undefined || options.databaseUrl === "") {
      const integrity = await q("pragma integrity_check");
      if (integrity.length !== 1 || integrity[0]?.integrity_check !== "ok") problems.push(`integrity_check: ${JSON.stringify(integrity)}`);
      const keys = await q("pragma foreign_key_check");
      if (keys.length > 0) problems.push(`foreign_key_check: ${JSON.stringify(keys.slice(0, 5))}`);
    }
    for (const text of ORPHAN_QUERIES) for (const o of await q(text)) problems.push(`orphan ${String(o.kind)} ${String(o.uid)}`);
    for (const text of ROWS) {
      for (const r of await q(text)) {
        rows.push({
          kind: r.kind as Kind,
          uid: r.uid as string,
          parent: r.parent as string,
          ...(r.description != null && { description: r.description as string }),
          ...(r.identity != null && { identity: r.identity as string }),
        });
      }
    }
  });
  return { problems, rows };
}

/** The acknowledged writes the store lost (must be none), and rows nobody could have made. */
export function compareWithLedger(ledger: Ledger, inspection: Inspection): { lost: string[]; unexplained: string[] } {
  const present = new Map(inspection.rows.map((r) => [r.uid, r]));
  const lost: string[] = [];
  for (const e of ledger.entries.values()) {
    if (e.uncertain) continue;
    const row = present.get(e.uid);
    if (e.gone && row !== undefined) lost.push(`${e.kind} ${e.uid}: deleted (acknowledged) but still there`);
    if (!e.gone && row === undefined) lost.push(`${e.kind} ${e.uid}: created (acknowledged) but missing`);
    if (!e.gone && row !== undefined && e.description !== undefined && row.description !== e.description) {
      lost.push(`${e.kind} ${e.uid}: description ${JSON.stringify(row.description)}, acknowledged ${JSON.stringify(e.description)}`);
    }
  }
  const unexplained: string[] = [];
  const extra: Record<Kind, number> = { group: 0, identity: 0, binding: 0 };
  for (const r of inspection.rows) if (!ledger.entries.has(r.uid)) extra[r.kind]++;
  for (const kind of Object.keys(extra) as Kind[]) {
    if (extra[kind] > ledger.unanswered[kind])
      unexplained.push(`${extra[kind]} ${kind} rows nobody was told of, ${ledger.unanswered[kind]} creates unanswered`);
  }
  return { lost, unexplained };
}

/** Makes the store's state the ledger's truth where the crash left it open: uncertain entries, and rows of unanswered creates. */
export function adopt(ledger: Ledger, inspection: Inspection): void {
  ledger.settle(new Map(inspection.rows.map((r) => [r.uid, r])));
  for (const r of inspection.rows) {
    if (ledger.entries.has(r.uid)) continue;
    ledger.entries.set(r.uid, {
      kind: r.kind,
      uid: r.uid,
      parent: r.parent,
      gone: false,
      uncertain: false,
      ...(r.description !== undefined && { description: r.description }),
      ...(r.identity !== undefined && { identity: r.identity }),
    });
  }
}
