/**
 * Refresh tokens in `refresh_families` and `refresh_tokens`. A rotation marks the presented
 * token used with one conditional statement, so of two rotations of the same token exactly one
 * wins; the loser sees a used token, which is what a replay looks like.
 */
import { type Executor, type RefreshFamiliesTable } from "./tables.js";
import { inTransaction } from "./nested-transactions.js";
import { guard } from "./translate-error.js";
import type { RefreshFamilyRecord, RotationOutcome } from "../domain/refresh-tokens.js";
import type { UpstreamActor } from "../domain/login.js";

/** Refresh tokens, kept as their SHA-256 only, in families that are revoked whole. */
export interface RefreshTokenStore {
  /** Sweeps expired families, then inserts family with its first token. */
  insertFamily(family: RefreshFamilyRecord, tokenHash: string): Promise<void>;
  /**
   * Marks the token used unless it already was and, in the same transaction, adds nextHash to
   * its family. Of two rotations of one token, exactly one is "rotated".
   */
  rotate(tokenHash: string, nextHash: string, now: number): Promise<RotationOutcome>;
  /** The family a token (used or not) belongs to, or undefined. */
  familyOf(tokenHash: string): Promise<RefreshFamilyRecord | undefined>;
  /** Deletes a family and all its tokens; false when there was none. */
  deleteFamily(uid: string): Promise<boolean>;
}

/** The refresh token store over an executor. */
export function createRefreshTokenStore(db: Executor): RefreshTokenStore {
  const familyOf = async (tx: Executor, tokenHash: string) =>
    tx
      .selectFrom("refresh_tokens")
      .innerJoin("refresh_families", "refresh_families.uid", "refresh_tokens.family_uid")
      .selectAll("refresh_families")
      .select("refresh_tokens.used_time")
      .where("refresh_tokens.token_hash", "=", tokenHash)
      .executeTakeFirst();

  return {
    async insertFamily(family, tokenHash) {
      await guard(() =>
        inTransaction(db, async (tx) => {
          await tx.deleteFrom("refresh_families").where("expire_time", "<=", family.createTime).execute();
          await tx.insertInto("refresh_families").values(familyRow(family)).execute();
          await tx
            .insertInto("refresh_tokens")
            .values({ token_hash: tokenHash, family_uid: family.uid, create_time: family.createTime, used_time: null })
            .execute();
        }),
      );
    },

    rotate(tokenHash, nextHash, now) {
      return guard(() =>
        inTransaction(db, async (tx): Promise<RotationOutcome> => {
          const marked = await tx
            .updateTable("refresh_tokens")
            .set({ used_time: now })
            .where("token_hash", "=", tokenHash)
            .where("used_time", "is", null)
            .executeTakeFirst();
          const row = await familyOf(tx, tokenHash);
          if (row === undefined) return { outcome: "unknown" };
          if (marked.numUpdatedRows === 0n) return { outcome: "reused", familyUid: row.uid };
          if (row.expire_time <= now) {
            await tx.deleteFrom("refresh_families").where("uid", "=", row.uid).execute();
            return { outcome: "expired" };
          }
          await tx
            .insertInto("refresh_tokens")
            .values({ token_hash: nextHash, family_uid: row.uid, create_time: now, used_time: null })
            .execute();
          return { outcome: "rotated", family: toFamily(row) };
        }),
      );
    },

    async familyOf(tokenHash) {
      const row = await guard(() => familyOf(db, tokenHash));
      return row && toFamily(row);
    },

    async deleteFamily(uid) {
      const result = await guard(() => db.deleteFrom("refresh_families").where("uid", "=", uid).executeTakeFirst());
      return result.numDeletedRows > 0n;
    },
  };
}

function familyRow(f: RefreshFamilyRecord): RefreshFamiliesTable {
  return { uid: f.uid, identity_uid: f.identityUid, actor: JSON.stringify(f.actor), create_time: f.createTime, expire_time: f.expireTime };
}

function toFamily(row: RefreshFamiliesTable): RefreshFamilyRecord {
  return {
    uid: row.uid,
    identityUid: row.identity_uid,
    actor: JSON.parse(row.actor) as UpstreamActor,
    createTime: row.create_time,
    expireTime: row.expire_time,
  };
}
