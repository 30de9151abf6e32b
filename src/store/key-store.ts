/**
 * Token signing keys in the `signing_keys` table, shared by every replica.
 */
import type { Executor, SigningKeysTable } from "./database.js";
import { guard } from "./translate-error.js";
import type { KeyStore, SigningKeyRecord } from "./types.js";

/** The key store over an executor. */
export function createKeyStore(db: Executor): KeyStore {
  return {
    async insert(key) {
      await guard(() => db.insertInto("signing_keys").values(toRow(key)).execute());
    },

    async live(now) {
      const rows = await guard(() =>
        db
          .selectFrom("signing_keys")
          .selectAll()
          .where("retire_time", ">", now)
          .orderBy("create_time", "desc")
          .orderBy("kid", "desc")
          .execute(),
      );
      return rows.map(toKey);
    },

    async deleteRetired(now) {
      // The complement of live(now): a key retired at exactly `now` is no longer live.
      await guard(() => db.deleteFrom("signing_keys").where("retire_time", "<=", now).execute());
    },
  };
}

function toRow(k: SigningKeyRecord): SigningKeysTable {
  return {
    kid: k.kid,
    private_jwk: k.privateJwk,
    public_jwk: k.publicJwk,
    create_time: k.createTime,
    rotate_time: k.rotateTime,
    retire_time: k.retireTime,
  };
}

function toKey(row: SigningKeysTable): SigningKeyRecord {
  return {
    kid: row.kid,
    privateJwk: row.private_jwk,
    publicJwk: row.public_jwk,
    createTime: row.create_time,
    rotateTime: row.rotate_time,
    retireTime: row.retire_time,
  };
}
