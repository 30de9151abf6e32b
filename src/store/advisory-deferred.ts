/**
 * A first bulk import of advisories builds the secondary indexes, the kept counts and the search
 * index at its end instead of row by row (issue 19, item 3; migration 0026). Row by row, every
 * batch's commit rewrites pages all over those indexes, more of them as they grow: at 500,000
 * documents most of a first import's time and of the 16 to 88 GB it wrote on SQLite. Built at the
 * end, each index is one sorted pass, the counts one group-by per kind of key, the search index
 * one rebuild.
 *
 * Only into a store holding no advisory (deferAdvisorySchema refuses otherwise), so what the
 * import's lists and counts would have been meanwhile is nothing anyway. The definitions of what
 * it drops are kept in `advisory_deferred_schema`, in the transaction that drops them, and
 * restoreAdvisorySchema builds them again from there: the import at its end (stopped or failed
 * too), or whoever opens the store or imports next, if the import never reached its end (killed).
 * Until then a reader sees the rows written so far with their primary keys only: a filtered list
 * reads the table, a count or `query` finds what the triggers counted and indexed (nothing).
 * Restoring takes one transaction per index and per foreign key, one for the counts and their
 * triggers, one for the search texts, their index and their triggers (on PostgreSQL two: the texts
 * and their triggers, then their index), so the write lock is never held for all of it. On
 * PostgreSQL the search texts and their index are restored on a second connection beside the rest.
 *
 * On PostgreSQL the foreign keys of `advisory_packages` and `advisory_aliases` go too, as
 * PostgreSQL's "Populating a Database" advises: each package or alias row inserted otherwise runs
 * a check that locks its advisory's row (about a fifth of the server's writing). Meanwhile no row
 * can lose its advisory through them: the store deletes an advisory's package and alias rows by
 * name before the advisory (advisory-store.ts), and each is added back, validated, at the end,
 * after deleting whatever rows name no advisory (what ON DELETE CASCADE would have done, should an
 * older Arbor have replaced an advisory meanwhile). SQLite checks a foreign key by a lookup of the
 * parent's primary key, and keeps its constraints in the table's definition: they stay. An Arbor
 * from before this deferral leaves the kept constraints be (it builds only the other kinds); the
 * next Arbor to open the store adds them back.
 */
import { sql } from "kysely";
import type { Engine } from "./dialect.js";
import type { AdvisoryDeferredSchemaTable, Executor } from "./tables.js";
import { inTransaction } from "./nested-transactions.js";

type Kind = AdvisoryDeferredSchemaTable["kind"];

/** What a bulk import drops, by name, and what building each again takes (those an engine lacks are passed over). */
const DEFERRED: Readonly<Record<string, Kind>> = {
  advisories_modified_time_uid_idx: "index",
  advisories_published_time_uid_idx: "index",
  advisory_aliases_alias_advisory_uid_idx: "index",
  advisory_packages_ecosystem_name_advisory_uid_idx: "index",
  advisory_packages_ecosystem_base_name_advisory_uid_idx: "index",
  advisory_packages_name_advisory_uid_idx: "index",
  advisory_packages_ecosystem_base_advisory_uid_idx: "index",
  advisory_packages_ecosystem_advisory_uid_idx: "index",
  // PostgreSQL's search index before migration 0031: a GIN index builds far faster whole than entry by entry.
  advisories_search_trgm_idx: "index",
  advisories_count_insert: "counts",
  advisories_count_delete: "counts",
  advisory_packages_count_insert: "counts",
  advisory_packages_count_delete: "counts",
  // SQLite's search texts and their FTS5 index (PostgreSQL's are the kind "search", above).
  advisories_text_insert: "texts",
  advisories_text_delete: "texts",
  advisories_text_update: "texts",
  advisory_texts_search_insert: "texts",
  advisory_texts_search_delete: "texts",
  advisory_texts_search_update: "texts",
  // PostgreSQL's search texts (migration 0031), their trigram index and their triggers: the texts
  // copied whole at the end, then the index built over them (kept by triggers, the index would take
  // each text entry by entry).
  advisory_texts_search_trgm_idx: "search",
  advisories_search_text_insert: "search",
  advisories_search_text_delete: "search",
  advisories_search_text_update: "search",
  // PostgreSQL's foreign keys (SQLite's are part of the table).
  advisory_packages_advisory_uid_fkey: "constraint",
  advisory_aliases_advisory_uid_fkey: "constraint",
};

/** The table of each deferred foreign key: its rows name an advisory by `advisory_uid`. */
const CONSTRAINED: Readonly<Record<string, "advisory_packages" | "advisory_aliases">> = {
  advisory_packages_advisory_uid_fkey: "advisory_packages",
  advisory_aliases_advisory_uid_fkey: "advisory_aliases",
};

/** A catalog entry: what the object is and how to make it again. */
interface Definition {
  name: string;
  type: "index" | "trigger" | "constraint";
  /** The table a PostgreSQL trigger or constraint is on (dropping it names it). */
  table: string;
  definition: string;
}

/**
 * Drops the deferred indexes and triggers, keeping their definitions, when the store holds no
 * advisory and nothing is deferred already; whether it did. The caller restores them at its end.
 */
export async function deferAdvisorySchema(db: Executor, engine: Engine): Promise<boolean> {
  return inTransaction(db, async (tx) => {
    const { rows } = await sql<{ busy: number }>`
      select (select count(*) from (select 1 from advisories limit 1) a)
        + (select count(*) from (select 1 from advisory_deferred_schema limit 1) d) as busy`.execute(tx);
    if (Number(rows[0]?.busy ?? 1) > 0) return false;
    const found = await definitions(tx, engine);
    if (found.length === 0) return false;
    await tx
      .insertInto("advisory_deferred_schema")
      .values(found.map((d) => ({ name: d.name, kind: DEFERRED[d.name] ?? "index", definition: d.definition })))
      .execute();
    for (const d of found) {
      if (d.type === "index") await sql`drop index ${sql.id(d.name)}`.execute(tx);
      else if (d.type === "constraint") await sql`alter table ${sql.id(d.table)} drop constraint ${sql.id(d.name)}`.execute(tx);
      else if (engine === "postgres") await sql`drop trigger ${sql.id(d.name)} on ${sql.id(d.table)}`.execute(tx);
      else await sql`drop trigger ${sql.id(d.name)}`.execute(tx);
    }
    return true;
  });
}

/**
 * Builds again whatever a bulk import deferred (nothing when it holds nothing): each index, then
 * PostgreSQL's foreign keys, then the kept counts from the rows with their triggers, then
 * SQLite's search texts and index with theirs. Safe to run beside others doing the same: each
 * step checks, in its transaction, that its objects are still deferred.
 */
export async function restoreAdvisorySchema(db: Executor, engine: Engine): Promise<void> {
  const deferred = await db.selectFrom("advisory_deferred_schema").select(["name", "kind"]).execute();
  if (deferred.length === 0) return;
  if (engine === "postgres") {
    // The search index on a connection of its own, beside the rest: PostgreSQL builds a GIN
    // index in one process, which leaves the other core idle (500,000 advisories, 2 cores: 26.3 s
    // for all nine indexes one after another, 19.6 s with the GIN beside the B-trees). Building
    // indexes of a table together is allowed (each holds a SHARE lock); what the rest adds on
    // `advisories` after its indexes (triggers, foreign keys) waits for the GIN's commit.
    const beside = (d: { name: string; kind: Kind }) => d.kind === "search" || BESIDE.has(d.name);
    const lanes = [deferred.filter(beside), deferred.filter((d) => !beside(d))];
    const settled = await Promise.allSettled(lanes.map((lane) => build(db, lane)));
    for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
    return;
  }
  // SQLite sorts an index's entries in memory up to its page cache's size and merges runs from
  // temporary files beyond it, with a helper thread when allowed. 500,000 advisories' largest
  // index (sqlite3 shell, peak RSS of the shell): 6.5 s and 138 MB with a 64 MB cache, 3.4 to 4.9 s
  // and 70 MB with 16 MB and two threads, 2.8 s and 37 MB with 8 MB and two threads.
  const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(db);
  await sql`pragma threads = 2`.execute(db);
  await sql`pragma cache_size = -8192`.execute(db);
  try {
    await build(db, deferred);
  } finally {
    await sql.raw(`pragma cache_size = ${Number(rows[0]?.cache_size ?? -2000)}`).execute(db);
    await sql`pragma threads = 0`.execute(db);
  }
}

/**
 * What PostgreSQL builds on a connection of its own, beside the rest (restoreAdvisorySchema): the
 * search texts with their index (kind "search"), or before migration 0031 the index on advisories.
 */
const BESIDE: ReadonlySet<string> = new Set(["advisories_search_trgm_idx"]);

/** Builds what `deferred` names: its indexes, then its foreign keys, then the counts and texts if it names them. */
async function build(db: Executor, deferred: readonly { name: string; kind: Kind }[]): Promise<void> {
  for (const { name } of deferred.filter((d) => d.kind === "index")) {
    await inTransaction(db, async (tx) => {
      const row = await tx.selectFrom("advisory_deferred_schema").select("definition").where("name", "=", name).executeTakeFirst();
      if (row === undefined) return;
      await sql.raw(row.definition).execute(tx);
      await tx.deleteFrom("advisory_deferred_schema").where("name", "=", name).execute();
    });
  }
  for (const { name } of deferred.filter((d) => d.kind === "constraint")) {
    await inTransaction(db, async (tx) => {
      const row = await tx.selectFrom("advisory_deferred_schema").select("definition").where("name", "=", name).executeTakeFirst();
      const table = CONSTRAINED[name];
      if (row === undefined || table === undefined) return;
      // Rows whose advisory is gone would fail the validation: they go, as the cascade would have taken them.
      await sql`delete from ${sql.id(table)} t where not exists (select 1 from advisories a where a.uid = t.advisory_uid)`.execute(tx);
      await sql.raw(row.definition).execute(tx);
      await tx.deleteFrom("advisory_deferred_schema").where("name", "=", name).execute();
    });
  }
  for (const kind of ["counts", "texts"] as const) {
    if (!deferred.some((d) => d.kind === kind)) continue;
    await inTransaction(db, async (tx) => {
      const rows = await tx.selectFrom("advisory_deferred_schema").select(["name", "definition"]).where("kind", "=", kind).execute();
      if (rows.length === 0) return;
      if (kind === "counts") await recount(tx);
      else await reindexTexts(tx);
      for (const row of rows) await sql.raw(row.definition).execute(tx);
      await tx.deleteFrom("advisory_deferred_schema").where("kind", "=", kind).execute();
    });
  }
  if (deferred.some((d) => d.kind === "search")) await restoreSearchTexts(db);
}

/**
 * PostgreSQL's search texts (migration 0031): copied from the advisories with their triggers made
 * in one transaction, which no write to `advisories` can come between (a row written after the
 * copy and before the triggers would be missed); then their trigram index, in a transaction of
 * its own, so `advisories` is held from writes for the copy (about 0.4 s at 500,000 advisories)
 * and not for the index (about 10 s), and the other lane's indexes of `advisories` build beside it.
 */
async function restoreSearchTexts(db: Executor): Promise<void> {
  const isIndex = (definition: string) => /^create (unique )?index/i.test(definition);
  await inTransaction(db, async (tx) => {
    const rows = await tx.selectFrom("advisory_deferred_schema").select(["name", "definition"]).where("kind", "=", "search").execute();
    const triggers = rows.filter((r) => !isIndex(r.definition));
    if (triggers.length === 0) return;
    await sql`lock table advisories in share row exclusive mode`.execute(tx);
    await sql`delete from advisory_texts`.execute(tx);
    await sql`insert into advisory_texts (uid, search) select uid, search from advisories`.execute(tx);
    for (const row of triggers) await sql.raw(row.definition).execute(tx);
    await tx
      .deleteFrom("advisory_deferred_schema")
      .where(
        "name",
        "in",
        triggers.map((r) => r.name),
      )
      .execute();
  });
  await inTransaction(db, async (tx) => {
    const rows = await tx.selectFrom("advisory_deferred_schema").select(["name", "definition"]).where("kind", "=", "search").execute();
    for (const row of rows) await sql.raw(row.definition).execute(tx);
    if (rows.length > 0) await tx.deleteFrom("advisory_deferred_schema").where("kind", "=", "search").execute();
  });
}

/**
 * The kept counts made again from the rows, as the triggers keep them (migrations 0022, 0025,
 * 0029): every advisory under '', and each advisory once under each ecosystem without its release
 * ('base:'), each ecosystem holding a release ('eco:'), each package name ('name:') and each
 * package of either kind of ecosystem ('pkg:') it names; and the row that says so (COUNTED_KINDS).
 */
async function recount(tx: Executor): Promise<void> {
  await tx.deleteFrom("advisory_counts").execute();
  await sql`insert into advisory_counts (key, delta) select '', count(*) from advisories`.execute(tx);
  await sql`insert into advisory_counts (key, delta)
    select 'base:' || ecosystem_base, count(distinct advisory_uid) from advisory_packages group by ecosystem_base`.execute(tx);
  await sql`insert into advisory_counts (key, delta)
    select 'eco:' || ecosystem, count(distinct advisory_uid) from advisory_packages where ecosystem like '%:%' group by ecosystem`.execute(
    tx,
  );
  await sql`insert into advisory_counts (key, delta)
    select 'name:' || name, count(distinct advisory_uid) from advisory_packages group by name`.execute(tx);
  await sql`insert into advisory_counts (key, delta)
    select 'pkg:' || length(ecosystem_base) || ':' || ecosystem_base || ':' || name, count(distinct advisory_uid)
    from advisory_packages group by ecosystem_base, name`.execute(tx);
  await sql`insert into advisory_counts (key, delta)
    select 'pkg:' || length(ecosystem) || ':' || ecosystem || ':' || name, count(distinct advisory_uid)
    from advisory_packages where ecosystem like '%:%' group by ecosystem, name`.execute(tx);
  await sql`insert into advisory_counts (key, delta) values (${COUNTED_KINDS}, 1)`.execute(tx);
}

/**
 * The row of advisory_counts that says the counts hold every kind of key this Arbor reads, the
 * packages' keys of migration 0029 the last (no filter's key can take this form: each starts
 * with '', 'base:', 'eco:', 'name:' or 'pkg:'). recount writes it, and only a recount removes
 * it (an Arbor's recount deletes every row first); a fold keeps it, as it keeps any key whose
 * deltas do not sum to 0. A later kind of key gets a mark of its own.
 */
const COUNTED_KINDS = "kinds:0029";

/**
 * Counts the advisories again where the kept counts lack the mark of every kind of key
 * (COUNTED_KINDS), and says whether it did. An Arbor from before migration 0029, importing into
 * an empty store that a newer Arbor had migrated (releases share a store during an upgrade, and
 * an older one serves on a newer schema: docs/operations.md), makes the counts anew at its
 * import's end without the packages' keys, and every total of an ecosystem with a package would
 * read 0 from then on. Called where a store is opened (createStore), so the next Arbor to open
 * it mends it; a store migrated before this mark existed is counted once, correctly either way.
 * Nothing is done while a bulk import has the schema deferred: its end counts anew.
 */
export async function completeAdvisoryCounts(db: Executor, engine: Engine): Promise<boolean> {
  if (await countsMarked(db)) return false;
  return inTransaction(db, async (tx) => {
    // One recount at a time, and no trigger adds a delta meanwhile that the recount would then
    // delete or count twice. An SQLite transaction holds the write lock from its start.
    if (engine === "postgres") await sql`lock table advisory_counts in share row exclusive mode`.execute(tx);
    if (await countsMarked(tx)) return false;
    if ((await tx.selectFrom("advisory_deferred_schema").select("name").limit(1).execute()).length > 0) return false;
    await recount(tx);
    return true;
  });
}

async function countsMarked(db: Executor): Promise<boolean> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from advisory_counts where key = ${COUNTED_KINDS}`.execute(db);
  return Number(rows[0]?.n ?? 0) > 0;
}

/** SQLite's search texts made again from the advisories, and their FTS5 index rebuilt from them whole. */
async function reindexTexts(tx: Executor): Promise<void> {
  await sql`delete from advisory_texts`.execute(tx);
  await sql`insert into advisory_texts (uid, search) select uid, search from advisories order by uid`.execute(tx);
  // FTS5 gathers the terms in memory and writes them out as a new segment each time they pass
  // its hash size, 1 MiB by default; the segments are then merged as they pile up. For the rebuild
  // only, a larger hash writes fewer segments to merge (500,000 advisories' 75 MB of search text,
  // sqlite3 shell: 16.2 s at 1 MiB and 15 MB of RSS, 10.8 s at 16 MiB and 35 MB, 9.5 s at 64 MiB
  // and 96 MB). The option is kept in the index's config table, so it is set back to FTS5's
  // default after. The size goes in as a literal: FTS5 takes only an integer, and a bound
  // JavaScript number is a real.
  await sql`insert into advisory_search (advisory_search, rank) values ('hashsize', ${sql.lit(REBUILD_HASH_BYTES)})`.execute(tx);
  await sql`insert into advisory_search (advisory_search) values ('rebuild')`.execute(tx);
  await sql`insert into advisory_search (advisory_search, rank) values ('hashsize', ${sql.lit(FTS5_HASH_BYTES)})`.execute(tx);
}

/** FTS5's in-memory term hash for a rebuild (reindexTexts), and FTS5's own default. */
const REBUILD_HASH_BYTES = 16 * 1024 * 1024;
const FTS5_HASH_BYTES = 1024 * 1024;

/** The deferred objects the store has, as its catalog defines them. */
async function definitions(tx: Executor, engine: Engine): Promise<Definition[]> {
  const names = Object.keys(DEFERRED);
  if (engine === "sqlite") {
    const { rows } = await sql<{ name: string; type: "index" | "trigger"; table: string; definition: string }>`
      select name, type, tbl_name as "table", sql as definition from sqlite_master
      where type in ('index', 'trigger') and name in (${sql.join(names)}) and sql is not null`.execute(tx);
    return rows;
  }
  const { rows } = await sql<Definition>`
    select indexname as name, 'index' as type, tablename as "table", indexdef as definition from pg_indexes
    where schemaname = current_schema() and indexname in (${sql.join(names)})
    union all
    select t.tgname, 'trigger', c.relname, pg_get_triggerdef(t.oid) from pg_trigger t
    join pg_class c on c.oid = t.tgrelid
    where c.relnamespace = current_schema()::regnamespace and not t.tgisinternal and t.tgname in (${sql.join(names)})
    union all
    select k.conname, 'constraint', c.relname,
      'alter table ' || quote_ident(c.relname) || ' add constraint ' || quote_ident(k.conname) || ' ' || pg_get_constraintdef(k.oid)
    from pg_constraint k join pg_class c on c.oid = k.conrelid
    where k.connamespace = current_schema()::regnamespace and k.contype = 'f' and k.conname in (${sql.join(names)})`.execute(tx);
  return rows;
}
