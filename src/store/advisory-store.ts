/**
 * Advisories in `advisories`, with what the filters look up in `advisory_aliases` and
 * `advisory_packages`. A document is written whole or not at all: its row and its index rows go
 * in one transaction, and a newer version replaces all three. Counts and pages at the scale of
 * all of OSV are advisory-pages.ts's (migration 0022).
 */
import { sql, type CompiledQuery, type Expression, type SqlBool } from "kysely";
import {
  prepareAdvisory,
  replaces,
  type AdvisoryFilter,
  type AdvisoryRecord,
  type AdvisoryVersion,
  type CheckedPackage,
  type PreparedAdvisory,
} from "../domain/advisories.js";
import type { OsvDocument } from "../domain/osv.js";
import { deferAdvisorySchema, restoreAdvisorySchema } from "./advisory-deferred.js";
import { advisoryPages, countTrigrams, packageConditions, type AdvisoryPageOptions, type ReadFilter } from "./advisory-pages.js";
import { type AdvisoriesTable, type AdvisoryAliasesTable, type AdvisoryPackagesTable, type Executor } from "./tables.js";
import { inTransaction } from "./nested-transactions.js";
import { searchCondition, searchRowidsCondition, searchTest, type Engine } from "./dialect.js";
import { resourceTable } from "./resource-table.js";
import { guard } from "./translate-error.js";
import { preparable } from "./pg-prepared-statements.js";
import type { RowWindow } from "./row-window.js";

/** What writing one record did: it was new, it replaced an older version, or it was not newer. */
export type PutOutcome = "imported" | "updated" | "unchanged";

/**
 * What an import writes advisories through: the store itself, or a thread writing into the same
 * store (advisory-write-worker.ts).
 */
export interface AdvisoryWriter {
  /** put() of versions already prepared (prepareAdvisory). */
  putPrepared(prepared: readonly PreparedAdvisory[], time: number): Promise<PutOutcome[]>;
  /** Folds every key's kept count rows that have piled up (an import does, at its end). */
  foldCounts(): Promise<void>;
}

/** Advisories: global, keyed by their OSV id. */
export interface AdvisoryStore extends AdvisoryWriter {
  /**
   * Writes the versions that are new or have a newer `modified` than the stored version (an
   * earlier version of the same call counts as stored), in one transaction: the caller's when
   * the store runs in one. The outcome of each version, in order. `time` is the createTime of an
   * advisory new to the store; one replacing a stored version keeps that version's createTime,
   * as it is when Arbor first stored the advisory.
   */
  put(versions: readonly AdvisoryVersion[], time: number): Promise<PutOutcome[]>;
  /** The advisory with this id, or undefined. */
  get(uid: string): Promise<AdvisoryRecord | undefined>;
  /** The advisories matching filter, in the window's order (fields: uid, modified_time, published_time). */
  list(filter: AdvisoryFilter, window: RowWindow): Promise<AdvisoryRecord[]>;
  /** How many advisories match filter. */
  count(filter: AdvisoryFilter): Promise<number>;
  /** list and count of the same filter, reading what they share once. */
  page(filter: AdvisoryFilter, window: RowWindow): Promise<{ rows: AdvisoryRecord[]; total: number }>;
  /**
   * What a check of a batch of package versions evaluates: for each of these packages (exact
   * ecosystem and name, as the documents spell them) and each advisory naming it, the
   * advisory's CheckedPackage for it, in uid order.
   */
  ofPackages(packages: readonly PackageName[]): Promise<PackageAdvisory[]>;
  /** Which of these content hashes a stored advisory was imported from: documents an import passes over unread. */
  knownHashes(hashes: readonly string[]): Promise<Set<string>>;
  /**
   * Brings the planner's statistics of the advisory tables up to date after a bulk write (an
   * import does, once it has written many documents). PostgreSQL plans from them, and without
   * them takes 500 hashes looked up at once for most of the table (a scan per batch of a
   * re-import) and misjudges how often a query matches, which also chooses the word of a
   * `query` to look up (pgSearchPart); its autovacuum may be off or not yet round. SQLite:
   * counts the advisories of each trigram of the search index, from which a `query` chooses the
   * part of its text to look up (src/store/trigram-window.ts).
   */
  refreshStatistics(): Promise<void>;
  /**
   * Into a store holding no advisory: drops the secondary indexes, the kept counts' triggers and
   * the search index's, for a bulk import to build at its end (advisory-deferred.ts); whether it
   * did. The caller must call buildDeferred when it ends, however it ends.
   */
  deferIndexes(): Promise<boolean>;
  /** Builds whatever deferIndexes dropped, here or in another process that never reached its end; nothing when nothing was. */
  buildDeferred(): Promise<void>;
}

/** A package as OSV names it: its ecosystem (release included) and its name there. */
export interface PackageName {
  ecosystem: string;
  name: string;
}

/** One advisory as a check of one of its packages reads it. */
export interface PackageAdvisory extends PackageName {
  uid: string;
  checked: CheckedPackage;
}

/** Bound parameters per statement, well under SQLite's 32,766 and PostgreSQL's 65,535. */
const MAX_PARAMETERS = 8_000;

/** The advisory store over an executor. */
export function createAdvisoryStore(db: Executor, engine: Engine, options: AdvisoryPageOptions = {}): AdvisoryStore {
  const table = resourceTable(db, engine, {
    table: "advisories",
    toRecord: toAdvisory,
    matching: (filter: ReadFilter) => matching(engine, filter),
    sortColumns: { uid: "uid", modified_time: "modified_time", published_time: "published_time" },
  });
  const pages = advisoryPages(db, engine, table, options);
  const putPrepared = (prepared: readonly PreparedAdvisory[], time: number) =>
    prepared.length === 0 ? Promise.resolve([]) : guard(() => inTransaction(db, (tx) => putIn(tx, engine, prepared, time)));

  return {
    put: (versions, time) => putPrepared(versions.map(prepareAdvisory), time),
    putPrepared,
    get: table.get,
    list: pages.list,
    count: pages.count,
    page: pages.page,
    foldCounts: pages.foldCounts,
    refreshStatistics: async () => {
      if (engine === "postgres")
        await guard(() => sql`analyze advisories, advisory_aliases, advisory_packages, advisory_counts, advisory_texts`.execute(db));
      else await guard(() => countTrigrams(db));
    },

    deferIndexes: () => guard(() => deferAdvisorySchema(db, engine)),
    buildDeferred: () => guard(() => restoreAdvisorySchema(db, engine)),

    async knownHashes(hashes) {
      const known = new Set<string>();
      for (const some of chunked(hashes, 1)) {
        if (some.length === 0) continue;
        const rows = await guard(() => db.selectFrom("advisories").select("content_hash").where("content_hash", "in", some).execute());
        for (const row of rows) if (row.content_hash != null) known.add(row.content_hash);
      }
      return known;
    },

    async ofPackages(packages) {
      const found: PackageAdvisory[] = [];
      for (const some of chunked(packages, 2)) {
        if (some.length === 0) continue;
        // A row value against a VALUES list: one index seek per package, and a statement whose
        // depth does not grow with the batch (an OR per package would, past SQLite's limit).
        // Only the package rows are read: their `checked` JSON, never the whole documents.
        const pairs = sql.join(some.map((p) => sql`(${p.ecosystem}, ${p.name})`));
        const { rows } = await guard(() =>
          sql<Pick<AdvisoryPackagesTable, "advisory_uid" | "ecosystem" | "name" | "checked">>`
            select p.advisory_uid, p.ecosystem, p.name, p.checked from advisory_packages p
            where (p.ecosystem, p.name) in (values ${pairs})`.execute(db),
        );
        for (const row of rows) {
          if (row.checked === null) throw new Error(`advisory ${row.advisory_uid} has a package row without its checked JSON`);
          found.push({
            uid: row.advisory_uid,
            ecosystem: row.ecosystem,
            name: row.name,
            checked: JSON.parse(row.checked) as CheckedPackage,
          });
        }
      }
      return found.sort((a, b) => (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    },
  };
}

async function putIn(tx: Executor, engine: Engine, versions: readonly PreparedAdvisory[], time: number): Promise<PutOutcome[]> {
  const stored = new Map<string, { modifiedTime: number; createTime: number }>();
  for (const uids of chunked([...new Set(versions.map((r) => r.uid))], 1)) {
    const rows = await tx.selectFrom("advisories").select(["uid", "modified_time", "create_time"]).where("uid", "in", uids).execute();
    for (const row of rows) stored.set(row.uid, { modifiedTime: row.modified_time, createTime: row.create_time });
  }
  const latest = new Map(stored);
  const writes = new Map<string, PreparedAdvisory & { createTime: number }>();
  const outcomes = versions.map((version): PutOutcome => {
    const current = latest.get(version.uid);
    if (current !== undefined && !replaces(version, current)) return "unchanged";
    const record = { ...version, createTime: current?.createTime ?? time };
    latest.set(version.uid, record);
    writes.set(version.uid, record);
    return current === undefined ? "imported" : "updated";
  });
  // A newer version replaces the row and its index rows whole. The index rows are deleted by
  // name, not left to ON DELETE CASCADE: a bulk import writes with the foreign keys dropped
  // (advisory-deferred.ts), and a document met twice in it is replaced then.
  for (const uids of chunked(
    [...writes.keys()].filter((uid) => stored.has(uid)),
    1,
  )) {
    await tx.deleteFrom("advisory_packages").where("advisory_uid", "in", uids).execute();
    await tx.deleteFrom("advisory_aliases").where("advisory_uid", "in", uids).execute();
    await tx.deleteFrom("advisories").where("uid", "in", uids).execute();
  }
  const advisories: unknown[] = [];
  const aliases: unknown[] = [];
  const packages: unknown[] = [];
  for (const record of writes.values()) {
    const index = record.index;
    advisories.push(
      record.uid,
      record.modifiedTime,
      record.publishedTime,
      record.createTime,
      index.search,
      record.documentText,
      record.contentHash ?? null,
    );
    for (const alias of index.aliases) aliases.push(record.uid, alias);
    for (const p of index.packages) packages.push(record.uid, p.ecosystem, p.ecosystemBase, p.name, p.checked);
  }
  await insertRows(tx, engine, ADVISORY_ROWS, advisories);
  await insertRows(tx, engine, ALIAS_ROWS, aliases);
  await insertRows(tx, engine, PACKAGE_ROWS, packages);
  return outcomes;
}

/**
 * The conditions of a filter: ids and the index tables are index lookups, `query` the trigram
 * index, or with `walk` a test of each row's search text.
 */
function matching(engine: Engine, filter: ReadFilter): Expression<SqlBool>[] {
  const uid = sql.ref("advisories.uid");
  const all: Expression<SqlBool>[] = [];
  if (filter.ids !== undefined) all.push(sql<SqlBool>`${uid} in (${sql.join(filter.ids)})`);
  if (filter.aliases !== undefined) {
    all.push(sql<SqlBool>`${uid} in (select advisory_uid from advisory_aliases where alias in (${sql.join(filter.aliases)}))`);
  }
  const pkg = packageConditions(filter);
  if (pkg.length > 0) all.push(sql<SqlBool>`${uid} in (select advisory_uid from advisory_packages where ${sql.join(pkg, sql` and `)})`);
  if (filter.searchRowids !== undefined) all.push(searchRowidsCondition(filter.searchRowids));
  else if (filter.query !== undefined && filter.walk === true) all.push(searchTest(engine, filter.query));
  else if (filter.query !== undefined) all.push(searchCondition(engine, filter.query, filter.searchWindow));
  if (filter.modifiedSince !== undefined) all.push(sql<SqlBool>`advisories.modified_time >= ${filter.modifiedSince}`);
  return all;
}

/** Splits rows into statements of at most MAX_PARAMETERS bound values, `perRow` per row. */
function chunked<T>(rows: readonly T[], perRow: number): T[][] {
  const size = Math.max(1, Math.floor(MAX_PARAMETERS / perRow));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/** Rows per multi-row insert: the full statements, then the rest in halves. */
const INSERT_ROWS = 128;

/** A table's rows as putIn inserts them: its columns, in the order of each row's values. */
interface RowShape {
  table: "advisories" | "advisory_aliases" | "advisory_packages";
  columns: readonly string[];
}

const ADVISORY_COLUMNS: readonly (keyof AdvisoriesTable)[] = [
  "uid",
  "modified_time",
  "published_time",
  "create_time",
  "search",
  "document",
  "content_hash",
];
const ALIAS_COLUMNS: readonly (keyof AdvisoryAliasesTable)[] = ["advisory_uid", "alias"];
const PACKAGE_COLUMNS: readonly (keyof AdvisoryPackagesTable)[] = ["advisory_uid", "ecosystem", "ecosystem_base", "name", "checked"];
const ADVISORY_ROWS: RowShape = { table: "advisories", columns: ADVISORY_COLUMNS };
const ALIAS_ROWS: RowShape = { table: "advisory_aliases", columns: ALIAS_COLUMNS };
const PACKAGE_ROWS: RowShape = { table: "advisory_packages", columns: PACKAGE_COLUMNS };

/**
 * Inserts rows given as one flat list of values (shape.columns.length per row), in statements
 * of INSERT_ROWS rows and then of 64, 32, ... 1, so the statements an import prepares are a few
 * texts used again and again: the SQLite connection keeps its prepared statements (dialect.ts),
 * and one text per batch size kept hundreds of large ones, some hundred megabytes of a long
 * import. Each text is compiled once per engine, and PostgreSQL keeps it prepared: Kysely
 * building every insert from row objects was about a tenth of an import's writer thread.
 */
async function insertRows(tx: Executor, engine: Engine, shape: RowShape, values: readonly unknown[]): Promise<void> {
  const width = shape.columns.length;
  const rows = values.length / width;
  let at = 0;
  const run = async (size: number) => {
    const compiled = insertStatement(tx, engine, shape, size);
    await tx.executeQuery({ ...compiled, parameters: values.slice(at * width, (at + size) * width) });
    at += size;
  };
  while (rows - at >= INSERT_ROWS) await run(INSERT_ROWS);
  for (let size = INSERT_ROWS / 2; size >= 1; size /= 2) if (rows - at >= size) await run(size);
}

/** The insert of size rows of shape, compiled for engine on first use. */
function insertStatement(db: Executor, engine: Engine, shape: RowShape, size: number): CompiledQuery {
  const key = `${engine}:${shape.table}:${size}`;
  let compiled = INSERTS.get(key);
  if (compiled === undefined) {
    const row = sql`(${sql.join(shape.columns.map(() => null))})`;
    compiled = sql`insert into ${sql.table(shape.table)} (${sql.join(shape.columns.map((c) => sql.ref(c)))})
      values ${sql.join(Array.from({ length: size }, () => row))}`.compile(db);
    if (compiled.parameters.length !== size * shape.columns.length) throw new Error(`an insert of ${size} rows compiled wrong`);
    preparable(compiled.sql);
    INSERTS.set(key, compiled);
  }
  return compiled;
}

/** insertStatement's texts: at most 8 sizes of 3 tables per engine. */
const INSERTS = new Map<string, CompiledQuery>();

function toAdvisory(row: AdvisoriesTable): AdvisoryRecord {
  return {
    uid: row.uid,
    modifiedTime: row.modified_time,
    publishedTime: row.published_time,
    createTime: row.create_time,
    document: JSON.parse(row.document) as OsvDocument,
  };
}
