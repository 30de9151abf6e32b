/**
 * 0031: PostgreSQL's `query` reads a narrow table of the search texts, not `advisories` (issue 19,
 * item 2). pg_trgm's index is lossy, so every candidate's row is read and tested, and a row of
 * `advisories` carries the whole document: `injection`'s 65,677 matches read 43,754 pages of its
 * 551 MB at 500,000 advisories. `advisory_texts` holds each advisory's uid and search text alone
 * (97 MB), and the trigram index moves onto it (bench/findings.md, Item 2).
 *
 * Kept by statement-level triggers on `advisories` with transition tables, in the same transaction
 * as every insert, delete and update, whoever makes it (an older Arbor included, which still
 * searches `advisories.search` itself). The store writes an advisory anew by a delete and an
 * insert; an update of `search` (migration 0030's fold) is followed all the same. The names differ
 * from SQLite's text triggers on purpose: an older Arbor's bulk import defers those by name as
 * SQLite's kind of texts, which it could not build again here.
 *
 * The index: where `advisories_search_trgm_idx` exists (0022 made it, or an operator by hand), or
 * pg_trgm can be had, the same GIN on `advisory_texts.search`, and the old one dropped. Neither:
 * no index, and `query` scans the narrow table (a fifth of the pages of `advisories`). A bulk
 * import stopped with its indexes deferred (0026) has that old index's definition kept; it goes,
 * since the new index is built here over whatever rows there are.
 *
 * SQLite has had its own `advisory_texts` since 0022 (with an FTS5 index): nothing changes there.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates PostgreSQL's `advisory_texts`, fills it, keeps it by triggers and moves the trigram index onto it. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine !== "postgres") return;
  await sql`create table advisory_texts (uid text collate "C" primary key, search text not null)`.execute(db);
  // No update or delete of advisories while the texts are copied and their triggers made.
  await sql`lock table advisories in share row exclusive mode`.execute(db);
  await sql`insert into advisory_texts (uid, search) select uid, search from advisories`.execute(db);

  await sql`
    create function arbor_advisory_texts_insert() returns trigger language plpgsql
    set search_path from current as $$
    begin
      insert into advisory_texts (uid, search) select uid, search from new_advisories;
      return null;
    end $$`.execute(db);
  await sql`
    create function arbor_advisory_texts_delete() returns trigger language plpgsql
    set search_path from current as $$
    begin
      delete from advisory_texts t using old_advisories o where t.uid = o.uid;
      return null;
    end $$`.execute(db);
  // A transition table cannot go with a column list (`update of search`): every update is seen,
  // and only a changed text written. The uid is the key: the store never changes it.
  await sql`
    create function arbor_advisory_texts_update() returns trigger language plpgsql
    set search_path from current as $$
    begin
      update advisory_texts t set search = n.search from new_advisories n where t.uid = n.uid and t.search <> n.search;
      return null;
    end $$`.execute(db);
  for (const [event, rows] of [
    ["insert", "new"],
    ["delete", "old"],
    ["update", "new"],
  ] as const) {
    await sql`
      create trigger ${sql.id(`advisories_search_text_${event}`)} after ${sql.raw(event)} on advisories
      referencing ${sql.raw(rows)} table as ${sql.raw(`${rows}_advisories`)}
      for each statement execute function ${sql.id(`arbor_advisory_texts_${event}`)}()`.execute(db);
  }

  await sql`delete from advisory_deferred_schema where name = 'advisories_search_trgm_idx'`.execute(db);
  const { rows } = await sql<{ n: number | string }>`
    select count(*) as n from pg_indexes where schemaname = current_schema() and indexname = 'advisories_search_trgm_idx'`.execute(db);
  const had = Number(rows[0]?.n ?? 0) > 0;
  // A failure (most often: permission denied to create extension "pg_trgm") is rolled back to a
  // savepoint, and the migration goes on without the index, as 0022 did.
  await sql`savepoint arbor_texts_trigram`.execute(db);
  try {
    if (!had) await sql`create extension if not exists pg_trgm schema public`.execute(db);
    const found = await sql<{ schema: string }>`
      select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
    const schema = found.rows[0]?.schema ?? "public";
    await sql`create index advisory_texts_search_trgm_idx on advisory_texts using gin (search ${sql.id(schema, "gin_trgm_ops")})`.execute(
      db,
    );
    await sql`release savepoint arbor_texts_trigram`.execute(db);
  } catch {
    await sql`rollback to savepoint arbor_texts_trigram`.execute(db);
    await sql`release savepoint arbor_texts_trigram`.execute(db);
  }
  // Not a shape an older server reads, only an index it searches with: a server from before this
  // migration answers `query` by reading `advisories` whole while the releases roll
  // (docs/operations.md, Upgrades). Kept, it would be a second trigram index for every write.
  await sql`drop index if exists advisories_search_trgm_idx`.execute(db);
}
