/**
 * 0016: when Arbor first stored each advisory (`create_time`), which every v2 resource carries
 * and advisories lacked. A newer version of an advisory keeps it (src/store/advisory-store.ts).
 *
 * When the advisories already stored were first stored is not known; they get the time this
 * migration runs: the one moment Arbor is known to have held every one of them. An earlier guess
 * (the OSV `modified` or `published` time) would date an advisory in Arbor before Arbor had it,
 * perhaps before Arbor existed. The time is the column's default, so adding it writes no row
 * (SQLite and PostgreSQL both keep a constant default in the schema); PostgreSQL then drops the
 * default, and on SQLite, which cannot, the store always writes the column.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import type { Kysely } from "kysely";

/** Adds `advisories.create_time`, the time of this migration for the advisories already there. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const now = Date.now();
  await db.schema
    .alterTable("advisories")
    .addColumn("create_time", "bigint", (c) => c.notNull().defaultTo(now))
    .execute();
  // rolling-unsafe: without the default, an older server's advisory writes fail on PostgreSQL; accepted before any release
  if (engine === "postgres")
    await db.schema
      .alterTable("advisories")
      .alterColumn("create_time", (c) => c.dropDefault())
      .execute();
}
