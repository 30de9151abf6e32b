/**
 * 0021: events (issue 21, docs/events.md). `event_outbox` holds the CloudEvent of every change,
 * written by the change's own transaction; `event_subscriptions` the sinks they go to, each with
 * where its delivery stands.
 *
 * Delivery reads the outbox in (xid, position) order from each subscription's cursor. On SQLite
 * one writer at a time makes the AUTOINCREMENT position follow commits, and xid stays 0. On
 * PostgreSQL positions are taken before commit, so a later position can commit first; xid is
 * the writing transaction's id, and a reader takes only rows of transactions older than every
 * transaction still open (pg_snapshot_xmin): no row can later appear before what it has read.
 *
 * Additive: an older server neither reads nor writes these tables.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates `event_outbox` and `event_subscriptions`. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  if (engine === "postgres") {
    await sql`
      create table event_outbox (
        position bigint generated always as identity primary key,
        xid bigint not null default (pg_current_xact_id()::text::bigint),
        id text collate "C" not null,
        type text collate "C" not null,
        subject text collate "C" not null,
        group_uid text collate "C" not null,
        time bigint not null,
        read_caps text not null,
        data text not null
      )`.execute(db);
  } else {
    await sql`
      create table event_outbox (
        position integer primary key autoincrement,
        xid integer not null default 0,
        id text not null,
        type text not null,
        subject text not null,
        group_uid text not null,
        time bigint not null,
        read_caps text not null,
        data text not null
      )`.execute(db);
  }
  await db.schema.createIndex("event_outbox_xid_position_idx").on("event_outbox").columns(["xid", "position"]).execute();
  await db.schema.createIndex("event_outbox_time_idx").on("event_outbox").columns(["time"]).execute();

  await db.schema
    .createTable("event_subscriptions")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    .addColumn("parent_uid", key, (c) => c.notNull().references("groups.uid").onDelete("cascade"))
    .addColumn("sink", "text", (c) => c.notNull())
    // JSON array of type patterns.
    .addColumn("types", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("include_descendants", "integer", (c) => c.notNull().defaultTo(0))
    // No foreign key: a deleted creator's subscription stays, and receives nothing (its creator
    // reads nothing).
    .addColumn("creator_uid", key, (c) => c.notNull())
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("update_time", "bigint", (c) => c.notNull())
    // The last outbox row done with: delivered, dropped or not for this subscription.
    .addColumn("cursor_xid", "bigint", (c) => c.notNull())
    .addColumn("cursor_position", "bigint", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("next_attempt_time", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("first_failure_time", "bigint")
    .addColumn("last_delivery_time", "bigint")
    .addColumn("last_error", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  for (const columns of [["parent_uid", "uid"], ["create_time", "uid"], ["update_time", "uid"], ["next_attempt_time"]]) {
    await db.schema
      .createIndex(`event_subscriptions_${columns.join("_")}_idx`)
      .on("event_subscriptions")
      .columns(columns)
      .execute();
  }
}
