/**
 * Queries built and compiled once, then run with new parameters. Kysely builds and compiles a
 * query on every call, which was a seventh of an authenticated GET's CPU (a profile of S1 in
 * docs/benchmarks.md); the hot lookups by key skip that. The statement text stays the same, so
 * SQLite's statement cache and PostgreSQL's plans serve it as before.
 */
import type { Compilable, CompiledQuery } from "kysely";
import type { Executor } from "./tables.js";

/**
 * Runs what build() makes, compiled on first use, with parameters in place of the ones it was
 * built with (as many, in the order of their placeholders).
 */
export function compiledOnce<R>(db: Executor, build: () => Compilable<R>): (...parameters: unknown[]) => Promise<R[]> {
  let compiled: CompiledQuery<R> | undefined;
  return async (...parameters) => {
    compiled ??= build().compile();
    if (compiled.parameters.length !== parameters.length) {
      throw new Error(`a compiled query takes ${compiled.parameters.length} parameters, not ${parameters.length}: ${compiled.sql}`);
    }
    return (await db.executeQuery<R>({ ...compiled, parameters })).rows;
  };
}
