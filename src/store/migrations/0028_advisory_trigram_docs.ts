/**
 * 0028: SQLite keeps how many advisories hold each trigram of the search index (issue 19, item 2),
 * so a `query` can choose which part of its text to look up (src/store/trigram-window.ts). An
 * FTS5 phrase reads the lists of all of its trigrams: `package-2345` read those of `pac`, `age`
 * and the others that every package name holds, 20 ms for 81 matches, where the phrase `2345`
 * reads two short lists and its 289 advisories are each tested for the whole text in 0.4 ms.
 *
 * The counts are statistics, not kept in step: imports refresh them (`refreshStatistics`), and a
 * stale count only makes a query choose a slower read, never a different answer. Filled here from
 * the search index's vocabulary where the index stands (a bulk import that was stopped dropped
 * it; the build that restores it is followed by a refresh). PostgreSQL plans its pg_trgm reads
 * from its own statistics: nothing to do there.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine !== "sqlite") return;
  await sql`create table advisory_trigram_docs (term text primary key, docs integer not null) without rowid`.execute(db);
  const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'advisory_search'`.execute(db);
  if (Number(rows[0]?.n ?? 0) === 0) return;
  await sql`create virtual table temp.advisory_search_vocab_0028 using fts5vocab(main, advisory_search, row)`.execute(db);
  await sql`insert into advisory_trigram_docs (term, docs) select term, doc from temp.advisory_search_vocab_0028`.execute(db);
  // rolling-unsafe: the temporary table of this connection made just above, which no server reads
  await sql`drop table temp.advisory_search_vocab_0028`.execute(db);
}
