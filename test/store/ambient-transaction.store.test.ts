/**
 * The executor the stores run on (src/store/ambient-transaction.ts): a Proxy that reads every
 * property from the transaction open in the async context, or from the pool outside one. It
 * relies on Kysely's shape (private fields, which methods a statement goes through), so each
 * kind of statement the stores make is pinned here, on every engine: inside a transaction it runs
 * on it (a rollback undoes it, a reader beside it does not see it before the commit), outside it
 * runs on the pool. A Kysely upgrade that moves a statement past the Proxy fails here.
 */
import { Kysely, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ambientTransactions, type AmbientTransactions } from "../../src/store/ambient-transaction.js";
import { compiledOnce } from "../../src/store/compiled-query.js";
import { inTransaction, recoverable } from "../../src/store/nested-transactions.js";
import type { Database, Executor, GroupsTable } from "../../src/store/tables.js";
import { engineSetup } from "../../src/store/dialect.js";
import { describeEachEngine } from "../support/engines.js";
import { rootUid } from "../support/groups.js";
import { rawRows } from "../support/raw-sql.js";

/** Longer than any statement here takes; a statement on SQLite's pool inside a transaction waits for ever. */
const STEP_MS = 3_000;

const uid = (n: number) => rootUid(0xab000 + n);
/** An organization's row: each has a name of its own. */
const rowOf = (uid: string): GroupsTable => ({
  uid,
  parent_uid: null,
  name: `ambient-${uid.slice(-6)}`,
  description: "",
  create_time: 0,
  update_time: 0,
});

/** The rows a statement of each kind writes, and the committed ones it changes, for one run. */
const rowsOf = (run: number) => {
  const n = run * 10;
  return { inserted: uid(n + 1), raw: uid(n + 2), nested: uid(n + 3), recovered: uid(n + 4), updated: uid(n + 5), deleted: uid(n + 6) };
};
type Rows = ReturnType<typeof rowsOf>;

describeEachEngine("ambient transactions", (t) => {
  let pool: Kysely<Database>;
  let units: AmbientTransactions<{ tx: Executor }>;
  // The stores' executor: the pool, or the transaction of the run() whose async context it is in.
  let db: Executor;

  beforeAll(() => {
    // The file's store has migrated the schema; this is a second pool on the same data.
    pool = new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
    units = ambientTransactions(pool, (tx) => ({ tx }));
    db = units.executor;
  });
  afterAll(() => pool.destroy());

  /** What a reader beside the store (its own connection) finds of the rows: committed state only. */
  async function seen(rows: Rows): Promise<Record<string, string>> {
    const list = Object.values(rows)
      .map((u) => `'${u}'`)
      .join(", ");
    const found = await rawRows(t, `select uid, description from groups where uid in (${list})`);
    const byUid = new Map(found.map((r) => [r.uid as string, r.description as string]));
    return Object.fromEntries(Object.entries(rows).flatMap(([kind, u]) => (byUid.has(u) ? [[kind, byUid.get(u) as string]] : [])));
  }
  const before = { updated: "", deleted: "" };
  const after = { inserted: "", raw: "", nested: "", recovered: "", updated: "changed" };

  async function commitRowsToChange(rows: Rows) {
    await pool
      .insertInto("groups")
      .values([rowOf(rows.updated), rowOf(rows.deleted)])
      .execute();
    expect(await seen(rows)).toEqual(before);
  }

  /** Runs step, failing it when it outlasts STEP_MS (on SQLite, a statement that went to the pool). */
  async function onTime<T>(kind: string, step: () => Promise<T> | T): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${kind} did not finish in ${STEP_MS} ms: it waits for the connection its transaction holds`)),
        STEP_MS,
      );
    });
    try {
      return await Promise.race([Promise.resolve().then(step), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Every kind of statement the stores make on their executor, as they make it, inside run(). */
  async function everyKind(rows: Rows, joined: { tx: Executor }) {
    await onTime("isTransaction", () => expect(db.isTransaction).toBe(true));
    // Kysely refuses to begin inside a transaction: a nested begin cannot slip onto the pool.
    await onTime("transaction", () => expect(() => db.transaction()).toThrow(/not supported/));
    await onTime("insertInto", () => db.insertInto("groups").values(rowOf(rows.inserted)).execute());
    // Each read finds the transaction's own uncommitted write.
    await onTime("selectFrom", async () =>
      expect(await db.selectFrom("groups").select("uid").where("uid", "=", rows.inserted).execute()).toHaveLength(1),
    );
    await onTime("selectNoFrom", async () => {
      const { n } = await db
        .selectNoFrom(sql<number>`(select count(*) from groups where uid = ${rows.inserted})`.as("n"))
        .executeTakeFirstOrThrow();
      expect(Number(n)).toBe(1);
    });
    await onTime("executeQuery", async () => {
      const byUid = compiledOnce(db, () => db.selectFrom("groups").select("uid").where("uid", "=", ""));
      expect(await byUid(rows.inserted)).toEqual([{ uid: rows.inserted }]);
    });
    await onTime("updateTable", () => db.updateTable("groups").set({ description: "changed" }).where("uid", "=", rows.updated).execute());
    await onTime("deleteFrom", () => db.deleteFrom("groups").where("uid", "=", rows.deleted).execute());
    await onTime("raw sql", () =>
      sql`insert into groups (uid, parent_uid, name, description, create_time, update_time)
          values (${rows.raw}, ${null}, ${`raw-${rows.raw}`}, '', 0, 0)`.execute(db),
    );
    await onTime("inTransaction", () =>
      inTransaction(db, async (inner) => {
        expect(inner.isTransaction).toBe(true);
        await inner.insertInto("groups").values(rowOf(rows.nested)).execute();
      }),
    );
    // A failed statement under recoverable() leaves the transaction usable (PostgreSQL refuses
    // every later statement otherwise): its savepoint was taken in this transaction.
    await onTime("recoverable", async () => {
      await expect(recoverable(db, () => db.insertInto("groups").values(rowOf(rows.inserted)).execute())).rejects.toThrow();
      await db.insertInto("groups").values(rowOf(rows.recovered)).execute();
    });
    await onTime("run", () => units.run(async (nested) => expect(nested).toBe(joined)));
  }

  it("runs every kind of statement in the transaction: a rollback undoes them all", async () => {
    const rows = rowsOf(1);
    await commitRowsToChange(rows);
    const rolledBack = new Error("rolled back on purpose");
    await expect(
      units.run(async (joined) => {
        await everyKind(rows, joined);
        // Nothing of it reaches a reader beside the store before the commit.
        expect(await seen(rows)).toEqual(before);
        throw rolledBack;
      }),
    ).rejects.toBe(rolledBack);
    expect(await seen(rows)).toEqual(before);
  });

  it("runs every kind of statement in the transaction: the commit makes them all seen", async () => {
    const rows = rowsOf(2);
    await commitRowsToChange(rows);
    await units.run(async (joined) => {
      await everyKind(rows, joined);
      expect(await seen(rows)).toEqual(before);
    });
    expect(await seen(rows)).toEqual(after);
  });

  it("runs every kind of statement on the pool outside a transaction, each seen at once", async () => {
    const rows = rowsOf(3);
    await commitRowsToChange(rows);
    expect(db.isTransaction).toBe(false);
    await db.insertInto("groups").values(rowOf(rows.inserted)).execute();
    await db.updateTable("groups").set({ description: "changed" }).where("uid", "=", rows.updated).execute();
    await db.deleteFrom("groups").where("uid", "=", rows.deleted).execute();
    await sql`insert into groups (uid, parent_uid, name, description, create_time, update_time)
              values (${rows.raw}, ${null}, ${`raw-${rows.raw}`}, '', 0, 0)`.execute(db);
    expect(await seen(rows)).toMatchObject({ inserted: "", raw: "", updated: "changed" });
    // inTransaction opens a transaction of its own, committed when it returns.
    await inTransaction(db, async (inner) => {
      expect(inner.isTransaction).toBe(true);
      await inner.insertInto("groups").values(rowOf(rows.nested)).execute();
    });
    // Outside a transaction recoverable() takes no savepoint (PostgreSQL refuses one there).
    await expect(recoverable(db, () => db.insertInto("groups").values(rowOf(rows.inserted)).execute())).rejects.toThrow();
    await recoverable(db, () => db.insertInto("groups").values(rowOf(rows.recovered)).execute());
    expect(await seen(rows)).toEqual(after);
  });

  /**
   * A transaction of `over` that inserts `uid` and stays open until released, and a statement
   * made outside its async context once the insert is done: what that statement had come to
   * 200 ms later ("waiting" if nothing), and the transaction, released, run to its end.
   */
  async function besideOpen<T>(
    over: AmbientTransactions<{ tx: Executor }>,
    uid: string,
    outside: () => Promise<T>,
    early: (result: T) => string,
  ): Promise<{ early: string; outside: Promise<T> }> {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let written = () => {};
    const isWritten = new Promise<void>((resolve) => (written = resolve));
    const inside = over.run(async () => {
      await over.executor.insertInto("groups").values(rowOf(uid)).execute();
      written();
      await held;
    });
    await isWritten;
    const running = outside();
    const first = await Promise.race([running.then(early), new Promise<string>((r) => setTimeout(() => r("waiting"), 200))]);
    release();
    await inside;
    return { early: first, outside: running };
  }

  it("runs a statement made outside run()'s async context on the pool, even while run() is open", async () => {
    const rows = rowsOf(4);
    // The misuse the Store's doc warns of, were run()'s fn to wait for it: another connection (on
    // SQLite the reader, sqlite-driver.ts), which does not see the insert.
    const read = () => db.selectFrom("groups").select("uid").where("uid", "=", rows.inserted).execute();
    const { early, outside } = await besideOpen(units, rows.inserted, read, (r) => (r.length === 0 ? "absent" : "present"));
    expect(early).toBe("absent");
    expect(await outside).toHaveLength(0);
  });

  it("reads on the writer, after the transaction, with SQLite's reader turned off (sqliteReader: false)", async () => {
    const onePool = new Kysely<Database>({ dialect: engineSetup({ ...t.options(), sqliteReader: false }).dialect });
    try {
      const one = ambientTransactions(onePool, (tx) => ({ tx }));
      const rows = rowsOf(6);
      const read = () => one.executor.selectFrom("groups").select("uid").where("uid", "=", rows.inserted).execute();
      const { early, outside } = await besideOpen(one, rows.inserted, read, (r) => (r.length === 0 ? "absent" : "present"));
      // PostgreSQL has no such setting: its pool's other connection does not see the insert.
      expect(early).toBe(t.engine === "postgres" ? "absent" : "waiting");
      expect(await outside).toHaveLength(t.engine === "postgres" ? 0 : 1);
    } finally {
      await onePool.destroy();
    }
  });

  it("runs a write made outside run()'s async context once the transaction ends on SQLite, whose one writer it holds", async () => {
    const rows = rowsOf(5);
    // Another row: PostgreSQL writes it beside the transaction; SQLite's writer (sqlite-driver.ts)
    // takes it once the transaction has ended.
    const write = () => db.insertInto("groups").values(rowOf(rows.raw)).execute();
    const { early, outside } = await besideOpen(units, rows.inserted, write, () => "written");
    expect(early).toBe(t.engine === "postgres" ? "written" : "waiting");
    await outside;
    expect(await seen(rows)).toEqual({ inserted: "", raw: "" });
  });
});
