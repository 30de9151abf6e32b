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
 *   testing each row's text, which finds a match every (advisories / GATHER_BELOW) rows where
 *   matches lie evenly. They often do not (a text that is part of an id is held by one stretch
 *   of uids), so the walk stops after WALK_ROWS rows and the page gathers every match instead:
 *   where its count is still to make, one read of the matches gives both (ResourceTable.pageOnce).
 * - A page of `query` on PostgreSQL reads its matches once, their uid and sort columns set
 *   aside, for both its count and its page (ResourceTable.pageOnce): the planner, which guesses
 *   how many rows hold a text but not where they lie, walked the list's order through 400,000
 *   rows for `rustsec` or `ubuntu`, and pg_trgm's index read itself whole for a text with no
 *   trigram in it (`%`); each 1.3 to 4 s at 500,000 advisories (findings, "A query's worst case").
 *   Only where the planner guesses the matches dense enough that WALK_ROWS rows of the list's
 *   order hold the page (`injection`) does it walk them first, with that budget, and count
 *   after; a walk that comes up short reads the matches once after all.
 * - On SQLite a `query` looks up the part of its text whose trigrams are rarest, each advisory
 *   found then tested for the whole text, where the trigrams' counts say that reads less than
 *   the whole text's phrase (trigram-window.ts). On PostgreSQL, which keeps no such counts, the
 *   planner's guess of each word of the text chooses the same way (pgSearchPart).
 * - Everything else reads as before: index lookups of the filter, sorted.
 */
import { sql, type CompiledQuery, type Expression, type SqlBool } from "kysely";
import { advisoryCountKey, type AdvisoryFilter, type AdvisoryRecord } from "../domain/advisories.js";
import type { AdvisoriesTable, Executor } from "./tables.js";
import { foldAdvisoryCounts, pgSearchUids, searchCount, searchProbe, type Engine } from "./dialect.js";
import type { ResourceTable } from "./resource-table.js";
import { guard } from "./translate-error.js";
import type { RowWindow } from "./row-window.js";
import { inTransaction } from "./nested-transactions.js";
import { pgParts, pgSearchPart, searchWindow, trigramsOf } from "./trigram-window.js";

/** A key's count rows are folded into one once a count reads more than this many. */
const FOLD_AT = 64;

/**
 * SQLite: below this many matches a `query` page gathers its matches; from it on, a walk in the
 * list's order finds 50 within 50 x advisories / GATHER_BELOW rows (5,000 at 500,000 advisories)
 * where the matches lie evenly in that order, and WALK_ROWS bounds it where they do not.
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
 * A filter with how the store reads it: `walk` tests `query` on each row's own search text rather
 * than looking it up in the trigram index (searchTest): for a walk in the list's order, and on
 * PostgreSQL for the planner's guess of a filter's rows (estimates, planned and never run), which
 * it makes of LIKE on `advisories.search` from that column's statistics; its guess of the lookup
 * in `advisory_texts` that a read makes is of a semi-join, not of the text's own selectivity.
 */
export interface ReadFilter extends AdvisoryFilter {
  walk?: boolean;
  /** The part of `query` to look up in the trigram index, each candidate then tested (trigram-window.ts). */
  searchWindow?: string;
  /** SQLite: every match of `query`, by the rowids of their `advisory_texts`, already found. */
  searchRowids?: readonly number[];
}

/** What the advisory store lists and counts with. */
export interface AdvisoryPages {
  list(filter: AdvisoryFilter, window: RowWindow): Promise<AdvisoryRecord[]>;
  count(filter: AdvisoryFilter): Promise<number>;
  /** list and count together: on SQLite a `query` whose matches are few is read off its index once for both. */
  page(filter: AdvisoryFilter, window: RowWindow): Promise<{ rows: AdvisoryRecord[]; total: number }>;
  foldCounts(): Promise<void>;
}

/**
 * The most rows a walk reads before it gives up for a gather. A text held by one advisory in
 * forty fills a page of 50 within it, and a walk reads a row in 4 to 6 µs (10 ms at most here,
 * 500,000 advisories). Matches seldom lie evenly in the list's order: a text that is part of an
 * id (`rustsec`, `ubuntu`, `go`) is held by the advisories of one stretch of uids, and a walk in
 * uid order read 400,000 rows to reach them (1.7 to 2.5 s; findings, "A query's worst case").
 * A larger budget costs more where it fails: with 10,000 rows, PostgreSQL's `cve-2019-1` (its
 * first 50 matches 16,000 rows in) took 280 ms against 200 ms.
 */
export const WALK_ROWS = 2_000;

/**
 * PostgreSQL: a page walks only where the planner's guesses put at least this many times the
 * rows it needs among the rows it may walk. Its guess at 500,000 advisories puts 5,044 matches of
 * `cve-2019-1` (one in a hundred), 20 in a walk of 2,000 rows: that walk could not fill a page
 * of 50 even where the matches lay evenly, and made the page 240 to 245 ms against 195 to 226
 * without it (findings, "A query's worst case"). Not more than once: the guesses are rough
 * (`use-after-free`'s 24,240 matches were guessed 15,000 to 35,000 by successive ANALYZEs), a
 * walk that fails costs about 10 ms, and one that fills its page saves the count a materialized
 * read of every match.
 */
export const WALK_FILL = 1;

/** How pages choose their reads; tests lower the thresholds to walk and gather a small table. */
export interface AdvisoryPageOptions {
  gatherBelow?: number;
  walkRows?: number;
  /** PostgreSQL: WALK_FILL; 0 walks wherever the planner guesses gatherBelow matches or more. */
  walkFill?: number;
  /**
   * SQLite: runs a count statement elsewhere (search-count-thread.ts), so that a `query`'s count
   * of many matches runs beside its page's reads. A count it fails to give is counted here.
   */
  countAside?: (query: CompiledQuery) => Promise<number>;
  /** PostgreSQL: pgSearchPart; tests make each part the one looked up in turn. */
  choosePart?: (text: string, estimates: ReadonlyMap<string, number>) => string | undefined;
}

/** The pages and counts of the advisories table. */
export function advisoryPages(
  db: Executor,
  engine: Engine,
  table: ResourceTable<"advisories", ReadFilter, AdvisoryRecord>,
  options: AdvisoryPageOptions = {},
): AdvisoryPages {
  const { gatherBelow = GATHER_BELOW, walkRows = WALK_ROWS, walkFill = WALK_FILL, countAside, choosePart = pgSearchPart } = options;

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

  /** Whether a page of filter probes its `query` (SQLite; ids and aliases are looked up first, as few as they are bound to). */
  function probed(filter: ReadFilter): boolean {
    return engine === "sqlite" && filter.query !== undefined && filter.ids === undefined && filter.aliases === undefined;
  }

  /** SQLite: at most gatherBelow matches of a `query` off the trigram index, or undefined where the filter is not probed. */
  async function probe(filter: ReadFilter): Promise<number[] | undefined> {
    if (!probed(filter)) return undefined;
    const { rows } = await guard(() => searchProbe(filter.query ?? "", gatherBelow, filter.searchWindow).execute(db));
    return rows.map((r) => r.id);
  }

  /**
   * SQLite: filter with the part of its `query` to look up, chosen by the trigrams' counts, and
   * the most matches those counts allow (the advisories of the rarest trigram looked up), where
   * counts are known.
   */
  async function planned(filter: AdvisoryFilter): Promise<{ filter: ReadFilter; bound?: number }> {
    if (filter.query === undefined) return { filter };
    if (engine === "postgres") return { filter: await pgPlanned(filter, filter.query) };
    const trigrams = [...new Set(trigramsOf(filter.query))];
    if (trigrams.length === 0) return { filter };
    const rows = await guard(() => db.selectFrom("advisory_trigram_docs").select(["term", "docs"]).where("term", "in", trigrams).execute());
    if (rows.length === 0) return { filter };
    const docs = new Map(rows.map((r) => [r.term, Number(r.docs)]));
    const window = searchWindow(filter.query, docs);
    const bound = Math.min(...trigramsOf(window ?? filter.query).map((t) => docs.get(t) ?? 0));
    return { filter: window === undefined ? filter : { ...filter, searchWindow: window }, bound };
  }

  /**
   * PostgreSQL: filter with the part of its `query` to look up, where the planner's guesses of
   * the text's parts choose one (pgSearchPart): one `EXPLAIN` of them all, planned and not run.
   * Not where ids or aliases bound the matches to a few lookups already.
   */
  async function pgPlanned(filter: AdvisoryFilter, text: string): Promise<ReadFilter> {
    const parts = pgParts(text);
    if (parts.length === 0 || filter.ids !== undefined || filter.aliases !== undefined) return filter;
    const guesses = await table.estimates(parts.map((p) => ({ query: p, walk: true })));
    const part = choosePart(text, new Map(parts.map((p, i) => [p, guesses[i] ?? 0])));
    return part === undefined || !text.includes(part) ? filter : { ...filter, searchWindow: part };
  }

  /**
   * A page of a `query` with many matches: a walk of the list's order testing each row's text,
   * which fills a page where they are dense, for at most walkRows rows; where those held too few
   * and the list goes on, every match is gathered instead (findings, "A query's worst case").
   */
  async function walkPage(filter: ReadFilter, window: RowWindow): Promise<AdvisoryRecord[]> {
    return (await walked(filter, window)) ?? table.list(filter, window);
  }

  /**
   * The page a walk with its budget finds, or undefined where its rows held too few matches and
   * the list goes on. The walked rows are a subquery, and the text is tested on each of them
   * (searchTest), not looked up in the index: both engines' own conditions look the matches up
   * elsewhere (SQLite's FTS5 index, PostgreSQL's `advisory_texts`), which a walk would read whole.
   */
  async function walked(filter: ReadFilter, window: RowWindow): Promise<AdvisoryRecord[] | undefined> {
    const { query, searchWindow: _, ...among } = filter;
    const test: ReadFilter = { query, walk: true };
    const rows = await table.list(test, window, { walk: { among, rows: walkRows } });
    if (rows.length >= window.limit) return rows;
    const beyond = await table.listSortKeys(among, { order: window.order, after: window.after, offset: walkRows, limit: 1 });
    return beyond.length === 0 ? rows : undefined;
  }

  /**
   * PostgreSQL: a page of a `query` and its count. Where the planner guesses few matches, one
   * read of them gives both (pageOnce). Where it guesses many, a walk with its budget first,
   * which fills the page in a few hundred rows where they lie evenly (`injection`), then the
   * count; where the walk comes up short, one read of every match gives both after all. (The
   * count beside the walk would read the matches twice at once where the walk fails: `debian`
   * took half again as long.)
   */
  async function pgQueryPage(filter: ReadFilter, window: RowWindow): Promise<{ rows: AdvisoryRecord[]; total: number }> {
    return afterWalk(await pgWalked(filter, window), filter, window);
  }

  /** The page a walk found, and the count; where the walk came up short (undefined), one read of every match for both. */
  async function afterWalk(
    rows: AdvisoryRecord[] | undefined,
    filter: ReadFilter,
    window: RowWindow,
  ): Promise<{ rows: AdvisoryRecord[]; total: number }> {
    return rows === undefined ? readOnce(filter, window) : { rows, total: await countPlanned(filter) };
  }

  /**
   * One read of every match for page and count (ResourceTable.pageOnce). On PostgreSQL a `query`
   * alone in uid order reads its matches' uids off `advisory_texts` alone (pgSearchUids).
   */
  function readOnce(filter: ReadFilter, window: RowWindow): Promise<{ rows: AdvisoryRecord[]; total: number }> {
    const byUid = window.order.every((k) => k.field === "uid");
    if (engine === "postgres" && filter.query !== undefined && queryOnly(filter) && byUid) {
      return table.pageOnce(filter, window, pgSearchUids(filter.query, filter.searchWindow));
    }
    return table.pageOnce(filter, window);
  }

  /**
   * PostgreSQL: the page of a walk where the planner guesses many matches, and enough of them
   * among the rows a walk may read to fill the page (walkFill times); undefined where it guesses
   * fewer or the walk came up short.
   */
  async function pgWalked(filter: ReadFilter, window: RowWindow): Promise<AdvisoryRecord[] | undefined> {
    const { query: _, searchWindow: __, ...among } = filter;
    // The guess of the whole text's matches, not of its part's read.
    const whole: ReadFilter = { ...filter, searchWindow: undefined, walk: true };
    const [matches = 0, rows = 0] = await table.estimates(walkFill > 0 ? [whole, among] : [whole]);
    const dense = matches * walkRows >= walkFill * (window.offset + window.limit) * rows;
    return matches >= gatherBelow && dense ? walked(filter, window) : undefined;
  }

  /** A page of filter whose `query` was probed: by the probe's matches when they are all of them, else by a walk. */
  function probedPage(filter: ReadFilter, window: RowWindow, rowids: number[]): Promise<AdvisoryRecord[]> {
    if (rowids.length >= gatherBelow) return walkPage(filter, window);
    // Fewer: these are all of the query's matches, found once; the page reads them by rowid.
    return table.list({ ...filter, searchRowids: rowids }, window);
  }

  /** A page of a filter already planned. */
  async function listPlanned(filter: ReadFilter, window: RowWindow): Promise<AdvisoryRecord[]> {
    if (packagesOnly(filter) && window.order.length === 1 && window.order[0]?.field === "uid") return packagePage(filter, window);
    if (engine === "postgres" && filter.query !== undefined) {
      // As pgQueryPage, with no count to make.
      return (await pgWalked(filter, window)) ?? (await readOnce(filter, window)).rows;
    }
    const rowids = await probe(filter);
    return rowids === undefined ? table.list(filter, window) : probedPage(filter, window, rowids);
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
        const rowids = (await probe(filter)) ?? [];
        const rows = await probedPage(filter, window, rowids);
        if (rowids.length < gatherBelow) return { rows, total: rowids.length };
        return { rows, total: await counting.catch(() => countPlanned(filter)) };
      }
      if (many) {
        // The counts allow many matches: the count, needed anyway, comes first and tells walking
        // from gathering. A probe would read its gatherBelow matches for nothing (2 ms of
        // `injection`'s page at 500,000 advisories).
        total = await countPlanned(filter);
        if (total >= gatherBelow) return { rows: await walkPage(filter, window), total };
      }
      if (engine === "postgres" && filter.query !== undefined) return pgQueryPage(filter, window);
      if (probed(filter) && trigramsOf(filter.query ?? "").length === 0) {
        // No trigram to look the text up by: the probe would be a pass of its own over the
        // table's texts, to 5,000 matches (most of the table for `go`, whose matches lie in one
        // stretch). A walk fills the page where they lie densely (`a`); elsewhere one pass
        // gives both page and count.
        return afterWalk(await walked(filter, window), filter, window);
      }
      const rowids = await probe(filter);
      if (rowids === undefined) {
        const [rows, counted] = await Promise.all([listPlanned(filter, window), countPlanned(filter)]);
        return { rows, total: counted };
      }
      if (total === undefined && rowids.length >= gatherBelow) {
        // Many matches and no count yet: a walk, then the count; where the walk comes up short
        // (the matches in one stretch of uids), one read of every match for both, rather than a
        // gather and a count that each read them.
        return afterWalk(await walked(filter, window), filter, window);
      }
      const rows = await probedPage(filter, window, rowids);
      if (total !== undefined) return { rows, total };
      // The probe found all of the query's matches: the count reads them, not the index again.
      return { rows, total: queryOnly(filter) ? rowids.length : await table.count({ ...filter, searchRowids: rowids }) };
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
