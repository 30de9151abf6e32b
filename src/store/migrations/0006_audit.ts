/**
 * 0006: the audit log. One row per change made through the API; rows are only ever inserted.
 * An event's uid lies under the group the change was made in (`<group uid>/<16 hex>`), so the
 * hierarchy filters and visibility work on it as on any resource, and it has no foreign key: the
 * log outlives what it describes.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates the audit_events table. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable("audit_events")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    // The group the change was made in: the uid's parent.
    .addColumn("group_uid", key, (c) => c.notNull())
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("actor_uid", key, (c) => c.notNull())
    // JSON: the upstream issuer and subject the token stood for, when it was exchanged.
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("method", key, (c) => c.notNull())
    .addColumn("action", key, (c) => c.notNull())
    .addColumn("resource_type", key, (c) => c.notNull())
    .addColumn("resource_uid", key, (c) => c.notNull())
    // JSON of the resource as the API showed it, or null.
    .addColumn("before", "text")
    .addColumn("after", "text")
    .execute();
  // The default order (newest first) and the filters.
  for (const columns of [
    ["create_time", "uid"],
    ["group_uid", "create_time"],
    ["actor_uid", "create_time"],
    ["resource_uid", "create_time"],
  ]) {
    await db.schema
      .createIndex(`audit_events_${columns.join("_")}_idx`)
      .on("audit_events")
      .columns(columns)
      .execute();
  }
}
