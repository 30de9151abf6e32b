/**
 * 0009: whose each login in progress is, so no one client can use up the logins others need: the
 * SHA-256 of the client's address (its /64 for IPv6) and the organization whose identity provider
 * it goes through ('' for the server's default login provider). Logins are counted by each,
 * among the live ones, before one more is stored.
 *
 * Attempts live ten minutes; rows from before this migration count as nobody's.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Adds the owner columns of login attempts and an index for counting by each. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .alterTable("login_attempts")
    .addColumn("address_hash", key, (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema
    .alterTable("login_attempts")
    .addColumn("organization_uid", key, (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema.createIndex("login_attempts_address_hash_idx").on("login_attempts").column("address_hash").execute();
  await db.schema.createIndex("login_attempts_organization_uid_idx").on("login_attempts").column("organization_uid").execute();
}
