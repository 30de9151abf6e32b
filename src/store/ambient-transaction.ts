/**
 * The transaction a unit of work runs in, found through its async context rather than handed
 * down: every statement on `executor` made while run()'s fn is pending joins run()'s transaction,
 * whoever makes it, so services and helpers take no transaction argument. This is what
 * Store.atomically is made of (create-store.ts); docs/architecture.md, "Transactions", has the
 * model. test/store/ambient-transaction.store.test.ts pins, on every engine, each kind of
 * statement the stores make to the transaction, since the Proxy below relies on Kysely's shape.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import type { Executor } from "./tables.js";
import { translateError } from "./translate-error.js";

/** Transactions joined through the async context, over one pool. */
export interface AmbientTransactions<S> {
  /**
   * The pool, except in the async context of run()'s fn, where it is that run's transaction:
   * what the stores are made over.
   */
  readonly executor: Executor;
  /** What begin made of the transaction open in this async context; undefined outside one. */
  current(): S | undefined;
  /**
   * Runs fn in the transaction open in this async context, or else in a new one, committed when
   * fn resolves and rolled back when it throws (fn's own error is rethrown as it is; a failed
   * begin or commit is translated as a store error).
   */
  run<T>(fn: (joined: S) => Promise<T>): Promise<T>;
}

/**
 * How transactions are committed together (SQLite; groupCommitter below): each runs under a
 * savepoint of its own inside one write transaction, which commits once no more are waiting or a
 * bound is reached.
 */
export interface GroupCommit {
  /** At most this many transactions in one commit. */
  maxUnits: number;
  /** No transaction joins a group open for this long (milliseconds). */
  maxOpenMs: number;
}

/**
 * begin makes, once per transaction, what run()'s fn and current() get of it. With group, the
 * transactions that wait for their turn are committed together (groupCommitter).
 */
export function ambientTransactions<S>(db: Executor, begin: (tx: Executor) => S, group?: GroupCommit): AmbientTransactions<S> {
  const ambient = new AsyncLocalStorage<{ tx: Executor; joined: S }>();
  const alone = async <T>(fn: (joined: S) => Promise<T>): Promise<T> => {
    // fn's own errors reach the caller as thrown; only begin, commit and rollback are translated.
    let thrownByFn: { error: unknown } | undefined;
    try {
      return await db.transaction().execute((tx) => {
        const joined = begin(tx);
        return ambient.run({ tx, joined }, async () => {
          try {
            return await fn(joined);
          } catch (error) {
            thrownByFn = { error };
            throw error;
          }
        });
      });
    } catch (error) {
      if (thrownByFn !== undefined && thrownByFn.error === error) throw error;
      throw translateError(error);
    }
  };
  const together = group === undefined ? undefined : groupCommitter(db, begin, ambient, group);
  return {
    executor: ambientExecutor(db, () => ambient.getStore()?.tx),
    current: () => ambient.getStore()?.joined,
    run(fn) {
      const open = ambient.getStore();
      if (open !== undefined) return fn(open.joined);
      return together === undefined ? alone(fn) : together(fn);
    },
  };
}

/** A transaction waiting for its turn in a group, and how its run() settles. */
interface Waiting<S> {
  fn: (joined: S) => Promise<unknown>;
  /** Runs a callback in the async context run() was called in. */
  context: <R>(callback: () => R) => R;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

const SAVEPOINT = sql`savepoint arbor_unit`;
const RELEASE = sql`release savepoint arbor_unit`;
const ROLLBACK_TO = sql`rollback to savepoint arbor_unit`;

/**
 * Group commit, for SQLite, whose one writer runs transactions one after another anyway. What a
 * create costs there is mostly its commit: every b-tree it inserts into costs about a page written
 * to the WAL (docs/benchmarks.md, S3). Transactions committed together share the pages at the ends
 * of the tables and of the indexes in time order, and one commit.
 *
 * A group is one write transaction; each of its transactions runs in it under a savepoint of its
 * own, after the one before, and sees that one's writes: what each sees and does is as if they had
 * committed one after another in the order they ran. One whose fn throws is rolled back to its
 * savepoint, which undoes it alone, and its run() rejects with fn's error at once. One that
 * succeeds resolves only once the group has committed; a commit that fails (a full disk, a
 * deferred key) fails every transaction of the group with its translated error, as it would have
 * failed the one whose commit it was. Nothing outside the group sees its writes before the commit:
 * reads beside it run on another connection, on what is committed (sqlite-driver.ts).
 *
 * After a transaction, the group takes the next one waiting; when none is, it lets the event loop
 * turn once, in which requests already received reach run() (reads beside the group do not wait
 * for it), and commits when still none is. At most maxUnits a group, none joining after
 * maxOpenMs. Each fn runs in the async context its run() was called in, whichever caller's run()
 * began the group.
 */
function groupCommitter<S>(
  db: Executor,
  begin: (tx: Executor) => S,
  ambient: AsyncLocalStorage<{ tx: Executor; joined: S }>,
  limits: GroupCommit,
): <T>(fn: (joined: S) => Promise<T>) => Promise<T> {
  const queue: Waiting<S>[] = [];
  let draining = false;

  async function commitGroup(): Promise<void> {
    const done: { waiting: Waiting<S>; value: unknown }[] = [];
    // The transaction between its turn and its savepoint's release, with fn's error once fn
    // failed. The first is taken before the group begins: a begin that fails (another process
    // holding the database past the busy timeout) fails it, as it would alone.
    let running: { waiting: Waiting<S>; thrown?: { error: unknown } } | undefined = { waiting: queue.shift() as Waiting<S> };
    const opened = performance.now();
    let ran = 0;
    const more = async () => {
      if (ran >= limits.maxUnits || performance.now() - opened >= limits.maxOpenMs) return false;
      if (queue.length > 0) return true;
      // One turn of the event loop: requests already received reach run() meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
      return queue.length > 0;
    };
    try {
      await db.transaction().execute(async (tx) => {
        for (;;) {
          const current = running as { waiting: Waiting<S>; thrown?: { error: unknown } };
          const { waiting } = current;
          ran++;
          await SAVEPOINT.execute(tx);
          let value: unknown;
          try {
            const joined = begin(tx);
            value = await waiting.context(() => ambient.run({ tx, joined }, () => waiting.fn(joined)));
          } catch (error) {
            current.thrown = { error };
          }
          if (current.thrown === undefined) {
            await RELEASE.execute(tx);
            done.push({ waiting, value });
          } else {
            await ROLLBACK_TO.execute(tx);
            await RELEASE.execute(tx);
            waiting.reject(current.thrown.error);
          }
          running = undefined;
          if (!(await more())) return;
          running = { waiting: queue.shift() as Waiting<S> };
        }
      });
    } catch (error) {
      // begin, a savepoint or the commit failed: nothing of the group was kept. A transaction
      // whose fn had failed gets fn's error, as it would alone.
      const failure = translateError(error);
      for (const { waiting } of done) waiting.reject(failure);
      if (running !== undefined) running.waiting.reject(running.thrown !== undefined ? running.thrown.error : failure);
      return;
    }
    for (const { waiting, value } of done) waiting.resolve(value);
  }

  async function drain(): Promise<void> {
    draining = true;
    try {
      while (queue.length > 0) await commitGroup();
    } finally {
      draining = false;
    }
  }

  return <T>(fn: (joined: S) => Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      queue.push({ fn, context: AsyncLocalStorage.snapshot(), resolve: resolve as (value: unknown) => void, reject });
      if (!draining) void drain();
    });
}

/**
 * The pool, or the transaction current() gives: every property is read from whichever is current
 * at the time of the read. Kysely keeps its state in private fields, which a Proxy does not
 * forward, so methods are bound to the executor they belong to (once per executor and name).
 */
function ambientExecutor(db: Executor, current: () => Executor | undefined): Executor {
  const bound = new WeakMap<Executor, Map<PropertyKey, unknown>>();
  return new Proxy(db, {
    get(_target, name) {
      const executor = current() ?? db;
      const value: unknown = Reflect.get(executor, name, executor);
      if (typeof value !== "function") return value;
      let methods = bound.get(executor);
      if (methods === undefined) bound.set(executor, (methods = new Map()));
      let method = methods.get(name);
      if (method === undefined) methods.set(name, (method = (value as (...args: unknown[]) => unknown).bind(executor)));
      return method;
    },
  });
}
