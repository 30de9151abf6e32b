/**
 * Logins in progress in `login_attempts` and `login_codes`. Taking one is a single
 * `delete ... returning` statement, so however many replicas race for it, one gets it.
 */
import { sql } from "kysely";
import type { Executor, LoginAttemptsTable, LoginCodesTable } from "./tables.js";
import { guard } from "./translate-error.js";
import { snakeColumns } from "./snake-columns.js";
import type { LoginAttemptRecord, LoginCodeRecord, UpstreamActor } from "../domain/login.js";
import type { LoginAttemptAdmission, LoginAttemptLimits } from "../domain/login.js";

/**
 * Logins in progress, shared by every replica. Attempts and codes are taken (deleted and
 * returned) in one statement, so each is used at most once.
 */
export interface LoginStore {
  /**
   * Sweeps expired attempts, then inserts this one unless a limit is reached already: `limits.live`
   * in all, `perAddress` with its address hash, `perOrganization` with its organization. Says
   * which limit refused it, else "stored".
   */
  insertAttempt(attempt: LoginAttemptRecord, limits: LoginAttemptLimits): Promise<LoginAttemptAdmission>;
  /** Removes and returns the attempt with this state hash; undefined when there is none or it expired at now. */
  takeAttempt(stateHash: string, now: number): Promise<LoginAttemptRecord | undefined>;
  /** Sweeps expired codes, then inserts this one. */
  insertCode(code: LoginCodeRecord): Promise<void>;
  /** Removes and returns the code with this hash; undefined when there is none or it expired at now. */
  takeCode(codeHash: string, now: number): Promise<LoginCodeRecord | undefined>;
}

/** The login store over an executor. */
export function createLoginStore(db: Executor): LoginStore {
  return {
    async insertAttempt(attempt, limits) {
      return guard(async () => {
        await db.deleteFrom("login_attempts").where("expire_time", "<=", attempt.createTime).execute();
        const row = attemptRow(attempt);
        const columns = Object.keys(row) as (keyof LoginAttemptsTable)[];
        // One conditional insert: counted and stored in the same statement, which SQLite runs
        // alone; on PostgreSQL logins starting at the very same moment may each pass a count, so
        // a limit can be passed by as many as start together, never by more.
        const inserted = await db
          .insertInto("login_attempts")
          .columns(columns)
          .expression(
            db
              .selectNoFrom(() =>
                columns.map((c) => sql`cast(${row[c]} as ${sql.raw(typeof row[c] === "number" ? "bigint" : "text")})`.as(c)),
              )
              .where((eb) =>
                eb.and([
                  eb(count(db), "<", limits.live),
                  eb(count(db, "address_hash", row.address_hash), "<", limits.perAddress),
                  eb(count(db, "organization_uid", row.organization_uid), "<", limits.perOrganization),
                ]),
              ),
          )
          .returning("state_hash")
          .executeTakeFirst();
        if (inserted !== undefined) return "stored";
        const counts = await db
          .selectNoFrom((eb) => [
            eb(count(db, "address_hash", row.address_hash), ">=", limits.perAddress).as("address"),
            eb(count(db, "organization_uid", row.organization_uid), ">=", limits.perOrganization).as("organization"),
          ])
          .executeTakeFirstOrThrow();
        return counts.address ? "address" : counts.organization ? "organization" : "server";
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

/** The number of login attempts, all of them or those whose column is value. */
function count(db: Executor, column?: "address_hash" | "organization_uid", value?: string) {
  const all = db.selectFrom("login_attempts").select((eb) => eb.fn.countAll<number | string | bigint>().as("n"));
  return column === undefined ? all : all.where(column, "=", value as string);
}

const attemptColumns = snakeColumns<LoginAttemptRecord>({
  stateHash: true,
  providerUid: true,
  issuer: true,
  clientId: true,
  codeVerifier: true,
  nonce: true,
  redirectUri: true,
  codeChallenge: true,
  clientState: true,
  inviteCodeHash: true,
  createTime: true,
  expireTime: true,
  addressHash: true,
  organizationUid: true,
  deviceCodeHash: true,
});
const attemptRow: (a: LoginAttemptRecord) => LoginAttemptsTable = attemptColumns.toRow;
const toAttempt: (row: LoginAttemptsTable) => LoginAttemptRecord = attemptColumns.toRecord;

const codeColumns = snakeColumns<LoginCodeRecord, Exclude<keyof LoginCodeRecord, "actor">>({
  codeHash: true,
  identityUid: true,
  redirectUri: true,
  codeChallenge: true,
  createTime: true,
  expireTime: true,
});

function codeRow(c: LoginCodeRecord): LoginCodesTable {
  return { ...codeColumns.toRow(c), actor: JSON.stringify(c.actor) };
}

function toCode(row: LoginCodesTable): LoginCodeRecord {
  return { ...codeColumns.toRecord(row), actor: JSON.parse(row.actor) as UpstreamActor };
}
