/**
 * 0017: a log of the rows that enter and leave a list, so that a count of what a caller with many
 * scopes sees there can be moved forward by the changes since it was taken instead of being
 * taken again (issue 22; src/store/list-changes.ts). Role bindings first: a caller bound at
 * thousands of groups sees thousands of them, and bindings change all day.
 *
 * Triggers write one row per row inserted or deleted, in the same transaction, whoever writes it
 * (a cascade from a deleted group too): the table, the row's uid, the group it is visible at, and
 * +1 or -1. A binding's group never changes, so updates write nothing.
 *
 * Each row has a position a reader can compare with the moment its count was taken: on SQLite an
 * AUTOINCREMENT number (one writer at a time, so numbers follow commits, and none is ever given
 * twice, even after the log is emptied); on PostgreSQL the writing transaction's id, which with a
 * snapshot (pg_current_snapshot) tells exactly which changes a count taken under that snapshot
 * saw, however transactions interleave. `list_change_horizon` says below which position the log
 * has been pruned, so a count older than that is taken again rather than moved forward.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates the log, its horizon, and the triggers on role_bindings. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine === "postgres") {
    await sql`
      create table list_changes (
        table_name text collate "C" not null,
        row_uid text collate "C" not null,
        scope_uid text collate "C" not null,
        delta integer not null,
        xid xid8 not null default pg_current_xact_id()
      )`.execute(db);
    await db.schema.createIndex("list_changes_table_name_xid_idx").on("list_changes").columns(["table_name", "xid"]).execute();
    await sql`create table list_change_horizon (id integer primary key check (id = 1), below xid8 not null, next xid8 not null)`.execute(
      db,
    );
    await sql`insert into list_change_horizon (id, below, next) values (1, '0'::xid8, '0'::xid8)`.execute(db);
    // Statement-level with transition tables, as 0008's counts: a bulk delete (a group's
    // cascade) writes its rows in one insert.
    for (const [event, rows, delta] of [
      ["insert", "new", 1],
      ["delete", "old", -1],
    ] as const) {
      await sql`
        create function ${sql.id(`arbor_list_changes_role_bindings_${event}`)}() returns trigger language plpgsql
        set search_path from current as $$
        begin
          insert into list_changes (table_name, row_uid, scope_uid, delta)
          select 'role_bindings', b.uid, b.group_uid, ${sql.lit(delta)} from ${sql.raw(`${rows}_bindings`)} b;
          return null;
        end $$`.execute(db);
      await sql`
        create trigger ${sql.id(`role_bindings_list_changes_${event}`)} after ${sql.raw(event)} on role_bindings
        referencing ${sql.raw(rows)} table as ${sql.raw(`${rows}_bindings`)}
        for each statement execute function ${sql.id(`arbor_list_changes_role_bindings_${event}`)}()`.execute(db);
    }
    return;
  }
  await sql`
    create table list_changes (
      position integer primary key autoincrement,
      table_name text not null,
      row_uid text not null,
      scope_uid text not null,
      delta integer not null
    )`.execute(db);
  await db.schema.createIndex("list_changes_table_name_idx").on("list_changes").columns(["table_name", "position"]).execute();
  await sql`
    create table list_change_horizon (
      id integer primary key check (id = 1),
      below integer not null,
      next integer not null
    )`.execute(db);
  await sql`insert into list_change_horizon (id, below, next) values (1, 0, 0)`.execute(db);
  for (const [event, row, delta] of [
    ["insert", "new", 1],
    ["delete", "old", -1],
  ] as const) {
    await sql`
      create trigger ${sql.id(`role_bindings_list_changes_${event}`)} after ${sql.raw(event)} on role_bindings begin
        insert into list_changes (table_name, row_uid, scope_uid, delta)
        values ('role_bindings', ${sql.raw(row)}.uid, ${sql.raw(row)}.group_uid, ${sql.lit(delta)});
      end`.execute(db);
  }
}
