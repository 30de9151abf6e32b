/**
 * Logins in progress in `login_attempts` and `login_codes`. Taking one is a single
 * `delete ... returning` statement, so however many replicas race for it, one gets it.
 */
import type { Executor, LoginAttemptsTable, LoginCodesTable } from "./database.js";
import { guard } from "./translate-error.js";
import type { LoginAttemptRecord, LoginCodeRecord, LoginStore, UpstreamActor } from "./types.js";

/** The login store over an executor. */
export function createLoginStore(db: Executor): LoginStore {
  return {
    async insertAttempt(attempt, maxLive) {
      return guard(async () => {
        await db.deleteFrom("login_attempts").where("expire_time", "<=", attempt.createTime).execute();
        const { live } = await db
          .selectFrom("login_attempts")
          .select((eb) => eb.fn.countAll<number | string | bigint>().as("live"))
          .executeTakeFirstOrThrow();
        if (Number(live) >= maxLive) return false;
        await db.insertInto("login_attempts").values(attemptRow(attempt)).execute();
        return true;
      });
    },

    async takeAttempt(stateHash, now) {
      const row = await guard(() => db.deleteFrom("login_attempts").where("state_hash", "=", stateHash).returningAll().executeTakeFirst());
      return row && row.expire_time > now ? toAttempt(row) : undefined;
    },

    async insertCode(code) {
      await guard(async () => {
        await db.deleteFrom("login_codes").where("expire_time", "<=", code.createTime).execute();
        await db.insertInto("login_codes").values(codeRow(code)).execute();
      });
    },

    async takeCode(codeHash, now) {
      const row = await guard(() => db.deleteFrom("login_codes").where("code_hash", "=", codeHash).returningAll().executeTakeFirst());
      return row && row.expire_time > now ? toCode(row) : undefined;
    },
  };
}

function attemptRow(a: LoginAttemptRecord): LoginAttemptsTable {
  return {
    state_hash: a.stateHash,
    provider_uid: a.providerUid,
    issuer: a.issuer,
    client_id: a.clientId,
    code_verifier: a.codeVerifier,
    nonce: a.nonce,
    redirect_uri: a.redirectUri,
    code_challenge: a.codeChallenge,
    client_state: a.clientState,
    invite_code_hash: a.inviteCodeHash,
    create_time: a.createTime,
    expire_time: a.expireTime,
  };
}

function toAttempt(row: LoginAttemptsTable): LoginAttemptRecord {
  return {
    stateHash: row.state_hash,
    providerUid: row.provider_uid,
    issuer: row.issuer,
    clientId: row.client_id,
    codeVerifier: row.code_verifier,
    nonce: row.nonce,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    clientState: row.client_state,
    inviteCodeHash: row.invite_code_hash,
    createTime: row.create_time,
    expireTime: row.expire_time,
  };
}

function codeRow(c: LoginCodeRecord): LoginCodesTable {
  return {
    code_hash: c.codeHash,
    identity_uid: c.identityUid,
    actor: JSON.stringify(c.actor),
    redirect_uri: c.redirectUri,
    code_challenge: c.codeChallenge,
    create_time: c.createTime,
    expire_time: c.expireTime,
  };
}

function toCode(row: LoginCodesTable): LoginCodeRecord {
  return {
    codeHash: row.code_hash,
    identityUid: row.identity_uid,
    actor: JSON.parse(row.actor) as UpstreamActor,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    createTime: row.create_time,
    expireTime: row.expire_time,
  };
}
