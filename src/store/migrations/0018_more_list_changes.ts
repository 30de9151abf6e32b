/**
 * 0018: the list change log of 0017 for the other lists whose rows are visible where their own
 * uid lies: repos, tags, identity providers, group invites and custom roles (issue 22: every list
 * that narrows by visibility), and identities in groups. A row's scope in the log is its own uid. A tag is in its list
 * while it is live (`deleted` = 0): a tag deleted (made a tombstone) leaves it and one pushed
 * again over its tombstone comes back, so updates of `deleted` are logged as well as inserts and
 * deletes. Built-in roles (no parent) are everyone's and never change: they are not logged. Of
 * identities, those in groups are logged; people (no parent) are seen through their bindings and
 * memberships, which this log does not follow, and lie below no group.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/**
 * The tables, the condition (on the row named by its argument) a row must meet to be logged, and
 * whether an update can change that condition.
 */
const TABLES: readonly (readonly [string, (row: string) => string, boolean])[] = [
  ["repos", () => "true", false],
  ["tags", (row) => `${row}.deleted = 0`, true],
  ["identity_providers", () => "true", false],
  ["group_invites", () => "true", false],
  ["roles", (row) => `${row}.parent_uid is not null`, false],
  ["identities", (row) => `${row}.parent_uid is not null`, false],
];

/**
 * Adds triggers writing the log for each table, and the index a list of one group's invites
 * lacked (its count read every invite the caller could see: docs/benchmarks.md, "Other lists").
 */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  await db.schema.createIndex("group_invites_parent_uid_uid_idx").on("group_invites").columns(["parent_uid", "uid"]).execute();
  for (const [table, listed, updates] of TABLES) {
    if (engine === "postgres") await postgresTriggers(db, table, listed, updates);
    else await sqliteTriggers(db, table, listed, updates);
  }
}

async function postgresTriggers(db: Kysely<any>, table: string, listed: (row: string) => string, updates: boolean): Promise<void> {
  for (const [event, rows, delta] of [
    ["insert", "new", 1],
    ["delete", "old", -1],
  ] as const) {
    await sql`
      create function ${sql.id(`arbor_list_changes_${table}_${event}`)}() returns trigger language plpgsql
      set search_path from current as $$
      begin
        insert into list_changes (table_name, row_uid, scope_uid, delta)
        select ${sql.lit(table)}, r.uid, r.uid, ${sql.lit(delta)} from ${sql.raw(`${rows}_rows`)} r where ${sql.raw(listed("r"))};
        return null;
      end $$`.execute(db);
    await sql`
      create trigger ${sql.id(`${table}_list_changes_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
      referencing ${sql.raw(rows)} table as ${sql.raw(`${rows}_rows`)}
      for each statement execute function ${sql.id(`arbor_list_changes_${table}_${event}`)}()`.execute(db);
  }
  if (!updates) return;
  // A row whose listed condition changes enters or leaves the list.
  await sql`
    create function ${sql.id(`arbor_list_changes_${table}_update`)}() returns trigger language plpgsql
    set search_path from current as $$
    begin
      insert into list_changes (table_name, row_uid, scope_uid, delta)
      select ${sql.lit(table)}, n.uid, n.uid, case when (${sql.raw(listed("n"))}) then 1 else -1 end
      from new_rows n join old_rows o on o.uid = n.uid
      where (${sql.raw(listed("n"))}) <> (${sql.raw(listed("o"))});
      return null;
    end $$`.execute(db);
  await sql`
    create trigger ${sql.id(`${table}_list_changes_update`)} after update on ${sql.table(table)}
    referencing old table as old_rows new table as new_rows
    for each statement execute function ${sql.id(`arbor_list_changes_${table}_update`)}()`.execute(db);
}

async function sqliteTriggers(db: Kysely<any>, table: string, listed: (row: string) => string, updates: boolean): Promise<void> {
  for (const [event, row, delta] of [
    ["insert", "new", 1],
    ["delete", "old", -1],
  ] as const) {
    await sql`
      create trigger ${sql.id(`${table}_list_changes_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
      when ${sql.raw(listed(row))} begin
        insert into list_changes (table_name, row_uid, scope_uid, delta)
        values (${sql.lit(table)}, ${sql.raw(row)}.uid, ${sql.raw(row)}.uid, ${sql.lit(delta)});
      end`.execute(db);
  }
  if (!updates) return;
  const isNew = listed("new");
  const wasOld = listed("old");
  await sql`
    create trigger ${sql.id(`${table}_list_changes_update`)} after update on ${sql.table(table)}
    when (${sql.raw(isNew)}) <> (${sql.raw(wasOld)}) begin
      insert into list_changes (table_name, row_uid, scope_uid, delta)
      values (${sql.lit(table)}, new.uid, new.uid, case when (${sql.raw(isNew)}) then 1 else -1 end);
    end`.execute(db);
}
