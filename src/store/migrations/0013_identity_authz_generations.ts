/**
 * 0013: a binding's change moves the authorization generation of its identity only. Until now
 * every binding change anywhere moved the one global generation (migration 0007), so every
 * server forgot every caller's permissions and a caller with 10,000 bindings read them all again
 * on its next request, though nothing of theirs had changed (issue 22).
 *
 * `authz_identity_generations` holds one number per identity whose bindings ever changed (none:
 * 0); triggers on `role_bindings` advance the row of the old and of the new identity of every
 * inserted, updated or deleted binding (a cascade included). Roles and deleted identities still
 * move the global generation (0007, 0012): a role's capabilities reach all who hold it. A server
 * trusts a caller's remembered permissions while both numbers hold.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

const EVENTS = ["insert", "update", "delete"] as const;

/** Creates the table, moves role_bindings' triggers from the global row to the identities' rows. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  // Byte-wise on PostgreSQL, as every uid column.
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable("authz_identity_generations")
    .addColumn("identity_uid", key, (c) => c.primaryKey().notNull())
    .addColumn("value", "bigint", (c) => c.notNull())
    .execute();
  if (engine === "postgres") await postgres(db);
  else await sqlite(db);
}

async function postgres(db: Kysely<any>): Promise<void> {
  await sql`drop trigger role_bindings_authz_generation on role_bindings`.execute(db);
  // Statement-level, over the transition tables: a cascade deleting many bindings advances each
  // identity once, and in uid order, so two such statements lock the rows in the same order and
  // cannot deadlock each other.
  await sql`
    create function arbor_advance_identity_authz_generations() returns trigger language plpgsql
    set search_path from current as $$
    begin
      if tg_op = 'INSERT' then
        insert into authz_identity_generations as g (identity_uid, value)
        select distinct identity_uid, 1 from new_rows order by identity_uid
        on conflict (identity_uid) do update set value = g.value + 1;
      elsif tg_op = 'DELETE' then
        insert into authz_identity_generations as g (identity_uid, value)
        select distinct identity_uid, 1 from old_rows order by identity_uid
        on conflict (identity_uid) do update set value = g.value + 1;
      else
        insert into authz_identity_generations as g (identity_uid, value)
        select identity_uid, 1 from (select identity_uid from old_rows union select identity_uid from new_rows) as changed
        order by identity_uid
        on conflict (identity_uid) do update set value = g.value + 1;
      end if;
      return null;
    end $$`.execute(db);
  const transition = {
    insert: sql`new table as new_rows`,
    update: sql`old table as old_rows new table as new_rows`,
    delete: sql`old table as old_rows`,
  };
  for (const event of EVENTS) {
    await sql`
      create trigger ${sql.id(`role_bindings_identity_authz_generations_${event}`)} after ${sql.raw(event)} on role_bindings
      referencing ${transition[event]}
      for each statement execute function arbor_advance_identity_authz_generations()`.execute(db);
  }
}

async function sqlite(db: Kysely<any>): Promise<void> {
  const advance = (row: "new" | "old") => sql`
    insert or ignore into authz_identity_generations (identity_uid, value) values (${sql.raw(row)}.identity_uid, 0);
    update authz_identity_generations set value = value + 1 where identity_uid = ${sql.raw(row)}.identity_uid;`;
  for (const event of EVENTS) {
    await sql`drop trigger ${sql.id(`role_bindings_authz_generation_${event}`)}`.execute(db);
    const body = event === "insert" ? advance("new") : event === "delete" ? advance("old") : sql`${advance("old")} ${advance("new")}`;
    await sql`
      create trigger ${sql.id(`role_bindings_identity_authz_generations_${event}`)} after ${sql.raw(event)} on role_bindings
      begin ${body} end`.execute(db);
  }
}
