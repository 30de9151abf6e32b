/**
 * 0004: vulnerability advisories (OSV documents). The document is kept whole as JSON for Get and
 * List; what the filters look up (aliases, affected packages) sits in tables of its own with an
 * index per filter, so those filters are index lookups. `search` holds the lowercased id,
 * aliases, package names and summary for the substring `query`, which scans it.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates the advisory tables. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  const index = (table: string, columns: string[]) =>
    db.schema
      .createIndex(`${table}_${columns.join("_")}_idx`)
      .on(table)
      .columns(columns)
      .execute();

  await db.schema
    .createTable("advisories")
    // The OSV id.
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    .addColumn("modified_time", "bigint", (c) => c.notNull())
    // The published time, or the modified time when the document has none.
    .addColumn("published_time", "bigint", (c) => c.notNull())
    .addColumn("search", "text", (c) => c.notNull())
    // JSON of the OSV document as imported.
    .addColumn("document", "text", (c) => c.notNull())
    .execute();
  for (const columns of [
    ["modified_time", "uid"],
    ["published_time", "uid"],
  ])
    await index("advisories", columns);

  await db.schema
    .createTable("advisory_aliases")
    .addColumn("advisory_uid", key, (c) => c.notNull().references("advisories.uid").onDelete("cascade"))
    .addColumn("alias", key, (c) => c.notNull())
    .addPrimaryKeyConstraint("advisory_aliases_pkey", ["advisory_uid", "alias"])
    .execute();
  await index("advisory_aliases", ["alias", "advisory_uid"]);

  await db.schema
    .createTable("advisory_packages")
    .addColumn("advisory_uid", key, (c) => c.notNull().references("advisories.uid").onDelete("cascade"))
    .addColumn("ecosystem", key, (c) => c.notNull())
    // The ecosystem without its release suffix (`Debian` for `Debian:12`).
    .addColumn("ecosystem_base", key, (c) => c.notNull())
    .addColumn("name", key, (c) => c.notNull())
    .addPrimaryKeyConstraint("advisory_packages_pkey", ["advisory_uid", "ecosystem", "name"])
    .execute();
  for (const columns of [
    ["ecosystem", "name", "advisory_uid"],
    ["ecosystem_base", "name", "advisory_uid"],
    ["name", "advisory_uid"],
  ]) {
    await index("advisory_packages", columns);
  }
}
