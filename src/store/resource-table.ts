/**
 * The statements every resource table shares, by its `uid` column: insert, get, update, delete,
 * and list and count under a filter in a keyset window. A store adds its own rules, the mapping
 * between its rows and records, and what each constraint violation means to it.
 */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import { alreadyExists, notFound, type ApiError } from "../domain/errors.js";
import { compiledOnce, runPrepared } from "./compiled-query.js";
import type { Engine } from "./dialect.js";
import { uidKeys, uidSet } from "./hierarchy-filter.js";
import { type Database, type Executor } from "./tables.js";
import { recoverable } from "./nested-transactions.js";
import { applyWindow } from "./row-window.js";
import { guard, type Violations } from "./translate-error.js";
import type { RowWindow } from "./row-window.js";

/** A table whose rows are keyed by a `uid` column. */
export type Table = { [T in keyof Database]: Database[T] extends { uid: string } ? T : never }[keyof Database];

/** The sort columns of a resource with a name (DESIGN 1.4), by canonical field name. */
export const NAMED_SORT_COLUMNS = { name: "name", uid: "uid", create_time: "create_time", update_time: "update_time" } as const;

/** What a store tells the shared statements about its table. */
export interface TableSpec<T extends Table, F, R> {
  table: T;
  /** The record a row holds. */
  toRecord(row: Database[T]): R;
  /** The conditions (ANDed) a row must meet to match a list filter. */
  matching(filter: F): Expression<SqlBool>[];
  /** The column of each field the resource sorts by, by canonical field name. */
  sortColumns: Readonly<Record<string, keyof Database[T] & string>>;
}

/**
 * How a list reads its rows, where the store chooses: a walk with a budget, the first `rows` rows
 * after the window's cursor, in its order, that meet `among`, each tested for the list's filter.
 * The page holds the matches among them.
 */
export interface ListRead<F> {
  walk: { among: F; rows: number };
}

/** What a write may add: what its violations mean, and a condition the row must also meet. */
export interface WriteOptions {
  violations?: Violations;
  /**
   * The statement runs under recoverable(), so its failure leaves a surrounding transaction
   * usable: for violations whose meaning looks something up (which parent is missing), and for
   * callers that go on after a violation (v1's create-or-update of a repo).
   */
  survivable?: boolean;
  where?: Expression<SqlBool>;
}

/** A node of PostgreSQL's `EXPLAIN (format json)`: what the planner guesses, and its children. */
interface PlanNode {
  "Node Type": string;
  "Plan Rows": number;
  Plans?: PlanNode[];
}

/** The shared statements over one table. */
export interface ResourceTable<T extends Table, F, R> {
  /** Inserts a row. */
  insert(row: Database[T], options?: WriteOptions): Promise<void>;
  /** The record with this uid, or undefined. */
  get(uid: string): Promise<R | undefined>;
  /** The records among uids that exist, in uid order. */
  getMany(uids: readonly string[]): Promise<R[]>;
  /**
   * Sets the columns given a value (undefined leaves one alone, null sets null); the record
   * after, or undefined when no row with uid meets options.where.
   */
  update(uid: string, set: Partial<Database[T]>, options?: WriteOptions): Promise<R | undefined>;
  /** Deletes the row; false when no row with uid meets options.where. */
  delete(uid: string, options?: WriteOptions): Promise<boolean>;
  /**
   * The record, its row held until the surrounding transaction ends, so a read-modify-write there
   * cannot lose a concurrent one; undefined when there is none. The hold is a write of nothing to
   * `column` (an ordinary column, not a key): PostgreSQL then holds the row's lock, and SQLite's
   * IMMEDIATE transaction already holds the database's.
   */
  lock(uid: string, column: keyof Database[T] & string): Promise<R | undefined>;
  /** The records matching filter, in the window's order; read says how, where the store chooses. */
  list(filter: F, window: RowWindow, read?: ListRead<F>): Promise<R[]>;
  /**
   * Of the rows matching filter, in the window's order, only `uid` and the columns the window
   * sorts by, as the engine returns them: an index of the order then holds all the read needs.
   */
  listSortKeys(filter: F, window: RowWindow): Promise<Record<string, unknown>[]>;
  /**
   * A page of the rows matching filter and how many match, from one read of the matches (their
   * uid and sort columns, kept aside for the statement), whatever their number or where they lie
   * in the window's order: for a filter whose matches the engine cannot place in that order.
   * matches, where given, reads them instead of the table's rows matching filter: a statement
   * returning those rows' uid and sort columns (one row each), where another table holds them.
   */
  pageOnce(filter: F, window: RowWindow, matches?: RawBuilder<unknown>): Promise<{ rows: R[]; total: number }>;
  /**
   * PostgreSQL: how many rows the planner guesses match each filter (EXPLAIN: planned, not run),
   * all planned in one statement (one connection, one round trip).
   */
  estimates(filters: readonly F[]): Promise<number[]>;
  /** How many rows match filter. */
  count(filter: F): Promise<number>;
  /** The record a row of the table (read by a statement of the store's own) holds. */
  fromRow(row: unknown): R;
}

/**
 * Lookups of up to this many uids (a page's rows, a group's ancestors) are prepared statements on
 * PostgreSQL: the uids padded to the next power of two by repeating the last, so nine texts a
 * table serve every count. SQLite takes any number as one parameter (uidSet).
 */
const MAX_PREPARED_UIDS = 256;

/** uids, the last repeated up to the next power of two (an `in` list matches each row once). */
function padded(uids: readonly string[]): readonly string[] {
  const size = 2 ** Math.ceil(Math.log2(uids.length));
  return size === uids.length ? uids : [...uids, ...Array<string>(size - uids.length).fill(uids[uids.length - 1] as string)];
}

/** The shared statements over spec's table, run on db. */
export function resourceTable<T extends Table, F, R>(db: Executor, engine: Engine, spec: TableSpec<T, F, R>): ResourceTable<T, F, R> {
  // The SQL is the same for every table; the spec's types keep each store's rows right.
  const loose = untyped(db);
  const name: string = spec.table;
  const toRecord = (row: unknown) => spec.toRecord(row as Database[T]);
  const byUid = (uid: string, where?: Expression<SqlBool>) => (eb: ExpressionBuilder<LooseTables, string>) =>
    eb.and(where === undefined ? [eb("uid", "=", uid)] : [eb("uid", "=", uid), where]);
  const write = <X>(statement: () => Promise<X>, { violations, survivable }: WriteOptions) =>
    guard(survivable === true ? () => recoverable(db, statement) : statement, violations);
  const columnOf = (field: string): string => {
    const column = spec.sortColumns[field];
    if (column === undefined) throw new RangeError(`${spec.table} are not sortable by ${field}`);
    return column;
  };
  /** The table's rows that match filter, their columns still to choose. */
  const matchingRows = (filter: F) => loose.selectFrom(name).where((eb) => eb.and(spec.matching(filter)));
  /** `uid` and the columns window sorts by: all a read of the order's index needs. */
  const sortKeyColumns = (window: RowWindow) => [...new Set(["uid", ...window.order.map((k) => columnOf(k.field))])];
  /** PostgreSQL: the planner's plan (EXPLAIN: planned, not run) of the rows matching filters, one after another. */
  const planOf = async (filters: readonly F[]): Promise<PlanNode> => {
    if (engine !== "postgres") throw new Error("estimate is PostgreSQL's");
    const [first, ...rest] = filters.map((f) => matchingRows(f).select(sql<number>`1`.as("one")));
    if (first === undefined) throw new Error("no filter to plan");
    const query = rest.reduce((all, q) => all.unionAll(q), first).compile();
    const { rows } = await guard(() =>
      db.executeQuery<{ "QUERY PLAN": [{ Plan: PlanNode }] }>({ ...query, sql: `explain (format json) ${query.sql}` }),
    );
    return rows[0]?.["QUERY PLAN"][0].Plan ?? { "Node Type": "", "Plan Rows": 0 };
  };

  const getByUid = compiledOnce(db, () => loose.selectFrom(name).selectAll().where("uid", "=", ""));
  // By padded size: a power of two up to MAX_PREPARED_UIDS, so at most nine texts. Kysely building
  // a lookup of 64 uids anew was about 3 % of a hydrated page of role bindings (S8's assignments).
  const getManyOfSize = new Map<number, (...uids: unknown[]) => Promise<unknown[]>>();
  const lookupOf = (size: number) => {
    let lookup = getManyOfSize.get(size);
    if (lookup === undefined) {
      const placeholders = Array<string>(size).fill("");
      lookup = compiledOnce(db, () => loose.selectFrom(name).selectAll().where("uid", "in", placeholders).orderBy("uid"));
      getManyOfSize.set(size, lookup);
    }
    return lookup;
  };

  // SQLite: the uids as one JSON parameter, one text for every count (one uid: by key). Bound one by
  // one, 64 uids cost more than reading their rows: a page of 50 groups read so took 92 µs, by the
  // set 58 µs (better-sqlite3, S9's store).
  const getManyInSet = compiledOnce(db, () =>
    loose
      .selectFrom(name)
      .selectAll()
      .where(sql<SqlBool>`uid in (${uidSet([])})`)
      .orderBy("uid"),
  );

  /** The rows among uids that exist, in uid order. */
  const rowsOf = async (uids: readonly string[]): Promise<unknown[]> => {
    if (uids.length === 0) return [];
    return guard(() => {
      if (engine === "sqlite") return uids.length === 1 ? getByUid(uids[0]) : getManyInSet(uidKeys(uids));
      if (uids.length > MAX_PREPARED_UIDS) return loose.selectFrom(name).selectAll().where("uid", "in", uids).orderBy("uid").execute();
      const all = padded(uids);
      return lookupOf(all.length)(...all);
    });
  };

  return {
    async insert(row, options = {}) {
      await write(() => runPrepared(db, loose.insertInto(name).values(Object.fromEntries(Object.entries(row)))), options);
    },

    async get(uid) {
      const [row] = await guard(() => getByUid(uid));
      return row && toRecord(row);
    },

    getMany: async (uids) => (await rowsOf(uids)).map(toRecord),

    async update(uid, set, options = {}) {
      const changes = Object.fromEntries(Object.entries(set).filter(([, value]) => value !== undefined));
      const matching = byUid(uid, options.where);
      const row = await write(
        () =>
          Object.keys(changes).length === 0
            ? loose.selectFrom(name).selectAll().where(matching).executeTakeFirst()
            : loose.updateTable(name).set(changes).where(matching).returningAll().executeTakeFirst(),
        options,
      );
      return row && toRecord(row);
    },

    async delete(uid, options = {}) {
      const { numDeletedRows } = await write(
        () => loose.deleteFrom(name).where(byUid(uid, options.where)).executeTakeFirstOrThrow(),
        options,
      );
      return numDeletedRows > 0n;
    },

    async lock(uid, column) {
      const row = await guard(() =>
        loose
          .updateTable(name)
          .set((eb) => ({ [column]: eb.ref(column) }))
          .where("uid", "=", uid)
          .returningAll()
          .executeTakeFirst(),
      );
      return row && toRecord(row);
    },

    async list(filter, window, read) {
      const matchingIn = (from: ReturnType<typeof loose.selectFrom<string>>) =>
        from.selectAll().where((eb) => eb.and(spec.matching(filter)));
      let query = matchingIn(loose.selectFrom(name));
      if (read !== undefined) {
        // The rows walked, a subquery whose LIMIT neither engine merges into the outer query;
        // both read it a row at a time, so a page filled early reads no further.
        const walked = applyWindow(
          matchingRows(read.walk.among).selectAll(),
          { order: window.order, after: window.after, offset: 0, limit: read.walk.rows },
          columnOf,
        );
        query = matchingIn(loose.selectFrom(walked.as(name)));
        window = { ...window, after: undefined };
      }
      const rows = await guard(() => applyWindow(query, window, columnOf).execute());
      return rows.map(toRecord);
    },

    async listSortKeys(filter, window) {
      return guard(() => applyWindow(matchingRows(filter).select(sortKeyColumns(window)), window, columnOf).execute());
    },

    fromRow: toRecord,

    async estimates(filters) {
      if (filters.length === 0) return [];
      const plan = await planOf(filters);
      if (filters.length === 1) return [plan["Plan Rows"]];
      // The plan of a UNION ALL is an Append whose children are the filters' plans, in order;
      // planned apart where it has another shape (a branch proved empty is dropped), one after
      // another, so a request still holds one connection at a time.
      const children = plan["Node Type"] === "Append" ? (plan.Plans ?? []) : [];
      if (children.length === filters.length) return children.map((c) => c["Plan Rows"]);
      const apart: number[] = [];
      for (const filter of filters) apart.push((await planOf([filter]))["Plan Rows"]);
      return apart;
    },

    async pageOnce(filter, window, given) {
      const columns = sortKeyColumns(window);
      // A builder in a template is a parenthesised subquery already; a raw statement is not.
      const matches = given === undefined ? matchingRows(filter).select(columns) : sql`(${given})`;
      const page = applyWindow(loose.selectFrom("m").select(columns), window, columnOf);
      // The page's uids in its order, whatever order the aggregate meets them in.
      const keys = window.order.map((k) => sql`p.${sql.ref(columnOf(k.field))} ${sql.raw(k.desc ? "desc" : "asc")}`);
      const ordered = keys.length === 0 ? sql`` : sql`order by ${sql.join(keys)}`;
      // PostgreSQL's json_agg gives an array, SQLite's json_group_array its JSON text. A builder
      // in a template is a parenthesised subquery already (SQLite refuses a second pair).
      const aggregate = engine === "postgres" ? sql`json_agg(p.uid ${ordered})` : sql`json_group_array(p.uid ${ordered})`;
      const { rows } = await guard(() =>
        sql<{ total: string | number; uids: string[] | string | null }>`
          with m as materialized ${matches}
          select (select count(*) from m) as total, (select ${aggregate} from ${page} as p) as uids`.execute(db),
      );
      const [row] = rows;
      const uids: string[] = typeof row?.uids === "string" ? (JSON.parse(row.uids) as string[]) : (row?.uids ?? []);
      // The rows again in the page's order (a lookup by uid returns them in uid order).
      const byUid = new Map((await rowsOf(uids)).map((r) => [(r as { uid: string }).uid, r]));
      const records = uids.flatMap((uid) => (byUid.has(uid) ? [toRecord(byUid.get(uid))] : []));
      return { rows: records, total: Number(row?.total ?? 0) };
    },

    async count(filter) {
      const row = await guard(() =>
        matchingRows(filter)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .executeTakeFirstOrThrow(),
      );
      return row.n;
    },
  };
}

/** Whether some row of table holds value in column. */
export async function hasRow<T extends Table>(db: Executor, table: T, column: keyof Database[T] & string, value: string): Promise<boolean> {
  const row = await guard(() =>
    untyped(db)
      .selectFrom(table as string)
      .select(sql<number>`1`.as("one"))
      .where(column as string, "=", value)
      .limit(1)
      .executeTakeFirst(),
  );
  return row !== undefined;
}

/** ALREADY_EXISTS for a name a sibling of the same kind in the group holds. */
export function nameTaken(kind: string, parentUid: string | null, name: string): ApiError {
  return alreadyExists(`${kind} named "${name}" in group ${parentUid}`);
}

/**
 * NOT_FOUND for the parent a violated foreign key missed, for a row that names both a group and
 * a role: the group when it is gone, else the role. The failed write says survivable, so this
 * lookup works inside a transaction.
 */
export async function missingGroupOrRole(db: Executor, groupUid: string, roleUid: string): Promise<ApiError> {
  return (await hasRow(db, "groups", "uid", groupUid)) ? notFound("role", roleUid) : notFound("group", groupUid);
}

/** Any table with any columns: the shared statements name tables and columns by string. */
type LooseTables = Record<string, Record<string, unknown>>;

function untyped(db: Executor): Kysely<LooseTables> {
  return db as unknown as Kysely<LooseTables>;
}
