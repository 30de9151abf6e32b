/**
 * 0011: registry path bindings. The registry keeps content under a repository path made of group
 * names (`acme/backend-team/nginx`), and names are freed by rename and delete; `registry_paths`
 * binds each group path that ever held content to the group that held it, so that no other group
 * (or organization) can take the path over. A row is never deleted: it outlives its group (no
 * foreign key), and a path bound to a group that is gone is reserved for nobody.
 *
 * Both columns are unique: a path has one owner, and a group one path. The rows are backfilled
 * from the repos already indexed: each group holding repos and every group above it, under its
 * current path, as far down as the names are Docker path components (a registry client cannot
 * reach a group below one that is not, so nothing is kept there).
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Rows read or written per statement while backfilling. */
const CHUNK = 500;
/** A Docker repository path component (distribution/reference), as of this migration. */
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*$/;

/** Creates `registry_paths` and binds the paths of the groups holding repos. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable("registry_paths")
    .addColumn("path", key, (c) => c.primaryKey().notNull())
    .addColumn("group_uid", key, (c) => c.notNull())
    .addUniqueConstraint("registry_paths_group_uid_key", ["group_uid"])
    .execute();

  const holders: { parent_uid: string }[] = await db.selectFrom("repos").select("parent_uid").distinct().execute();
  // A uid is the path of uids from the root (40 hex, then `/` and 16 hex per level).
  const uids = new Set<string>();
  for (const { parent_uid } of holders) {
    for (let end = parent_uid.indexOf("/"); end !== -1; end = parent_uid.indexOf("/", end + 1)) uids.add(parent_uid.slice(0, end));
    uids.add(parent_uid);
  }
  const names = new Map<string, string>();
  const all = [...uids];
  for (let i = 0; i < all.length; i += CHUNK) {
    const rows: { uid: string; name: string }[] = await db
      .selectFrom("groups")
      .select(["uid", "name"])
      .where("uid", "in", all.slice(i, i + CHUNK))
      .execute();
    for (const row of rows) names.set(row.uid, row.name);
  }
  // The path of names down to uid; undefined when one of them is not a path component.
  const pathOf = (uid: string): string | undefined => {
    const segments = uid.split("/").map((_, k, parts) => names.get(parts.slice(0, k + 1).join("/")) ?? "");
    return segments.every((s) => PATH_COMPONENT.test(s)) ? segments.join("/") : undefined;
  };
  const rows = all.flatMap((uid) => {
    const path = pathOf(uid);
    return path === undefined ? [] : [{ path, group_uid: uid }];
  });
  for (let i = 0; i < rows.length; i += CHUNK)
    await db
      .insertInto("registry_paths")
      .values(rows.slice(i, i + CHUNK))
      .execute();
}
