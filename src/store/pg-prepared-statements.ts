/**
 * Named (server-side prepared) statements on PostgreSQL. Kysely hands node-postgres every
 * statement unnamed, and PostgreSQL parses and plans an unnamed statement on every run: of a
 * group's create, parsing and planning its statements took about two fifths of the time the
 * server spent on them (docs/benchmarks.md, S3). A statement the stores declare preparable
 * (`preparable`, through compiled-query.ts: key lookups and plain inserts, whose plan has no
 * choice a parameter's value could change) is prepared under a name on each connection that runs
 * it, after which a run is a bind and an execute of the plan the connection keeps.
 *
 * Only those: a generic plan of a list or a search, chosen by PostgreSQL after five runs, could be
 * worse than the plan made for each run's values (a skewed filter, a LIMIT it cannot see), so
 * every other statement stays unnamed and planned for its values, as before.
 *
 * What it holds is bounded: at most MAX_NAMED_TEXTS texts get a name in the process, and a
 * connection prepares at most perConnection of them; beyond either, statements run unnamed. A
 * connection's prepared statements end with it (the pool closes idle ones).
 *
 * A prepared statement outlives a change of its tables' columns made elsewhere (another replica's
 * migration): PostgreSQL then refuses to run it ("cached plan must not change result type",
 * 0A000), and a pooler in front of the database may lose it ("prepared statement does not exist",
 * 26000). Either way the connection forgets the name, so its next run prepares the text afresh;
 * a statement outside a transaction is run again at once, unnamed (nothing ran), one inside a
 * transaction fails it as unavailable (the transaction is already aborted), for the client to
 * retry. ARBOR_DATABASE_PREPARED_STATEMENTS=false turns it all off (a pooler that cannot keep
 * prepared statements: PgBouncer's transaction mode before 1.21, or without
 * max_prepared_statements).
 */
import type pg from "pg";

/** How many distinct texts the process names at most. */
export const MAX_NAMED_TEXTS = 1_000;
/** How many statements a connection prepares at most, by default. */
export const DEFAULT_PER_CONNECTION = 200;

/**
 * The SQLSTATEs of a named statement that can no longer run: 0A000, "cached plan must not change
 * result type" (told by its code alone, since the server may speak another language; a key lookup
 * or an insert raises no other 0A000), and 26000, "prepared statement does not exist".
 */
const STALE_CODES = new Set(["0A000", "26000"]);
/** Set on the error of a named statement that can no longer run. */
const STALE = Symbol("arbor.stalePreparedStatement");

/** Whether error is a named statement's that its connection must prepare again. */
export function isStalePreparedStatement(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[STALE] === true;
}

type Query = (text: unknown, values?: unknown, callback?: unknown) => unknown;

/** The name of each preparable text, in the process. */
const names = new Map<string, string>();

/**
 * Declares a statement text preparable: a lookup by key or a plain insert, whose plan no value of
 * its parameters could change. Beyond MAX_NAMED_TEXTS texts, it is not.
 */
export function preparable(text: string): void {
  if (names.size < MAX_NAMED_TEXTS && !names.has(text)) names.set(text, `arbor_${names.size + 1}`);
}

/** How many texts have a name (for tests of the bound). */
export function namedTextCount(): number {
  return names.size;
}

/** Prepares the preparable texts a pool's connections run; attach() each connection as the pool makes it. */
export function preparedStatements(options: { perConnection?: number } = {}): { attach(client: pg.ClientBase): void } {
  const perConnection = options.perConnection ?? DEFAULT_PER_CONNECTION;
  return {
    attach(client) {
      const query = client.query.bind(client) as Query;
      /** The names this connection prepared, by the process's name; a forgotten one gets a suffix. */
      const prepared = new Map<string, string>();
      let renamed = 0;
      let inTransaction = false;

      const run = async (text: string, values: unknown[], name: string, own: string): Promise<unknown> => {
        try {
          return await query({ name: own, text, values });
        } catch (error) {
          const code = (error as { code?: unknown } | null)?.code;
          if (typeof code !== "string" || !STALE_CODES.has(code)) throw error;
          (error as Record<symbol, unknown>)[STALE] = true;
          // node-postgres remembers it prepared the name: the text is prepared afresh under another.
          prepared.set(name, `${name}_${++renamed}`);
          if (inTransaction) throw error;
          return query(text, values);
        }
      };

      (client as unknown as { query: Query }).query = (text, values, callback) => {
        if (typeof text !== "string" || callback !== undefined || !Array.isArray(values)) return query(text, values, callback);
        if (values.length === 0) {
          // Kysely's transaction statements, which take no parameters and are never named.
          if (/^(begin|start transaction)\b/i.test(text)) inTransaction = true;
          else if (/^(commit|rollback)$/i.test(text)) inTransaction = false;
          return query(text, values);
        }
        const name = names.get(text);
        // A connection that keeps losing its statements (a pooler that cannot keep them) stops naming.
        if (name === undefined || renamed >= perConnection) return query(text, values);
        let own = prepared.get(name);
        if (own === undefined) {
          if (prepared.size >= perConnection) return query(text, values);
          prepared.set(name, (own = name));
        }
        return run(text, values, name, own);
      };
    },
  };
}
