/**
 * 0027: PostgreSQL compresses the advisories' documents with lz4 instead of its default pglz,
 * where the server was built with lz4 (issue 19, item 3). A document is about 5 KB of JSON, so
 * PostgreSQL compresses each one it stores: a first import of 500,000 spent some 14 s of the
 * server's time in pglz alone (`COPY` of 50,000 such documents: 3.15 s with pglz, 1.7 s with lz4,
 * the stored values 22 % larger), and every page of a list decompresses the 50 it returns.
 *
 * Only documents written from now on are compressed with lz4; those stored before keep pglz,
 * which PostgreSQL reads as before (each value says how it was compressed). A server built
 * without lz4 keeps pglz. SQLite does not compress: nothing to do there.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine !== "postgres") return;
  const { rows } = await sql<{ lz4: boolean }>`
    select coalesce(bool_or('lz4' = any(enumvals)), false) as lz4
    from pg_settings where name = 'default_toast_compression'`.execute(db);
  if (rows[0]?.lz4 !== true) return;
  // A catalog change only: no row is rewritten, and every server, older ones included, reads values of either method.
  // rolling-unsafe: only how new values are compressed changes, not the column's type, nullability or default
  await sql`alter table advisories alter column document set compression lz4`.execute(db);
}
