/**
 * 0019: where the advisories feed sync stands on each feed (src/osv/feed-sync.ts): the newest
 * OSV `modified` time it has fully applied, and the ids listed at exactly that time, so an
 * incremental sync fetches only what the feed's `modified_id.csv` lists as newer.
 *
 * Additive: an older server never reads the table, and keeps syncing with full imports.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates `advisory_feed_cursors`. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const text = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable("advisory_feed_cursors")
    // The feed's URL, as configured.
    .addColumn("feed", text, (c) => c.primaryKey().notNull())
    // The newest `modified` fully applied, in UTC with nine fractional digits, so text order is time order.
    .addColumn("modified", text, (c) => c.notNull())
    // JSON array of the advisory ids the feed listed at exactly `modified`, all applied.
    .addColumn("boundary_ids", text, (c) => c.notNull())
    // When a sync last applied or confirmed the cursor (milliseconds since the epoch).
    .addColumn("sync_time", "bigint", (c) => c.notNull())
    .execute();
}
