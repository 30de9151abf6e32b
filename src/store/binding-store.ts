/**
 * Role bindings in the `role_bindings` table; they live and die with their group (ON DELETE
 * CASCADE).
 */
import { alreadyExists, notFound } from "../domain/errors.js";
import type { Executor, RoleBindingsTable } from "./database.js";
import { guard } from "./translate-error.js";
import type { BindingRecord, BindingStore } from "./types.js";

/** The binding store over an executor. */
export function createBindingStore(db: Executor): BindingStore {
  return {
    async insert(b) {
      await guard(() => db.insertInto("role_bindings").values(toRow(b)).execute(), {
        unique: () => alreadyExists(`role binding of ${b.identityUid} to role ${b.roleUid} in group ${b.groupUid}`),
        foreignKey: () => notFound("group", b.groupUid),
      });
    },

    async find(groupUid, identityUid, roleUid) {
      const row = await guard(() =>
        db
          .selectFrom("role_bindings")
          .selectAll()
          .where("group_uid", "=", groupUid)
          .where("identity_uid", "=", identityUid)
          .where("role_uid", "=", roleUid)
          .executeTakeFirst(),
      );
      return row && toBinding(row);
    },

    async forIdentity(identityUid) {
      const rows = await guard(() =>
        db
          .selectFrom("role_bindings")
          .selectAll()
          .where("identity_uid", "=", identityUid)
          .orderBy("create_time")
          .orderBy("uid")
          .execute(),
      );
      return rows.map(toBinding);
    },
  };
}

function toRow(b: BindingRecord): RoleBindingsTable {
  return {
    uid: b.uid,
    group_uid: b.groupUid,
    identity_uid: b.identityUid,
    role_uid: b.roleUid,
    create_time: b.createTime,
  };
}

function toBinding(row: RoleBindingsTable): BindingRecord {
  return {
    uid: row.uid,
    groupUid: row.group_uid,
    identityUid: row.identity_uid,
    roleUid: row.role_uid,
    createTime: row.create_time,
  };
}
