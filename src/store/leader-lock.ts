/**
 * Which replica runs the background jobs (the advisories feed sync, the audit retention sweep):
 * the one holding a PostgreSQL session-level advisory lock, taken on a connection of its own and
 * kept for as long as the process lives. The others try again at each of their runs, so when
 * the holder dies (kill -9, a lost host), PostgreSQL ends its session, the lock goes with it, and
 * the next replica to try takes over; nothing has to expire or be cleaned up.
 *
 * One lock for all jobs rather than one per run: a lock held only for the run would let every
 * replica run every job once per interval, one after another, which is N times the work (and
 * N downloads of the feed, whose ETag each process remembers alone).
 */
import pg from "pg";

/** The lock of one store. */
export interface LeaderLock {
  /**
   * Whether this process holds the lock, taking it if it is free; false when another holds it
   * or the store cannot be reached (the job would fail anyway, and another replica may run it).
   */
  holds(): Promise<boolean>;
  /** Gives the lock up (at close), so another replica takes over at its next try. */
  release(): Promise<void>;
}

/** Where the lock lives: the store's database and schema, and how long its statements may take. */
export interface PostgresLockOptions {
  url: string;
  schema: string | undefined;
  connectTimeoutMs: number;
  queryTimeoutMs: number;
}

/**
 * The first key of the two-key form of PostgreSQL's advisory locks ("ARBR"); the second is the
 * schema's hash, so installations in two schemas of one database each have their leader. Kysely's
 * migration lock uses the one-key form, which PostgreSQL keeps apart from this one.
 */
const LOCK_CLASS = 0x41524252;

/** A SQLite store has one server (its data directory is its own), which is always the leader. */
export function soleLeader(): LeaderLock {
  return { holds: async () => true, release: async () => {} };
}

export function postgresLeaderLock(options: PostgresLockOptions): LeaderLock {
  let holder: pg.Client | undefined;
  let trying: Promise<boolean> | undefined;
  let released = false;

  const drop = (client: pg.Client) => {
    if (holder === client) holder = undefined;
    client.end().catch(() => {});
  };

  const attempt = async (): Promise<boolean> => {
    if (holder !== undefined) {
      // A session that died (the database restarted, the network failed) lost the lock with it:
      // only a live one still holds it.
      try {
        await holder.query("select 1");
        return true;
      } catch {
        drop(holder);
      }
    }
    if (released) return false;
    const client = new pg.Client({
      connectionString: options.url,
      connectionTimeoutMillis: options.connectTimeoutMs,
      query_timeout: options.queryTimeoutMs,
      keepAlive: true,
      application_name: "arbor leader lock",
    });
    // An error on an idle connection would crash Node unheard; the next holds() notices the loss.
    client.on("error", () => drop(client));
    try {
      await client.connect();
      if (options.schema !== undefined) await client.query(`set search_path to "${options.schema.replaceAll('"', '""')}"`);
      const { rows } = await client.query<{ held: boolean }>("select pg_try_advisory_lock($1, hashtext(current_schema())) as held", [
        LOCK_CLASS,
      ]);
      if (rows[0]?.held === true && !released) {
        holder = client;
        return true;
      }
    } catch {
      // Unreachable: not the leader this time.
    }
    drop(client);
    return false;
  };

  return {
    holds: () => (trying ??= attempt().finally(() => (trying = undefined))),
    async release() {
      released = true;
      await trying;
      const client = holder;
      holder = undefined;
      // Ending the session releases its advisory locks.
      await client?.end().catch(() => {});
    },
  };
}
