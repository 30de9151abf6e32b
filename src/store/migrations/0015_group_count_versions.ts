/**
 * 0015: a version of every ancestor's descendant counts (0008), so that a count derived from them
 * (a many-scope caller's groups totalCount, src/store/group-store.ts) can be remembered and known
 * to be still exact with one read of an index.
 *
 * The version of an ancestor is the newest of its count rows and how many there are. A group
 * made or removed below it adds a row; a fold (the store's, never a trigger's) adds the folded
 * row before it removes the rows it replaces, and keeps a row even where they add up to nothing.
 * So the newest row only ever gets newer, and while it stays the newest the number of rows only
 * grows: the pair never comes back to a value it had, and no change below the ancestor leaves it
 * as it was.
 *
 * "Newest" is by a sequence PostgreSQL assigns (`seq`, added here; a transaction that commits
 * later may hold an older number, but it still adds a row, and the count moves). SQLite writes
 * one transaction at a time and numbers rows itself: the rowid of a row added is beyond every
 * row there, so this migration adds nothing there.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Numbers PostgreSQL's count rows and indexes them by ancestor and number. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine !== "postgres") return;
  await sql`alter table group_descendant_counts add column seq bigint generated always as identity`.execute(db);
  await db.schema
    .createIndex("group_descendant_counts_ancestor_uid_seq_idx")
    .on("group_descendant_counts")
    .columns(["ancestor_uid", "seq"])
    .execute();
  await db.schema.dropIndex("group_descendant_counts_ancestor_uid_idx").execute();
}
