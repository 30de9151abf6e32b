/**
 * Token signing keys in the `signing_keys` table, shared by every replica. Private keys are
 * sealed with the secrets key (src/store/sealing.ts): a copy of the table signs nothing.
 */
import type { SecretBox } from "../domain/secret-box.js";
import type { Executor, SigningKeysTable } from "./tables.js";
import { resealColumn, sealingWith, type Sealing } from "./sealing.js";
import { snakeColumns } from "./snake-columns.js";
import { guard } from "./translate-error.js";
import type { SigningKeyRecord } from "../domain/signing-keys.js";

/** Signing keys, shared by every replica. */
export interface KeyStore {
  insert(key: SigningKeyRecord): Promise<void>;
  /** Keys not yet retired at `now`, newest first. */
  live(now: number): Promise<SigningKeyRecord[]>;
  /** Deletes keys retired before `now`. */
  deleteRetired(now: number): Promise<void>;
  /**
   * A rotation: every key but `kept` stops signing at `now` (if it still did) and retires at
   * `retireBy` at the latest, staying published until then.
   */
  endSigning(kept: string, now: number, retireBy: number): Promise<void>;
  /** Seals every private key not sealed under the current secrets key; as IdentityProviderStore.resealSecrets. */
  resealSecrets(checkOnly?: boolean): Promise<number>;
}

/** The key store over an executor; secrets seals the private keys. */
export function createKeyStore(db: Executor, secrets: SecretBox | undefined): KeyStore {
  const sealing = sealingWith(secrets, "a token signing key");
  return {
    async insert(key) {
      await guard(() => db.insertInto("signing_keys").values(toRow(key, sealing)).execute());
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
      return rows.map((row) => toKey(row, sealing));
    },

    async deleteRetired(now) {
      // The complement of live(now): a key retired at exactly `now` is no longer live.
      await guard(() => db.deleteFrom("signing_keys").where("retire_time", "<=", now).execute());
    },

    async endSigning(kept, now, retireBy) {
      // Two statements, each harmless alone: a crash between them leaves a key signing a little longer.
      await guard(() =>
        db.updateTable("signing_keys").set({ rotate_time: now }).where("kid", "!=", kept).where("rotate_time", ">", now).execute(),
      );
      await guard(() =>
        db
          .updateTable("signing_keys")
          .set({ retire_time: retireBy })
          .where("kid", "!=", kept)
          .where("retire_time", ">", retireBy)
          .execute(),
      );
    },

    resealSecrets: (checkOnly = false) => resealColumn(db, sealing, { table: "signing_keys", key: "kid", value: "private_jwk" }, checkOnly),
  };
}

const columns = snakeColumns<SigningKeyRecord, Exclude<keyof SigningKeyRecord, "privateJwk">>({
  kid: true,
  publicJwk: true,
  createTime: true,
  rotateTime: true,
  retireTime: true,
});

function toRow(k: SigningKeyRecord, sealing: Sealing): SigningKeysTable {
  return { ...columns.toRow(k), private_jwk: sealing.seal(k.privateJwk) };
}

function toKey(row: SigningKeysTable, sealing: Sealing): SigningKeyRecord {
  return { ...columns.toRecord(row), privateJwk: sealing.open(row.private_jwk) };
}
