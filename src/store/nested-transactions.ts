/**
 * A transaction within a store call: the one open, or a new one, and a savepoint that keeps a
 * surrounding transaction usable when a statement fails. The one transaction model for code
 * outside store/ is store.atomically (store.ts); these serve the stores beneath it.
 */
import { sql } from "kysely";
import type { Executor } from "./tables.js";

/**
 * Runs fn in a transaction: the one open, when db is one (inside store.atomically, the stores'
 * executor is), else a new one. For a store call of several statements; code outside store/
 * uses store.atomically (store.ts, Store).
 */
export async function inTransaction<T>(db: Executor, fn: (tx: Executor) => Promise<T>): Promise<T> {
  return db.isTransaction ? fn(db) : db.transaction().execute(fn);
}

/**
 * Runs fn so that its failure leaves a surrounding transaction usable. PostgreSQL refuses every
 * further statement of a transaction once one fails, so a store that looks something up to
 * explain a failed statement (which foreign key it was) runs that statement here. Outside a
 * transaction there is nothing to protect.
 */
export async function recoverable<T>(db: Executor, fn: () => Promise<T>): Promise<T> {
  if (!db.isTransaction) return fn();
  await sql`savepoint arbor_recoverable`.execute(db);
  let result: T;
  try {
    result = await fn();
  } catch (error) {
    await sql`rollback to savepoint arbor_recoverable`.execute(db);
    await sql`release savepoint arbor_recoverable`.execute(db);
    throw error;
  }
  await sql`release savepoint arbor_recoverable`.execute(db);
  return result;
}
