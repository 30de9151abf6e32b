/**
 * The transaction a unit of work runs in, found through its async context rather than handed
 * down: every statement on `executor` made while run()'s fn is pending joins run()'s transaction,
 * whoever makes it, so services and helpers take no transaction argument. This is what
 * Store.atomically is made of (create-store.ts); docs/architecture.md, "Transactions", has the
 * model. test/store/ambient-transaction.store.test.ts pins, on every engine, each kind of
 * statement the stores make to the transaction, since the Proxy below relies on Kysely's shape.
 */
import { AsyncLocalStorage } from "node:async_hooks";
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

/** begin makes, once per transaction, what run()'s fn and current() get of it. */
export function ambientTransactions<S>(db: Executor, begin: (tx: Executor) => S): AmbientTransactions<S> {
  const ambient = new AsyncLocalStorage<{ tx: Executor; joined: S }>();
  return {
    executor: ambientExecutor(db, () => ambient.getStore()?.tx),
    current: () => ambient.getStore()?.joined,
    async run(fn) {
      const open = ambient.getStore();
      if (open !== undefined) return fn(open.joined);
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
    },
  };
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
