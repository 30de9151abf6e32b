/**
 * 0022: advisories at the scale of all of OSV (issue 19): kept counts, indexes a page walks in
 * uid order, a trigram index for `query`, and a content hash that lets a re-import pass over an
 * unchanged document without parsing it.
 *
 * Kept counts. Triggers keep `advisory_counts` in the same transaction as every insert and delete
 * of an advisory or of an affected package, whoever makes it: rows of +n or -n per key, where key
 * is '' (every advisory), 'base:<ecosystem without release>' or 'eco:<ecosystem with release>'
 * (only for an ecosystem holding a `:`). Each counts advisories, not packages: an advisory
 * affecting two npm packages counts once under 'base:npm', so a package row counts only when it
 * is the advisory's first (insert) or last (delete) under a key. Rows are only ever added, as
 * 0014's are, so concurrent importers never wait on a shared counter; the store folds a key's
 * rows into one when they pile up. The package rows of one advisory are only ever written by the
 * transaction that writes its `advisories` row (which holds that row), so no two transactions
 * judge "first" or "last" for the same advisory at once.
 *
 * Indexes: (ecosystem_base, advisory_uid) and (ecosystem, advisory_uid) on `advisory_packages`,
 * so a page of one ecosystem in uid order reads about one index entry per advisory listed.
 *
 * `query`: on SQLite an FTS5 table with the trigram tokenizer over `advisory_texts` (the search
 * text beside an INTEGER PRIMARY KEY, which VACUUM keeps, unlike a plain table's rowid), kept by
 * triggers on `advisories`. On PostgreSQL a pg_trgm GIN index on `advisories.search`; where the
 * extension is not installed and cannot be created (the migrating role lacks the right), the
 * migration goes on without the index and `query` scans as before (docs/operations.md).
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely, type RawBuilder } from "kysely";

/** The count keys of a package row named by alias p, null where it has none of that kind. */
const keysOf = (p: string): RawBuilder<unknown>[] => [
  sql`'base:' || ${sql.raw(p)}.ecosystem_base`,
  sql`case when ${sql.raw(p)}.ecosystem like '%:%' then 'eco:' || ${sql.raw(p)}.ecosystem end`,
];

/** Whether the package row q has count key k (a column reference). */
const hasKey = (q: string, k: string) =>
  sql`('base:' || ${sql.raw(q)}.ecosystem_base = ${sql.raw(k)} or 'eco:' || ${sql.raw(q)}.ecosystem = ${sql.raw(k)})`;

/** Creates the counts, indexes, search index and hash column, and counts the advisories already there. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable("advisory_counts")
    .addColumn("key", key, (c) => c.notNull())
    .addColumn("delta", "bigint", (c) => c.notNull())
    .execute();
  // Covering: a count reads the index alone.
  await db.schema.createIndex("advisory_counts_key_delta_idx").on("advisory_counts").columns(["key", "delta"]).execute();
  for (const column of ["ecosystem_base", "ecosystem"]) {
    await db.schema
      .createIndex(`advisory_packages_${column}_advisory_uid_idx`)
      .on("advisory_packages")
      .columns([column, "advisory_uid"])
      .execute();
  }
  // A hash of the document's bytes as imported (null for advisories stored before): an import
  // meeting the same bytes again knows the document unchanged without parsing or checking it.
  await db.schema.alterTable("advisories").addColumn("content_hash", key).execute();
  await db.schema.createIndex("advisories_content_hash_idx").on("advisories").column("content_hash").execute();

  if (engine === "postgres") await postgres(db);
  else await sqlite(db);

  await sql`insert into advisory_counts (key, delta) select '', count(*) from advisories`.execute(db);
  await sql`
    insert into advisory_counts (key, delta)
    select 'base:' || ecosystem_base, count(distinct advisory_uid) from advisory_packages group by ecosystem_base`.execute(db);
  await sql`
    insert into advisory_counts (key, delta)
    select 'eco:' || ecosystem, count(distinct advisory_uid) from advisory_packages where ecosystem like '%:%' group by ecosystem`.execute(
    db,
  );
}

async function postgres(db: Kysely<any>): Promise<void> {
  // Statement-level with transition tables: a batch adds one row per key, not one per advisory.
  for (const [event, rows, sign] of [
    ["insert", "new", ""],
    ["delete", "old", "-"],
  ] as const) {
    await sql`
      create function ${sql.id(`arbor_count_advisories_${event}`)}() returns trigger language plpgsql
      set search_path from current as $$
      begin
        insert into advisory_counts (key, delta)
        select '', ${sql.raw(sign)}count(*) from ${sql.raw(`${rows}_advisories`)} having count(*) > 0;
        return null;
      end $$`.execute(db);
    await sql`
      create trigger ${sql.id(`advisories_count_${event}`)} after ${sql.raw(event)} on advisories
      referencing ${sql.raw(rows)} table as ${sql.raw(`${rows}_advisories`)}
      for each statement execute function ${sql.id(`arbor_count_advisories_${event}`)}()`.execute(db);
  }
  // An (advisory, key) counts +1 when every row of the table with it came in this statement
  // (none was there before), -1 when none is left after.
  const perKey = (rows: string) => sql`
    select r.advisory_uid, k.key, count(*) as n from ${sql.raw(rows)} r
    cross join lateral (values ${sql.join(keysOf("r").map((k) => sql`(${k})`))}) k(key) where k.key is not null group by 1, 2`;
  await sql`
    create function arbor_count_advisory_packages_insert() returns trigger language plpgsql
    set search_path from current as $$
    begin
      insert into advisory_counts (key, delta)
      select k.key, count(*) from (${perKey("new_packages")}) k
      where k.n = (select count(*) from advisory_packages p where p.advisory_uid = k.advisory_uid and ${hasKey("p", "k.key")})
      group by k.key;
      return null;
    end $$`.execute(db);
  await sql`
    create function arbor_count_advisory_packages_delete() returns trigger language plpgsql
    set search_path from current as $$
    begin
      insert into advisory_counts (key, delta)
      select k.key, -count(*) from (${perKey("old_packages")}) k
      where not exists (select 1 from advisory_packages p where p.advisory_uid = k.advisory_uid and ${hasKey("p", "k.key")})
      group by k.key;
      return null;
    end $$`.execute(db);
  for (const [event, rows] of [
    ["insert", "new"],
    ["delete", "old"],
  ] as const) {
    await sql`
      create trigger ${sql.id(`advisory_packages_count_${event}`)} after ${sql.raw(event)} on advisory_packages
      referencing ${sql.raw(rows)} table as ${sql.raw(`${rows}_packages`)}
      for each statement execute function ${sql.id(`arbor_count_advisory_packages_${event}`)}()`.execute(db);
  }
  await trigramIndex(db);
}

/**
 * The pg_trgm index, or none where the extension cannot be had. The extension is looked for
 * anywhere in the database (it installs once per database, into one schema) and created in
 * `public` if missing, so dropping one Arbor schema never drops another's operator class. A
 * failure is rolled back to a savepoint: the migration's transaction goes on.
 */
async function trigramIndex(db: Kysely<any>): Promise<void> {
  await sql`savepoint arbor_trigram`.execute(db);
  try {
    await sql`create extension if not exists pg_trgm schema public`.execute(db);
    const { rows } = await sql<{ schema: string }>`
      select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
    const schema = rows[0]?.schema ?? "public";
    await sql`create index advisories_search_trgm_idx on advisories using gin (search ${sql.id(schema, "gin_trgm_ops")})`.execute(db);
    await sql`release savepoint arbor_trigram`.execute(db);
  } catch {
    // Most often: permission denied to create extension "pg_trgm". `query` scans instead.
    await sql`rollback to savepoint arbor_trigram`.execute(db);
    await sql`release savepoint arbor_trigram`.execute(db);
  }
}

async function sqlite(db: Kysely<any>): Promise<void> {
  for (const [event, delta] of [
    ["insert", 1],
    ["delete", -1],
  ] as const) {
    await sql`
      create trigger ${sql.id(`advisories_count_${event}`)} after ${sql.raw(event)} on advisories begin
        insert into advisory_counts (key, delta) values ('', ${sql.raw(String(delta))});
      end`.execute(db);
  }
  // Row triggers: the package row just inserted is in the table, the one just deleted is not.
  const keys = (row: string) =>
    sql.join(
      keysOf(row).map((k) => sql`select ${k} as key`),
      sql` union all `,
    );
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

  await sql`create table advisory_texts (id integer primary key, uid text not null unique, search text not null)`.execute(db);
  await sql`create virtual table advisory_search
    using fts5(search, content = 'advisory_texts', content_rowid = 'id', tokenize = 'trigram')`.execute(db);
  await sql`create trigger advisories_text_insert after insert on advisories begin
      insert into advisory_texts (uid, search) values (new.uid, new.search);
    end`.execute(db);
  await sql`create trigger advisories_text_delete after delete on advisories begin
      delete from advisory_texts where uid = old.uid;
    end`.execute(db);
  await sql`create trigger advisories_text_update after update of search on advisories begin
      update advisory_texts set search = new.search where uid = new.uid;
    end`.execute(db);
  // The external-content table's own upkeep, as the FTS5 documentation gives it.
  await sql`create trigger advisory_texts_search_insert after insert on advisory_texts begin
      insert into advisory_search (rowid, search) values (new.id, new.search);
    end`.execute(db);
  await sql`create trigger advisory_texts_search_delete after delete on advisory_texts begin
      insert into advisory_search (advisory_search, rowid, search) values ('delete', old.id, old.search);
    end`.execute(db);
  await sql`create trigger advisory_texts_search_update after update on advisory_texts begin
      insert into advisory_search (advisory_search, rowid, search) values ('delete', old.id, old.search);
      insert into advisory_search (rowid, search) values (new.id, new.search);
    end`.execute(db);
  await sql`insert into advisory_texts (uid, search) select uid, search from advisories order by uid`.execute(db);
}
