/**
 * 0025: kept counts of the advisories affecting each package name (issue 19, item 1), so a
 * `package_name` list's totalCount reads its count rows, not every index entry of the name (the
 * most affected package, `linux`, has about a fifth of all advisories).
 *
 * A third count key, 'name:<package name>', beside 0022's 'base:' and 'eco:' keys, kept by the
 * same triggers on `advisory_packages` with the same rule: an advisory counts once under a key,
 * so a package row counts only when it is the advisory's first (insert) or last (delete) row
 * under it. An advisory naming `linux` in Debian:11 and Debian:12 counts once under 'name:linux'.
 * SQLite's two row triggers are made again with the third key (in this migration's transaction:
 * no write sees a store without them); PostgreSQL's trigger functions are replaced in place.
 * Then the names' counts of the advisories already stored.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely, type RawBuilder } from "kysely";

/** The count keys of a package row named by alias p, null where it has none of that kind. */
const keysOf = (p: string): RawBuilder<unknown>[] => [
  sql`'base:' || ${sql.raw(p)}.ecosystem_base`,
  sql`case when ${sql.raw(p)}.ecosystem like '%:%' then 'eco:' || ${sql.raw(p)}.ecosystem end`,
  sql`'name:' || ${sql.raw(p)}.name`,
];

/** Whether the package row q has count key k (a column reference). */
const hasKey = (q: string, k: string) =>
  sql`('base:' || ${sql.raw(q)}.ecosystem_base = ${sql.raw(k)} or 'eco:' || ${sql.raw(q)}.ecosystem = ${sql.raw(k)}
    or 'name:' || ${sql.raw(q)}.name = ${sql.raw(k)})`;

/** Keeps and backfills the package names' counts. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine === "postgres") await postgres(db);
  else await sqlite(db);
  await sql`
    insert into advisory_counts (key, delta)
    select 'name:' || name, count(distinct advisory_uid) from advisory_packages group by name`.execute(db);
}

async function postgres(db: Kysely<any>): Promise<void> {
  const perKey = (rows: string) => sql`
    select r.advisory_uid, k.key, count(*) as n from ${sql.raw(rows)} r
    cross join lateral (values ${sql.join(keysOf("r").map((k) => sql`(${k})`))}) k(key) where k.key is not null group by 1, 2`;
  await sql`
    create or replace function arbor_count_advisory_packages_insert() returns trigger language plpgsql
    set search_path from current as $$
    begin
      insert into advisory_counts (key, delta)
      select k.key, count(*) from (${perKey("new_packages")}) k
      where k.n = (select count(*) from advisory_packages p where p.advisory_uid = k.advisory_uid and ${hasKey("p", "k.key")})
      group by k.key;
      return null;
    end $$`.execute(db);
  await sql`
    create or replace function arbor_count_advisory_packages_delete() returns trigger language plpgsql
    set search_path from current as $$
    begin
      insert into advisory_counts (key, delta)
      select k.key, -count(*) from (${perKey("old_packages")}) k
      where not exists (select 1 from advisory_packages p where p.advisory_uid = k.advisory_uid and ${hasKey("p", "k.key")})
      group by k.key;
      return null;
    end $$`.execute(db);
}

async function sqlite(db: Kysely<any>): Promise<void> {
  const keys = (row: string) =>
    sql.join(
      keysOf(row).map((k) => sql`select ${k} as key`),
      sql` union all `,
    );
  // Made again below in the same transaction: no write sees the table without them.
  await sql`drop trigger advisory_packages_count_insert`.execute(db);
  await sql`drop trigger advisory_packages_count_delete`.execute(db);
  await sql`
    create trigger advisory_packages_count_insert after insert on advisory_packages begin
      insert into advisory_counts (key, delta)
      select k.key, 1 from (${keys("new")}) k
      where k.key is not null and not exists (
        select 1 from advisory_packages p where p.advisory_uid = new.advisory_uid
        and (p.ecosystem <> new.ecosystem or p.name <> new.name) and ${hasKey("p", "k.key")});
    end`.execute(db);
  await sql`
    create trigger advisory_packages_count_delete after delete on advisory_packages begin
      insert into advisory_counts (key, delta)
      select k.key, -1 from (${keys("old")}) k
      where k.key is not null
        and not exists (select 1 from advisory_packages p where p.advisory_uid = old.advisory_uid and ${hasKey("p", "k.key")});
    end`.execute(db);
}
