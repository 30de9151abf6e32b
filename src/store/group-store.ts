/**
 * Groups in the `groups` table. Sibling names are unique by constraint, and the parent foreign
 * key (ON DELETE RESTRICT) is what finally keeps a group with children from being deleted.
 */
import { alreadyExists, failedPrecondition, notFound, type ApiError } from "../domain/errors.js";
import type { GroupRecord } from "../domain/groups.js";
import { parentOf } from "../domain/uid.js";
import { inTransaction, type Executor, type GroupsTable } from "./database.js";
import { groupFilter } from "./group-filter.js";
import { applyWindow } from "./row-window.js";
import { guard } from "./translate-error.js";
import type { GroupStore } from "./types.js";

/** The column of each field groups sort by (groupSortable's canonical names). */
const SORT_COLUMNS: Readonly<Record<string, keyof GroupsTable>> = {
  name: "name",
  uid: "uid",
  create_time: "create_time",
  update_time: "update_time",
};

/** The group store over an executor. */
export function createGroupStore(db: Executor): GroupStore {
  return {
    async insert(group) {
      await guard(() => db.insertInto("groups").values(toRow(group)).execute(), {
        unique: () => nameTaken(group.parentUid, group.name),
        foreignKey: () => notFound("group", group.parentUid ?? ""),
      });
    },

    async get(uid) {
      const row = await guard(() => db.selectFrom("groups").selectAll().where("uid", "=", uid).executeTakeFirst());
      return row && toGroup(row);
    },

    async findOrganization(name) {
      const row = await guard(() =>
        db.selectFrom("groups").selectAll().where("parent_uid", "is", null).where("name", "=", name).executeTakeFirst(),
      );
      return row && toGroup(row);
    },

    async update(uid, changes, updateTime) {
      const row = await guard(
        () =>
          db
            .updateTable("groups")
            // Kysely leaves out undefined values: only the changes given are set.
            .set({ name: changes.name, description: changes.description, update_time: updateTime })
            .where("uid", "=", uid)
            .returningAll()
            .executeTakeFirst(),
        // The uid is the path from the root (DESIGN 1.2), so it names the parent.
        { unique: () => nameTaken(parentOf(uid) ?? null, changes.name ?? "") },
      );
      return row && toGroup(row);
    },

    async delete(uid) {
      const hasChildren = () => notEmpty(uid, "child groups");
      return guard(
        () =>
          inTransaction(db, async (tx) => {
            // The check names what is in the way; the foreign key catches a child inserted
            // after it, which is why that violation means the same.
            const child = await tx
              .selectFrom("groups")
              .select("uid")
              .where("parent_uid", "=", uid)
              .limit(1)
              .executeTakeFirst();
            if (child !== undefined) throw hasChildren();
            // Role bindings go with the group (ON DELETE CASCADE).
            const { numDeletedRows } = await tx.deleteFrom("groups").where("uid", "=", uid).executeTakeFirstOrThrow();
            return numDeletedRows > 0n;
          }),
        { foreignKey: hasChildren },
      );
    },

    async list(filter, window) {
      const query = db.selectFrom("groups").selectAll().where((eb) => groupFilter(eb, filter));
      const rows = await guard(() => applyWindow(query, window, sortColumn).execute());
      return rows.map(toGroup);
    },

    async count(filter) {
      const row = await guard(() =>
        db
          .selectFrom("groups")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where((eb) => groupFilter(eb, filter))
          .executeTakeFirstOrThrow(),
      );
      return row.n;
    },
  };
}

function sortColumn(field: string): string {
  const column = SORT_COLUMNS[field];
  if (column === undefined) throw new RangeError(`groups are not sortable by ${field}`);
  return column;
}

function nameTaken(parentUid: string | null, name: string): ApiError {
  return parentUid === null
    ? alreadyExists(`organization named "${name}"`)
    : alreadyExists(`group named "${name}" under ${parentUid}`);
}

function notEmpty(uid: string, what: string): ApiError {
  return failedPrecondition("RESOURCE_NOT_EMPTY", uid, `cannot delete group with ${what}`);
}

function toRow(g: GroupRecord): GroupsTable {
  return {
    uid: g.uid,
    parent_uid: g.parentUid,
    name: g.name,
    description: g.description,
    create_time: g.createTime,
    update_time: g.updateTime,
  };
}

function toGroup(row: GroupsTable): GroupRecord {
  return {
    uid: row.uid,
    parentUid: row.parent_uid,
    name: row.name,
    description: row.description,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}
