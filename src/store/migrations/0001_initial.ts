/**
 * 0001: groups, role bindings, signing keys and settings.
 *
 * Frozen: this file describes the schema as it was first shipped. Never edit it; change the
 * schema in a new migration. It is typed against Kysely<any> and imports nothing of the living
 * code for the same reason.
 */
import { sql, type Kysely } from "kysely";

/** Creates the first tables. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  // PostgreSQL compares text by the database's locale unless told otherwise. "C" compares bytes
  // as SQLite's BINARY does, so both engines order uids and names alike and the uid range
  // 'X/' < uid < 'X0' holds exactly the descendants of X.
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;

  await db.schema
    .createTable("groups")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    .addColumn("parent_uid", key, (c) => c.references("groups.uid").onDelete("restrict"))
    .addColumn("name", key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("update_time", "bigint", (c) => c.notNull())
    .addUniqueConstraint("groups_parent_uid_name_key", ["parent_uid", "name"])
    .execute();
  // NULLs are distinct in the constraint above, so organizations need their own.
  await db.schema
    .createIndex("groups_organization_name_key")
    .unique()
    .on("groups")
    .column("name")
    .where(sql.ref("parent_uid"), "is", null)
    .execute();
  // One per sort order of the list queries (uid is the final tie-breaker), so a page is a range scan.
  await db.schema.createIndex("groups_parent_uid_name_uid_idx").on("groups").columns(["parent_uid", "name", "uid"]).execute();
  await db.schema.createIndex("groups_name_uid_idx").on("groups").columns(["name", "uid"]).execute();
  await db.schema.createIndex("groups_create_time_uid_idx").on("groups").columns(["create_time", "uid"]).execute();
  await db.schema.createIndex("groups_update_time_uid_idx").on("groups").columns(["update_time", "uid"]).execute();

  await db.schema
    .createTable("role_bindings")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    .addColumn("group_uid", key, (c) => c.notNull().references("groups.uid").onDelete("cascade"))
    .addColumn("identity_uid", key, (c) => c.notNull())
    .addColumn("role_uid", key, (c) => c.notNull())
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addUniqueConstraint("role_bindings_group_identity_role_key", ["group_uid", "identity_uid", "role_uid"])
    .execute();
  await db.schema.createIndex("role_bindings_identity_uid_idx").on("role_bindings").column("identity_uid").execute();

  await db.schema
    .createTable("signing_keys")
    .addColumn("kid", key, (c) => c.primaryKey().notNull())
    .addColumn("private_jwk", "text", (c) => c.notNull())
    .addColumn("public_jwk", "text", (c) => c.notNull())
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("rotate_time", "bigint", (c) => c.notNull())
    .addColumn("retire_time", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("settings")
    .addColumn("name", key, (c) => c.primaryKey().notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}
