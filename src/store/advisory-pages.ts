/**
 * Pages and counts of advisories at the scale of all of OSV (issue 19, migration 0022), each
 * costing about what it returns rather than what it matches:
 *
 * - totalCount of no filter, of an `ecosystem`, a `package_name` or both is the sum of its kept
 *   count rows; of a `query` alone, the trigram candidates each tested exactly; of anything else,
 *   the matches, counted (ids and aliases are few by their bound).
 * - A page of `ecosystem` and/or `package_name` in uid order walks the (ecosystem, advisory_uid)
 *   or (name, advisory_uid) index from the cursor, one entry per advisory listed (more where an
 *   advisory affects several packages of the ecosystem), and reads those advisories.
 * - A page of `query` on SQLite first reads at most GATHER_BELOW matches off the trigram index:
 *   fewer, they are all, and the page reads and sorts them; more, it walks the list's order
 *   testing each row's text, which then finds a match at least every (advisories / GATHER_BELOW)
 *   rows. On PostgreSQL the planner makes that choice from the search column's statistics,
 *   except for a text pg_trgm finds no trigram in, which is probed as on SQLite by a pass over
 *   the table that stops at GATHER_BELOW matches, and never read off that index.
 * - On SQLite a `query` looks up the part of its text whose trigrams are rarest, each advisory
 *   found then tested for the whole text, where the trigrams' counts say that reads less than
 *   the whole text's phrase (trigram-window.ts).
 * - Everything else reads as before: index lookups of the filter, sorted.
 */
import { sql, type CompiledQuery, type Expression, type SqlBool } from "kysely";
import { advisoryCountKey, type AdvisoryFilter, type AdvisoryRecord } from "../domain/advisories.js";
import type { AdvisoriesTable, Executor } from "./tables.js";
import { foldAdvisoryCounts, pgIndexable, pgSearchProbe, searchCount, searchProbe, type Engine } from "./dialect.js";
import type { ResourceTable } from "./resource-table.js";
import { guard } from "./translate-error.js";
import type { RowWindow } from "./row-window.js";
import { inTransaction } from "./nested-transactions.js";
import { searchWindow, trigramsOf } from "./trigram-window.js";

/** A key's count rows are folded into one once a count reads more than this many. */
const FOLD_AT = 64;

/**
 * Below this many matches a `query` page gathers its matches; from it on, a walk in the list's
 * order finds 50 within 50 x advisories / GATHER_BELOW rows (5,000 at 500,000 advisories). Both
 * sides of the choice are then bounded by about the same number of rows.
 */
export const GATHER_BELOW = 5_000;

/**
 * From this many times GATHER_BELOW advisories of a `query`'s rarest trigram (SQLite's counts,
 * migration 0028), a page counts first and walks unless the count is below GATHER_BELOW after
 * all. The margin keeps queries whose counts only just allow many (`cve-2019-1`: 6,654 allowed,
 * 4,668 matches) on the probe, which then reads each match once for page and count.
 */
const MANY_FROM = 2;

/**
 * A filter with how the store reads it: `walk` tests `query` on each row in the list's order
 * rather than looking it up in the trigram index.
 */
export interface ReadFilter extends AdvisoryFilter {
  walk?: boolean;
  /** SQLite: the part of `query` to look up in the trigram index, each candidate then tested (trigram-window.ts). */
  searchWindow?: string;
  /** SQLite: every match of `query`, by the rowids of their `advisory_texts`, already found. */
  searchRowids?: readonly number[];
  /** PostgreSQL: every match of a `query` pg_trgm cannot narrow (pgIndexable), by uid, already found. */
  searchUids?: readonly string[];
}

/** What a probe of a `query` found: how many matches (at most gatherBelow), and the filter read by them when they are all. */
interface Probe {
  found: number;
  gathered: ReadFilter;
}

/** What the advisory store lists and counts with. */
export interface AdvisoryPages {
  list(filter: AdvisoryFilter, window: RowWindow): Promise<AdvisoryRecord[]>;
  count(filter: AdvisoryFilter): Promise<number>;
  /** list and count together: on SQLite a `query` whose matches are few is read off its index once for both. */
  page(filter: AdvisoryFilter, window: RowWindow): Promise<{ rows: AdvisoryRecord[]; total: number }>;
  foldCounts(): Promise<void>;
}

/** How pages choose their reads; tests lower the threshold to walk a small table. */
export interface AdvisoryPageOptions {
  gatherBelow?: number;
  /**
   * SQLite: runs a count statement elsewhere (search-count-thread.ts), so that a `query`'s count
   * of many matches runs beside its page's reads. A count it fails to give is counted here.
   */
  countAside?: (query: CompiledQuery) => Promise<number>;
}

/** The pages and counts of the advisories table. */
export function advisoryPages(
  db: Executor,
  engine: Engine,
  table: ResourceTable<"advisories", ReadFilter, AdvisoryRecord>,
  { gatherBelow = GATHER_BELOW, countAside }: AdvisoryPageOptions = {},
): AdvisoryPages {
  async function kept(key: string): Promise<number> {
    const { total, rows } = await guard(() =>
      db
        .selectFrom("advisory_counts")
        .select((eb) => [eb.fn.coalesce(eb.fn.sum<number>("delta"), eb.lit(0)).as("total"), eb.fn.countAll<number>().as("rows")])
        .where("key", "=", key)
        .executeTakeFirstOrThrow(),
    );
    if (Number(rows) > FOLD_AT && !db.isTransaction) {
      // The answer is right already; a fold that fails (a busy store) is left for a later count.
      await foldAdvisoryCounts(db, engine, sql<SqlBool>`key = ${key}`).catch(() => undefined);
    }
    return Number(total);
  }

  async function scalar(query: { execute(db: Executor): Promise<{ rows: { n: number | string }[] }> }): Promise<number> {
    const { rows } = await guard(() => query.execute(db));
    return Number(rows[0]?.n ?? 0);
  }

  /** A page of a package filter alone in uid order, off the index of its first column. */
  async function packagePage(filter: AdvisoryFilter, window: RowWindow): Promise<AdvisoryRecord[]> {
    const desc = window.order[0]?.desc === true;
    const direction = sql.raw(desc ? "desc" : "asc");
    const conditions = packageConditions(filter);
    const after = window.after?.[0];
    if (after !== undefined) conditions.push(sql<SqlBool>`advisory_packages.advisory_uid ${sql.raw(desc ? "<" : ">")} ${after}`);
    const { rows } = await guard(() =>
      sql<AdvisoriesTable>`
        select a.* from (
          select distinct advisory_uid from advisory_packages where ${sql.join(conditions, sql` and `)}
          order by advisory_uid ${direction} limit ${window.limit} offset ${window.offset}
        ) as k join advisories as a on a.uid = k.advisory_uid
        order by a.uid ${direction}`.execute(db),
    );
    return rows.map((row) => table.fromRow(row));
  }

  /**
   * Whether a page of filter probes its `query`: on SQLite always, on PostgreSQL where pg_trgm
   * cannot narrow it (its planner, guessing a third of the rows match, would walk the list's
   * order through the whole table for a text few hold). Ids and aliases are looked up first, as
   * few as they are bound to.
   */
  function probed(filter: ReadFilter): boolean {
    if (filter.query === undefined || filter.ids !== undefined || filter.aliases !== undefined) return false;
    return engine === "sqlite" || !pgIndexable(filter.query);
  }

  /**
   * At most gatherBelow matches of a `query`: on SQLite off the trigram index, on PostgreSQL by
   * one pass over the table at most; undefined where the filter is not probed.
   */
  async function probe(filter: ReadFilter): Promise<Probe | undefined> {
    if (!probed(filter)) return undefined;
    const text = filter.query ?? "";
    if (engine === "postgres") {
      const { rows } = await guard(() => pgSearchProbe(text, gatherBelow).execute(db));
      return { found: rows.length, gathered: { ...filter, searchUids: rows.map((r) => r.uid) } };
    }
    const { rows } = await guard(() => searchProbe(text, gatherBelow, filter.searchWindow).execute(db));
    return { found: rows.length, gathered: { ...filter, searchRowids: rows.map((r) => r.id) } };
  }

  /**
   * SQLite: filter with the part of its `query` to look up, chosen by the trigrams' counts, and
   * the most matches those counts allow (the advisories of the rarest trigram looked up), where
   * counts are known.
   */
  async function planned(filter: AdvisoryFilter): Promise<{ filter: ReadFilter; bound?: number }> {
    if (engine !== "sqlite" || filter.query === undefined) return { filter };
    const trigrams = [...new Set(trigramsOf(filter.query))];
    if (trigrams.length === 0) return { filter };
    const rows = await guard(() => db.selectFrom("advisory_trigram_docs").select(["term", "docs"]).where("term", "in", trigrams).execute());
    if (rows.length === 0) return { filter };
    const docs = new Map(rows.map((r) => [r.term, Number(r.docs)]));
    const window = searchWindow(filter.query, docs);
    const bound = Math.min(...trigramsOf(window ?? filter.query).map((t) => docs.get(t) ?? 0));
    return { filter: window === undefined ? filter : { ...filter, searchWindow: window }, bound };
  }

  /** A page of filter whose `query` was probed: by the probe's matches when they are all of them, else by a walk. */
  function probedPage(filter: ReadFilter, window: RowWindow, probe: Probe): Promise<AdvisoryRecord[]> {
    if (probe.found >= gatherBelow) return table.list({ ...filter, walk: true }, window);
    // Fewer: these are all of the query's matches, found once; the page reads them by key.
    return table.list(probe.gathered, window);
  }

  /** A page of a filter already planned. */
  async function listPlanned(filter: ReadFilter, window: RowWindow): Promise<AdvisoryRecord[]> {
    if (packagesOnly(filter) && window.order.length === 1 && window.order[0]?.field === "uid") return packagePage(filter, window);
    // PostgreSQL's planner chooses between the pg_trgm index and a walk in the list's order
    // from its statistics of the search column, as the probe does below for SQLite and for a
    // text pg_trgm cannot narrow.
    const probing = await probe(filter);
    return probing === undefined ? table.list(filter, window) : probedPage(filter, window, probing);
  }

  /** The count of a filter already planned. */
  async function countPlanned(filter: ReadFilter): Promise<number> {
    const key = advisoryCountKey(filter);
    if (key !== undefined) return kept(key);
    if (filter.query !== undefined && queryOnly(filter)) return scalar(searchCount(engine, filter.query, filter.searchWindow));
    return table.count(filter);
  }

  return {
    list: async (filter, window) => listPlanned((await planned(filter)).filter, window),

    async page(asked, window) {
      const { filter, bound } = await planned(asked);
      let total: number | undefined;
      const many = bound !== undefined && bound >= MANY_FROM * gatherBelow && probed(filter);
      if (many && countAside !== undefined && queryOnly(filter)) {
        // The counts allow many matches: their count starts in its own thread, and this one
        // probes and reads the page meanwhile. Fewer than gatherBelow after all, the probe found
        // them all and is their count.
        const counting = countAside(searchCount(engine, filter.query ?? "", filter.searchWindow).compile(db));
        counting.catch(() => undefined);
        const probing = (await probe(filter)) ?? { found: 0, gathered: filter };
        const rows = await probedPage(filter, window, probing);
        if (probing.found < gatherBelow) return { rows, total: probing.found };
        return { rows, total: await counting.catch(() => countPlanned(filter)) };
      }
      if (many) {
        // The counts allow many matches: the count, needed anyway, comes first and tells walking
        // from gathering. A probe would read its gatherBelow matches for nothing (2 ms of
        // `injection`'s page at 500,000 advisories).
        total = await countPlanned(filter);
        if (total >= gatherBelow) return { rows: await table.list({ ...filter, walk: true }, window), total };
      }
      const probing = await probe(filter);
      if (probing === undefined) {
        const [rows, counted] = await Promise.all([listPlanned(filter, window), countPlanned(filter)]);
        return { rows, total: counted };
      }
      if (total !== undefined) return { rows: await probedPage(filter, window, probing), total };
      if (probing.found >= gatherBelow) {
        const [rows, counted] = await Promise.all([probedPage(filter, window, probing), countPlanned(filter)]);
        return { rows, total: counted };
      }
      const rows = await probedPage(filter, window, probing);
      // The probe found all of the query's matches: the count reads them, not the index again.
      return { rows, total: queryOnly(filter) ? probing.found : await table.count(probing.gathered) };
    },

    count: async (filter) => countPlanned((await planned(filter)).filter),

    foldCounts: () =>
      guard(() => foldAdvisoryCounts(db, engine, sql<SqlBool>`key in (select key from advisory_counts group by key having count(*) > 1)`)),
  };
}

/**
 * SQLite: counts again the advisories of each trigram of the search index (migration 0028), from
 * its vocabulary: about 1 s at 500,000 advisories. Nothing while a bulk import has the index
 * dropped; the build that restores it is followed by a refresh.
 */
export async function countTrigrams(db: Executor): Promise<void> {
  await inTransaction(db, async (tx) => {
    const { rows } = await sql<{ n: number }>`select count(*) as n from sqlite_master where name = 'advisory_search'`.execute(tx);
    if (Number(rows[0]?.n ?? 0) === 0) return;
    await sql`create virtual table temp.advisory_search_vocab using fts5vocab(main, advisory_search, row)`.execute(tx);
    try {
      await sql`delete from advisory_trigram_docs`.execute(tx);
      await sql`insert into advisory_trigram_docs (term, docs) select term, doc from temp.advisory_search_vocab`.execute(tx);
    } finally {
      await sql`drop table temp.advisory_search_vocab`.execute(tx);
    }
  });
}

/** Whether a filter holds no condition besides its `query` (none at all, too). */
function queryOnly(filter: ReadFilter): boolean {
  const { query: _, searchWindow: __, ...rest } = filter;
  return Object.values(rest).every((v) => v === undefined);
}

/** Whether a filter is of the ecosystem and package name alone (at least one). */
function packagesOnly(filter: AdvisoryFilter): boolean {
  const { ecosystem, packageName, ...rest } = filter;
  return (ecosystem !== undefined || packageName !== undefined) && Object.values(rest).every((v) => v === undefined);
}

/** The conditions on an `advisory_packages` row of the ecosystem and package name filters. */
export function packageConditions(filter: AdvisoryFilter): Expression<SqlBool>[] {
  const pkg: Expression<SqlBool>[] = [];
  if (filter.ecosystem !== undefined) {
    // `Debian:12` names one release; `Debian` every release of it.
    const column = filter.ecosystem.includes(":") ? "ecosystem" : "ecosystem_base";
    pkg.push(sql<SqlBool>`${sql.ref(`advisory_packages.${column}`)} = ${filter.ecosystem}`);
  }
  if (filter.packageName !== undefined) pkg.push(sql<SqlBool>`advisory_packages.name = ${filter.packageName}`);
  return pkg;
}
