/**
 * Queries built and compiled once, then run with new parameters. Kysely builds and compiles a
 * query on every call, which was a seventh of an authenticated GET's CPU (a profile of S1 in
 * docs/benchmarks.md); the hot lookups by key skip that. The statement text stays the same, so
 * SQLite's statement cache serves it, and PostgreSQL keeps it prepared (pg-prepared-statements.ts).
 */
import type { Compilable, CompiledQuery } from "kysely";
import { preparable } from "./pg-prepared-statements.js";
import type { Executor } from "./tables.js";

/**
 * Runs what build() makes, compiled on first use, with parameters in place of the ones it was
 * built with (as many, in the order of their placeholders). On PostgreSQL the statement is
 * prepared, and its plan may be made once for every value: right for a lookup by key or a plain
 * insert; a statement whose rows vary with its values by orders of magnitude says prepared: false.
 */
export function compiledOnce<R>(
  db: Executor,
  build: () => Compilable<R>,
  { prepared = true }: { prepared?: boolean } = {},
): (...parameters: unknown[]) => Promise<R[]> {
  let compiled: CompiledQuery<R> | undefined;
  return async (...parameters) => {
    if (compiled === undefined) {
      compiled = build().compile();
      if (prepared) preparable(compiled.sql);
    }
    if (compiled.parameters.length !== parameters.length) {
      throw new Error(`a compiled query takes ${compiled.parameters.length} parameters, not ${parameters.length}: ${compiled.sql}`);
    }
    return (await db.executeQuery<R>({ ...compiled, parameters })).rows;
  };
}

/**
 * Runs query as a prepared statement on PostgreSQL (pg-prepared-statements.ts): for a lookup by
 * key or a plain insert, whose plan no value of its parameters could change.
 */
export async function runPrepared<R>(db: Executor, query: Compilable<R>): Promise<R[]> {
  const compiled = query.compile();
  preparable(compiled.sql);
  return (await db.executeQuery<R>(compiled)).rows;
}
