/**
 * Group invites in the `group_invites` table. They go with their group (ON DELETE CASCADE); their
 * role is not a foreign key, so an invite outlives its role and is refused on redemption.
 */
import type { AuthorityRecorder } from "../domain/authority.js";
import { alreadyExists, notFound } from "../domain/errors.js";
import { groupInviteSortValue } from "../domain/group-invite-rules.js";
import type { GroupInviteRecord } from "../domain/group-invites.js";
import type { Executor, GroupInvitesTable } from "./tables.js";
import type { Engine } from "./dialect.js";
import { ownUidLists } from "./list-changes.js";
import type { ScopeMemory } from "./scope-memory.js";
import { listConditions } from "./resource-filter.js";
import { resourceTable } from "./resource-table.js";
import { guard } from "./translate-error.js";
import { snakeColumns } from "./snake-columns.js";
import type { InviteFilter } from "../domain/group-invites.js";
import type { RowWindow } from "./row-window.js";

export interface GroupInviteStore {
  /** Inserts an invite. NOT_FOUND when its group is gone. */
  insert(invite: GroupInviteRecord): Promise<void>;
  /** The invite, or undefined. */
  get(uid: string): Promise<GroupInviteRecord | undefined>;
  /** The invite whose code has this SHA-256, or undefined. */
  findByCodeHash(codeHash: string): Promise<GroupInviteRecord | undefined>;
  /** Applies changes; undefined when it does not exist. */
  update(
    uid: string,
    changes: { email?: string; singleUse?: boolean; expirationTime?: number; redeemTime?: number | null },
  ): Promise<GroupInviteRecord | undefined>;
  /**
   * Marks a single-use invite redeemed at redeemTime unless it already was: true for the one
   * redemption that wins, false when it was redeemed before (or is gone). Two replicas redeeming
   * the same invite at once cannot both win.
   */
  redeem(uid: string, redeemTime: number): Promise<boolean>;
  /** Deletes an invite; false when it does not exist. */
  delete(uid: string): Promise<boolean>;
  /** The invites matching filter (fields: create_time, expiration_time, uid). */
  list(filter: InviteFilter, window: RowWindow): Promise<GroupInviteRecord[]>;
  /** How many invites match filter. */
  count(filter: InviteFilter): Promise<number>;
}

/** The group invite store over an executor. */
export function createGroupInviteStore(db: Executor, engine: Engine, record: AuthorityRecorder, memory: ScopeMemory): GroupInviteStore {
  const matching = (filter: InviteFilter) => listConditions(filter, { uid: "uid", parent: "parent_uid" }, { key_id: filter.keyId });
  const table = resourceTable(db, engine, {
    table: "group_invites",
    toRecord: toInvite,
    matching,
    sortColumns: { create_time: "create_time", expiration_time: "expiration_time", uid: "uid" },
  });

  return {
    async insert(invite) {
      await table.insert(toRow(invite), {
        violations: {
          // Both the uid and the code's hash are unique.
          unique: () => alreadyExists(`group invite ${invite.uid} or one with the same code`),
          foreignKey: () => notFound("group", invite.parentUid),
        },
      });
      record({ kind: "invite", groupUid: invite.parentUid, roleUid: invite.roleUid });
    },

    get: table.get,

    async findByCodeHash(codeHash) {
      const row = await guard(() => db.selectFrom("group_invites").selectAll().where("code_hash", "=", codeHash).executeTakeFirst());
      return row && toInvite(row);
    },

    async update(uid, changes) {
      const updated = await table.update(uid, {
        email: changes.email,
        single_use: changes.singleUse === undefined ? undefined : flag(changes.singleUse),
        expiration_time: changes.expirationTime,
        redeem_time: changes.redeemTime,
      });
      // Who may redeem it, how often and until when: each widens what its code hands out.
      if (updated) record({ kind: "invite", groupUid: updated.parentUid, roleUid: updated.roleUid });
      return updated;
    },

    async redeem(uid, redeemTime) {
      // One conditional statement: of two redemptions racing on any replicas, one updates the row.
      const result = await guard(() =>
        db
          .updateTable("group_invites")
          .set({ redeem_time: redeemTime })
          .where("uid", "=", uid)
          .where("redeem_time", "is", null)
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },

    delete: (uid) => table.delete(uid),
    ...ownUidLists(db, engine, memory, {
      name: "group_invites",
      list: table.list,
      count: table.count,
      fromRow: table.fromRow,
      matching,
      sortValue: groupInviteSortValue,
      narrower: (filter) => filter.keyId !== undefined,
    }),
  };
}

/** A boolean as both engines store it. */
function flag(b: boolean): number {
  return b ? 1 : 0;
}

const columns = snakeColumns<GroupInviteRecord, Exclude<keyof GroupInviteRecord, "singleUse">>({
  uid: true,
  parentUid: true,
  roleUid: true,
  email: true,
  codeHash: true,
  keyId: true,
  expirationTime: true,
  createTime: true,
  redeemTime: true,
});

function toRow(i: GroupInviteRecord): GroupInvitesTable {
  return { ...columns.toRow(i), single_use: flag(i.singleUse) };
}

function toInvite(row: GroupInvitesTable): GroupInviteRecord {
  return { ...columns.toRecord(row), singleUse: row.single_use !== 0 };
}
