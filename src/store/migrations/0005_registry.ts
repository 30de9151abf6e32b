/**
 * 0005: the registry index (DESIGN 1.9): repos in groups, their tags, and the manifests deleted
 * from them. A repo keeps its group from being deleted (ON DELETE RESTRICT); tags and deletions
 * go with their repo. Deleted tags stay as tombstones (`deleted` = 1) that remember their latest
 * push and delete, so a late notification of an older push cannot bring them back.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates the registry tables. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  const index = (table: string, columns: string[]) =>
    db.schema
      .createIndex(`${table}_${columns.join("_")}_idx`)
      .on(table)
      .columns(columns)
      .execute();

  await db.schema
    .createTable("repos")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    // A group holding repos cannot be deleted.
    .addColumn("parent_uid", key, (c) => c.notNull().references("groups.uid").onDelete("restrict"))
    .addColumn("name", key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("update_time", "bigint", (c) => c.notNull())
    .addUniqueConstraint("repos_parent_uid_name_key", ["parent_uid", "name"])
    .execute();
  // One per sort order of the list queries (uid is the final tie-breaker), so a page is a range scan.
  for (const columns of [
    ["name", "uid"],
    ["create_time", "uid"],
    ["update_time", "uid"],
  ])
    await index("repos", columns);

  await db.schema
    .createTable("tags")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    .addColumn("repo_uid", key, (c) => c.notNull().references("repos.uid").onDelete("cascade"))
    .addColumn("name", key, (c) => c.notNull())
    // The manifest digest; "" for the tombstone of a tag deleted before its push was seen.
    .addColumn("digest", key, (c) => c.notNull())
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("update_time", "bigint", (c) => c.notNull())
    // The registry's time of the tag's latest push (of its first delete, when no push was seen).
    .addColumn("event_time", "bigint", (c) => c.notNull())
    // The registry's time of the latest delete of the tag itself, if any.
    .addColumn("delete_time", "bigint")
    // 1 for a tombstone, which lists and gets never show.
    .addColumn("deleted", "integer", (c) => c.notNull().defaultTo(0))
    .addUniqueConstraint("tags_repo_uid_name_key", ["repo_uid", "name"])
    .execute();
  for (const columns of [["name", "uid"], ["create_time", "uid"], ["update_time", "uid"], ["repo_uid", "digest"], ["digest"]]) {
    await index("tags", columns);
  }

  await db.schema
    .createTable("manifest_deletes")
    .addColumn("repo_uid", key, (c) => c.notNull().references("repos.uid").onDelete("cascade"))
    .addColumn("digest", key, (c) => c.notNull())
    // The registry's time of the latest delete of the manifest.
    .addColumn("event_time", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("manifest_deletes_pkey", ["repo_uid", "digest"])
    .execute();
}
