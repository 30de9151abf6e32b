/**
 * 0026: where a first bulk import of advisories keeps the indexes and triggers it builds at its
 * end instead of row by row (src/store/advisory-deferred.ts, issue 19 item 3): each object's
 * name, what it is kept for, and its definition as the store held it, so whoever opens the store
 * next can build it again even if the import never reached its end.
 *
 * Additive: an older Arbor never reads the table (and never finds it holding rows, as only an
 * import of this Arbor or a later one writes them, and it leaves it empty when it ends).
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates `advisory_deferred_schema`. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const text = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable("advisory_deferred_schema")
    // The index's or trigger's name.
    .addColumn("name", text, (c) => c.primaryKey().notNull())
    // What building it again takes besides its definition: 'index', 'counts' (a trigger keeping
    // advisory_counts: the counts are made again from the rows) or 'texts' (a trigger keeping the
    // search texts: they and their index are made again from the rows).
    .addColumn("kind", text, (c) => c.notNull())
    // The statement that makes it, as the store's catalog gave it.
    .addColumn("definition", text, (c) => c.notNull())
    .execute();
}
