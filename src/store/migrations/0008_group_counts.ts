/**
 * 0008: descendant counts of groups, so a list's totalCount under a large organization is a
 * lookup rather than a count of every group below it (S2 in docs/benchmarks.md: 69 ms for a
 * million groups on PostgreSQL).
 *
 * Triggers keep `group_descendant_counts` in the same transaction as every insert and delete of
 * a group, whoever makes it: one row per ancestor of the group, +1 or -1. Rows are only ever
 * added, so concurrent creates under one organization never wait on a shared counter; the
 * store folds an ancestor's rows into one when they pile up. The sum of an ancestor's rows is
 * the number of groups strictly below it.
 *
 * A uid is its ancestors' uids plus one segment each (DESIGN 1.2: 40 hex characters, then
 * `/` and 16 more per level, at most 32 levels), so the ancestors of `uid` are its prefixes of
 * 40 + 17k characters, shorter than itself.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Prefix lengths of ancestors: 40 + 17k for k = 0 … 31 (groups are at most 32 levels deep). */
const LEVELS = Array.from({ length: 32 }, (_, k) => k);

/** Creates the counts table and its triggers, and counts the groups already there. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable("group_descendant_counts")
    .addColumn("ancestor_uid", key, (c) => c.notNull())
    .addColumn("delta", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("group_descendant_counts_ancestor_uid_idx").on("group_descendant_counts").column("ancestor_uid").execute();

  if (engine === "postgres") {
    // Statement-level with transition tables: a bulk insert adds one row per ancestor, not one
    // per group and ancestor.
    for (const [event, rows, sign] of [
      ["insert", "new", ""],
      ["delete", "old", "-"],
    ] as const) {
      await sql`
        create function ${sql.id(`arbor_count_groups_${event}`)}() returns trigger language plpgsql
        set search_path from current as $$
        begin
          insert into group_descendant_counts (ancestor_uid, delta)
          select substr(g.uid, 1, 40 + 17 * k), ${sql.raw(sign)}count(*)
          from ${sql.raw(`${rows}_groups`)} g cross join generate_series(0, 31) k
          where 40 + 17 * k < length(g.uid)
          group by 1;
          return null;
        end $$`.execute(db);
      await sql`
        create trigger ${sql.id(`groups_count_${event}`)} after ${sql.raw(event)} on groups
        referencing ${sql.raw(rows)} table as ${sql.raw(`${rows}_groups`)}
        for each statement execute function ${sql.id(`arbor_count_groups_${event}`)}()`.execute(db);
    }
    await sql`
      insert into group_descendant_counts (ancestor_uid, delta)
      select substr(g.uid, 1, 40 + 17 * k), count(*) from groups g cross join generate_series(0, 31) k
      where 40 + 17 * k < length(g.uid) group by 1`.execute(db);
    return;
  }
  // SQLite allows no common table expressions in triggers; json_each over the levels is a table.
  const levels = JSON.stringify(LEVELS);
  for (const [event, row, delta] of [
    ["insert", "new", 1],
    ["delete", "old", -1],
  ] as const) {
    await sql`
      create trigger ${sql.id(`groups_count_${event}`)} after ${sql.raw(event)} on groups begin
        insert into group_descendant_counts (ancestor_uid, delta)
        select substr(${sql.raw(row)}.uid, 1, 40 + 17 * k.value), ${sql.raw(String(delta))}
        from json_each(${sql.lit(levels)}) k
        where 40 + 17 * k.value < length(${sql.raw(row)}.uid);
      end`.execute(db);
  }
  await sql`
    insert into group_descendant_counts (ancestor_uid, delta)
    select substr(g.uid, 1, 40 + 17 * k.value), count(*) from groups g, json_each(${sql.lit(levels)}) k
    where 40 + 17 * k.value < length(g.uid) group by 1`.execute(db);
}
