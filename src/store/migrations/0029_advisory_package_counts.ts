/**
 * 0029: kept counts of the advisories affecting each package of each ecosystem (issue 19, item 1),
 * so the totalCount of an `ecosystem` and `package_name` list reads its count rows instead of
 * every index entry of the pair: `ecosystem=Debian&package_name=linux` walked 25,244 entries of
 * the (ecosystem_base, name, advisory_uid) index and grouped them into 15,231 advisories, about
 * half of its page's time on PostgreSQL at 500,000 advisories.
 *
 * Two more count keys beside 0022's and 0025's, kept by the same triggers on `advisory_packages`
 * with the same rule (an advisory counts once under a key, so a package row counts only when it
 * is the advisory's first, on insert, or last, on delete, under it):
 * - 'pkg:<n>:<ecosystem without release>:<name>' for every package row;
 * - 'pkg:<n>:<ecosystem with release>:<name>' for a row whose ecosystem holds a release (a `:`).
 * n is the ecosystem's length in characters, so the key says where the ecosystem ends: both
 * ecosystems (`Red Hat:enterprise_linux:9::appstream`) and names (Maven's `group:artifact`) may
 * hold `:`, and without it `Ubuntu:22.04:LTS` with `x` and `Ubuntu:22.04` with `LTS:x` would
 * share a key. An ecosystem without a release is its own base, so its row has the first key once.
 *
 * SQLite's two row triggers are made again with the new keys, in this migration's transaction (no
 * write sees a store without them). Where a bulk import that never reached its end left them
 * dropped (0026), their saved definitions are replaced instead, for the build that restores them.
 * PostgreSQL's trigger functions are replaced in place. Then the pairs' counts of the advisories
 * already stored (a bulk import's build, should one be pending, counts every key again anyway).
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely, type RawBuilder } from "kysely";

/** The pair key of package row p under its column `ecosystem` or `ecosystem_base`. */
const pairKey = (p: string, column: "ecosystem" | "ecosystem_base") =>
  sql`'pkg:' || length(${sql.raw(p)}.${sql.raw(column)}) || ':' || ${sql.raw(p)}.${sql.raw(column)} || ':' || ${sql.raw(p)}.name`;

/** The count keys of a package row named by alias p, null where it has none of that kind. */
const keysOf = (p: string): RawBuilder<unknown>[] => [
  sql`'base:' || ${sql.raw(p)}.ecosystem_base`,
  sql`case when ${sql.raw(p)}.ecosystem like '%:%' then 'eco:' || ${sql.raw(p)}.ecosystem end`,
  sql`'name:' || ${sql.raw(p)}.name`,
  pairKey(p, "ecosystem_base"),
  sql`case when ${sql.raw(p)}.ecosystem like '%:%' then ${pairKey(p, "ecosystem")} end`,
];

/** Whether the package row q has count key k (a column reference). */
const hasKey = (q: string, k: string) =>
  sql`('base:' || ${sql.raw(q)}.ecosystem_base = ${sql.raw(k)} or 'eco:' || ${sql.raw(q)}.ecosystem = ${sql.raw(k)}
    or 'name:' || ${sql.raw(q)}.name = ${sql.raw(k)}
    or ${pairKey(q, "ecosystem_base")} = ${sql.raw(k)} or ${pairKey(q, "ecosystem")} = ${sql.raw(k)})`;

/** Keeps and backfills the pairs' counts. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine === "postgres") await postgres(db);
  else await sqlite(db);
  await sql`
    insert into advisory_counts (key, delta)
    select ${pairKey("p", "ecosystem_base")}, count(distinct p.advisory_uid) from advisory_packages p
    group by p.ecosystem_base, p.name`.execute(db);
  await sql`
    insert into advisory_counts (key, delta)
    select ${pairKey("p", "ecosystem")}, count(distinct p.advisory_uid) from advisory_packages p
    where p.ecosystem like '%:%' group by p.ecosystem, p.name`.execute(db);
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
  const triggers = {
    advisory_packages_count_insert: sql`
      create trigger advisory_packages_count_insert after insert on advisory_packages begin
        insert into advisory_counts (key, delta)
        select k.key, 1 from (${keys("new")}) k
        where k.key is not null and not exists (
          select 1 from advisory_packages p where p.advisory_uid = new.advisory_uid
          and (p.ecosystem <> new.ecosystem or p.name <> new.name) and ${hasKey("p", "k.key")});
      end`,
    advisory_packages_count_delete: sql`
      create trigger advisory_packages_count_delete after delete on advisory_packages begin
        insert into advisory_counts (key, delta)
        select k.key, -1 from (${keys("old")}) k
        where k.key is not null
          and not exists (select 1 from advisory_packages p where p.advisory_uid = old.advisory_uid and ${hasKey("p", "k.key")});
      end`,
  };
  for (const [name, create] of Object.entries(triggers)) {
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from sqlite_master where type = 'trigger' and name = ${name}`.execute(db);
    if (Number(rows[0]?.n ?? 0) > 0) {
      // Made again just below in the same transaction: no write sees the table without it.
      await sql`drop trigger ${sql.id(name)}`.execute(db);
      await create.execute(db);
    } else {
      // Dropped by a bulk import that never reached its end: the build that restores it makes it
      // from its saved definition, which is the new one from here on.
      const { sql: text, parameters } = create.compile(db);
      if (parameters.length > 0) throw new Error(`0029: ${name} compiled with parameters`);
      await sql`update advisory_deferred_schema set definition = ${text.trim()} where name = ${name}`.execute(db);
    }
  }
}
