/**
 * Group commit (src/store/ambient-transaction.ts, groupCommitter): transactions waiting for their
 * turn run one after another under savepoints of one write transaction, which commits once. The
 * store turns it on for SQLite; the committer itself is engine-agnostic, so it is held here to
 * the same behaviour on every engine: what each transaction sees, that a failed one is undone
 * alone, that a failed commit fails the group, and each transaction's async context.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Kysely, sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ambientTransactions, type AmbientTransactions, type GroupCommit } from "../../src/store/ambient-transaction.js";
import { engineSetup } from "../../src/store/dialect.js";
import { ApiError, Code } from "../../src/domain/errors.js";
import type { Database, Executor, GroupsTable } from "../../src/store/tables.js";
import { describeEachEngine } from "../support/engines.js";
import { rootUid } from "../support/groups.js";
import { rawRows } from "../support/raw-sql.js";

let next = 0xcc000;
const fresh = () => rootUid(next++);
const rowOf = (uid: string, parent: string | null = null): GroupsTable => ({
  uid,
  parent_uid: parent,
  name: `grouped-${uid.slice(-6)}`,
  description: "",
  create_time: 0,
  update_time: 0,
});

describeEachEngine("group commit", (t) => {
  let pool: Kysely<Database>;
  const committers: AmbientTransactions<{ tx: Executor }>[] = [];
  const grouped = (limits: GroupCommit = { maxUnits: 64, maxOpenMs: 1_000 }) => {
    const units = ambientTransactions(pool, (tx) => ({ tx }), limits);
    committers.push(units);
    return units;
  };

  beforeAll(() => {
    pool = new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
  });
  afterAll(() => pool.destroy());

  /** Which of the uids a reader beside the store finds: what is committed. */
  async function committed(...uids: string[]): Promise<string[]> {
    const found = await rawRows(t, `select uid from groups where uid in (${uids.map((u) => `'${u}'`).join(", ")})`);
    return uids.filter((u) => found.some((r) => r.uid === u));
  }

  it("commits transactions that wait together in one commit, each seeing the ones before it", async () => {
    const units = grouped();
    const [a, b, c] = [fresh(), fresh(), fresh()];
    const insert = (uid: string) => units.executor.insertInto("groups").values(rowOf(uid)).execute();
    const runs = [
      units.run(async () => insert(a)),
      units.run(async () => {
        // A's write, not committed yet: seen here, not by a reader beside the store.
        expect(await units.executor.selectFrom("groups").select("uid").where("uid", "=", a).execute()).toHaveLength(1);
        expect(await committed(a)).toEqual([]);
        await insert(b);
      }),
      units.run(async () => {
        expect(await committed(a, b)).toEqual([]);
        await insert(c);
      }),
    ];
    await Promise.all(runs);
    expect(await committed(a, b, c)).toEqual([a, b, c]);
  });

  it("lets a transaction that arrives within one turn of the event loop join the group", async () => {
    const units = grouped();
    const [a, b] = [fresh(), fresh()];
    const first = units.run(async () => units.executor.insertInto("groups").values(rowOf(a)).execute());
    const second = new Promise((resolve, reject) => {
      setImmediate(() => {
        units
          .run(async () => {
            expect(await committed(a)).toEqual([]);
            await units.executor.insertInto("groups").values(rowOf(b)).execute();
          })
          .then(resolve, reject);
      });
    });
    await Promise.all([first, second]);
    expect(await committed(a, b)).toEqual([a, b]);
  });

  it("undoes a failed transaction alone, which rejects with its own error at once", async () => {
    const units = grouped();
    const [a, b, c] = [fresh(), fresh(), fresh()];
    const insert = (uid: string) => units.executor.insertInto("groups").values(rowOf(uid)).execute();
    const own = new Error("the audit event could not be written");
    const results = await Promise.allSettled([
      units.run(async () => insert(a)),
      units.run(async () => {
        await insert(b);
        throw own;
      }),
      units.run(async () => {
        // B's write was undone before this one ran.
        expect(await units.executor.selectFrom("groups").select("uid").where("uid", "=", b).execute()).toHaveLength(0);
        await insert(c);
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toBe(own);
    expect(await committed(a, b, c)).toEqual([a, c]);
  });

  it("fails every transaction of a group whose commit fails, and commits the next group", async () => {
    const units = grouped();
    const [a, b, c, missing] = [fresh(), fresh(), fresh(), fresh()];
    const results = await Promise.allSettled([
      units.run(async () => units.executor.insertInto("groups").values(rowOf(a)).execute()),
      units.run(async () => {
        await units.executor.insertInto("groups").values(rowOf(b)).execute();
        // A reference to a group that does not exist, its foreign key checked only at the commit.
        if (t.engine === "sqlite") {
          await sql`pragma defer_foreign_keys = on`.execute(units.executor);
          await units.executor.insertInto("groups").values(rowOf(fresh(), missing)).execute();
        } else {
          // PostgreSQL's keys of a temporary table reference temporary tables only: a deferred
          // constraint trigger stands in for one.
          await sql`create temp table deferred_check (parent text) on commit drop`.execute(units.executor);
          await sql`create function pg_temp.refuse_at_commit() returns trigger language plpgsql as $$
            begin raise foreign_key_violation using message = 'no such group'; end $$`.execute(units.executor);
          await sql`create constraint trigger refuse_at_commit after insert on deferred_check
            deferrable initially deferred for each row execute function pg_temp.refuse_at_commit()`.execute(units.executor);
          await sql`insert into deferred_check values (${missing})`.execute(units.executor);
        }
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    const [first, second] = results.map((r) => (r as PromiseRejectedResult).reason);
    // A foreign key no store call explains: INTERNAL, as alone.
    expect(first).toBeInstanceOf(ApiError);
    expect((first as ApiError).code).toBe(Code.INTERNAL);
    expect(second).toBe(first);
    expect(await committed(a, b)).toEqual([]);
    await units.run(async () => units.executor.insertInto("groups").values(rowOf(c)).execute());
    expect(await committed(c)).toEqual([c]);
  });

  it("runs each transaction in the async context of its own caller", async () => {
    const units = grouped();
    const request = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    await Promise.all(
      ["first", "second", "third"].map((name) =>
        request.run(name, () =>
          units.run(async () => {
            await units.executor.selectFrom("groups").select("uid").limit(1).execute();
            seen.push(request.getStore());
          }),
        ),
      ),
    );
    expect(seen).toEqual(["first", "second", "third"]);
  });

  it("puts at most maxUnits transactions in a group", async () => {
    const units = grouped({ maxUnits: 2, maxOpenMs: 1_000 });
    const [a, b, c] = [fresh(), fresh(), fresh()];
    const insert = (uid: string) => units.executor.insertInto("groups").values(rowOf(uid)).execute();
    await Promise.all([
      units.run(async () => insert(a)),
      units.run(async () => insert(b)),
      units.run(async () => {
        // A group of its own: the first two were committed before it began.
        expect(await committed(a, b)).toEqual([a, b]);
        await insert(c);
      }),
    ]);
    expect(await committed(c)).toEqual([c]);
  });

  it("joins an open transaction from a nested run(), as without groups", async () => {
    const units = grouped();
    const a = fresh();
    await units.run(async (outer) => {
      await units.run(async (inner) => {
        expect(inner).toBe(outer);
        await units.executor.insertInto("groups").values(rowOf(a)).execute();
      });
      expect(await committed(a)).toEqual([]);
    });
    expect(await committed(a)).toEqual([a]);
  });
});
