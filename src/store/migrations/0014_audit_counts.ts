/**
 * 0014: kept counts of audit events, so a page of the log carries its exact totalCount without
 * counting every matching event (60,000 events: 184 ms a page before, docs/benchmarks.md), and
 * indexes that serve each list filter in the list's order.
 *
 * Triggers keep `audit_event_counts` in the same transaction as every insert and delete of an
 * event, whoever makes it: rows of +n or -n per (group_uid, key), where key is '' (every event),
 * 'method:<method>', 'actor:<actor uid>' or 'resource:<resource uid>'. Rows are only ever added,
 * as 0008's are, so concurrent writers never wait on a shared counter; the store folds a pair's
 * rows into one when they pile up. The sum of a pair's rows is the number of events of that key
 * in that group (the event's own group, not its ancestors: a count over a subtree sums its
 * groups' rows, which the (key, group_uid) index keeps in one range).
 *
 * root_uid, generated from group_uid, with (root_uid, create_time, uid): an organization's events
 * in the list's order, which a page walks (src/store/audit-store.ts).
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** The keys an event counts under, as SQL over a row alias. */
const keys = (e: string) => [
  sql`''`,
  sql`'method:' || ${sql.raw(e)}.method`,
  sql`'actor:' || ${sql.raw(e)}.actor_uid`,
  sql`'resource:' || ${sql.raw(e)}.resource_uid`,
];

/** Creates the counts table, its triggers and the list indexes, and counts the events already there. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable("audit_event_counts")
    .addColumn("group_uid", key, (c) => c.notNull())
    .addColumn("key", key, (c) => c.notNull())
    .addColumn("delta", "bigint", (c) => c.notNull())
    .execute();
  // Covering: a count reads the index alone.
  await db.schema
    .createIndex("audit_event_counts_key_group_uid_delta_idx")
    .on("audit_event_counts")
    .columns(["key", "group_uid", "delta"])
    .execute();

  // The event's root (its organization): the first 40 characters of every uid below it. Generated,
  // so every writer keeps it right; what a caller may see and every subtree lie in one root, so
  // the (root_uid, create_time, uid) index walks one organization's log in the list's order.
  const root = sql`substr(group_uid, 1, 40)`;
  await db.schema
    .alterTable("audit_events")
    .addColumn("root_uid", key, (c) => (engine === "postgres" ? c.generatedAlwaysAs(root).stored() : c.generatedAlwaysAs(root)))
    .execute();

  // Each filter's index ends with the list's order (create_time, then uid), so a page of 50 reads
  // about 50 entries of one range (backwards for newest first).
  for (const column of ["group_uid", "actor_uid", "resource_uid"]) {
    await db.schema.dropIndex(`audit_events_${column}_create_time_idx`).execute();
  }
  for (const column of ["root_uid", "group_uid", "actor_uid", "resource_uid", "method"]) {
    await db.schema
      .createIndex(`audit_events_${column}_create_time_uid_idx`)
      .on("audit_events")
      .columns([column, "create_time", "uid"])
      .execute();
  }

  if (engine === "postgres") {
    // Statement-level with transition tables: a bulk insert or a retention delete adds one row
    // per (group, key), not one per event and key.
    for (const [event, rows, sign] of [
      ["insert", "new", ""],
      ["delete", "old", "-"],
    ] as const) {
      await sql`
        create function ${sql.id(`arbor_count_audit_${event}`)}() returns trigger language plpgsql
        set search_path from current as $$
        begin
          insert into audit_event_counts (group_uid, key, delta)
          select e.group_uid, k.key, ${sql.raw(sign)}count(*)
          from ${sql.raw(`${rows}_events`)} e cross join lateral (values ${sql.join(keys("e").map((k) => sql`(${k})`))}) k(key)
          group by 1, 2;
          return null;
        end $$`.execute(db);
      await sql`
        create trigger ${sql.id(`audit_events_count_${event}`)} after ${sql.raw(event)} on audit_events
        referencing ${sql.raw(rows)} table as ${sql.raw(`${rows}_events`)}
        for each statement execute function ${sql.id(`arbor_count_audit_${event}`)}()`.execute(db);
    }
    await sql`
      insert into audit_event_counts (group_uid, key, delta)
      select e.group_uid, k.key, count(*)
      from audit_events e cross join lateral (values ${sql.join(keys("e").map((k) => sql`(${k})`))}) k(key)
      group by 1, 2`.execute(db);
    return;
  }
  for (const [event, row, delta] of [
    ["insert", "new", 1],
    ["delete", "old", -1],
  ] as const) {
    await sql`
      create trigger ${sql.id(`audit_events_count_${event}`)} after ${sql.raw(event)} on audit_events begin
        insert into audit_event_counts (group_uid, key, delta) values
        ${sql.join(keys(row).map((k) => sql`(${sql.raw(row)}.group_uid, ${k}, ${sql.raw(String(delta))})`))};
      end`.execute(db);
  }
  for (const k of keys("e")) {
    await sql`insert into audit_event_counts (group_uid, key, delta)
      select e.group_uid, ${k}, count(*) from audit_events e group by 1, 2`.execute(db);
  }
}
