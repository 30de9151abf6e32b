/**
 * 0007: the authorization generation, one number that changes whenever any role binding or role
 * does. Servers keep the permissions they computed together with the generation they read first,
 * and trust them while it is unchanged, so a request checks one row instead of reading the
 * caller's bindings, and a new binding still works on the next request on every replica.
 *
 * Triggers keep it, not the code: every write counts, whichever path made it (the API, the admin
 * commands acting on the store, a group's bindings going with it by ON DELETE CASCADE).
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

const WATCHED = ["role_bindings", "roles"];

/** Creates the authz_generation row and the triggers that advance it. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  await db.schema
    .createTable("authz_generation")
    .addColumn("id", "integer", (c) =>
      c
        .primaryKey()
        .notNull()
        .check(sql`id = 1`),
    )
    .addColumn("value", "bigint", (c) => c.notNull())
    .execute();
  await sql`insert into authz_generation (id, value) values (1, 0)`.execute(db);
  if (engine === "postgres") {
    // One statement-level trigger per table: a statement deleting many bindings (a group's, by
    // cascade) advances the generation once. `set search_path from current` ties the function to
    // the schema it was made in, whatever the connection's search_path when it fires.
    await sql`
      create function arbor_advance_authz_generation() returns trigger language plpgsql
      set search_path from current as $$
      begin
        update authz_generation set value = value + 1 where id = 1;
        return null;
      end $$`.execute(db);
    for (const table of WATCHED) {
      await sql`
        create trigger ${sql.id(`${table}_authz_generation`)} after insert or update or delete on ${sql.table(table)}
        for each statement execute function arbor_advance_authz_generation()`.execute(db);
    }
    return;
  }
  // SQLite has only row-level triggers; a cascade of many rows advances the generation many
  // times, which is as good as once.
  for (const table of WATCHED) {
    for (const event of ["insert", "update", "delete"]) {
      await sql`
        create trigger ${sql.id(`${table}_authz_generation_${event}`)} after ${sql.raw(event)} on ${sql.table(table)}
        begin update authz_generation set value = value + 1 where id = 1; end`.execute(db);
    }
  }
}
