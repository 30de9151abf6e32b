/**
 * Headless logins in `device_authorizations`. Every change is one conditional statement, so
 * however many replicas race (two polls, a poll and the callback), one wins: a device code is
 * settled once and its tokens are taken once.
 */
import { sql } from "kysely";
import { alreadyExists } from "../domain/errors.js";
import type { DeviceAuthorizationsTable, Executor } from "./tables.js";
import { guard } from "./translate-error.js";
import type {
  DeviceAuthorizationRecord,
  DeviceOutcome,
  DevicePoll,
  LoginAttemptAdmission,
  LoginAttemptLimits,
  UpstreamActor,
} from "../domain/login.js";

/**
 * Headless logins in progress, shared by every replica. A record outlives its expiry by as long
 * again (so a late poll learns it expired) and is then swept.
 */
export interface DeviceAuthorizationStore {
  /** Sweeps long-expired records, then inserts this one unless a limit (counting unexpired records) is reached already. */
  insert(record: DeviceAuthorizationRecord, limits: LoginAttemptLimits): Promise<LoginAttemptAdmission>;
  /** The pending, unexpired authorization with this user code hash. */
  findPending(userCodeHash: string, now: number): Promise<DeviceAuthorizationRecord | undefined>;
  /** Settles a pending, unexpired authorization; false when it is not one (any more). */
  settle(deviceCodeHash: string, outcome: Exclude<DeviceOutcome, { state: "pending" }>, now: number): Promise<boolean>;
  /**
   * Records a poll at now: too soon when it comes less than the interval (less slackMs) after the
   * last, and then the interval grows by slowDownMs. Undefined for an unknown device code.
   */
  poll(deviceCodeHash: string, now: number, slackMs: number, slowDownMs: number): Promise<DevicePoll | undefined>;
  /** Removes and returns the authorization if it is in state; undefined otherwise (someone else took it). */
  take(deviceCodeHash: string, state: DeviceOutcome["state"]): Promise<DeviceAuthorizationRecord | undefined>;
}

/** The columns of numbers (the rest are text); a null must be cast to its column's type. */
const NUMBERS = new Set<keyof DeviceAuthorizationsTable>(["interval_ms", "last_poll_time", "create_time", "expire_time"]);

/** The device authorization store over an executor. */
export function createDeviceAuthorizationStore(db: Executor): DeviceAuthorizationStore {
  const table = "device_authorizations" as const;
  return {
    /** ALREADY_EXISTS when the user code is another record's (live or lingering): the caller draws another. */
    async insert(record, limits) {
      return guard(
        async () => {
          const now = record.createTime;
          // Kept for as long again as they lived, so a late poll hears expired_token rather than invalid_grant.
          await db
            .deleteFrom(table)
            .where("expire_time", "<=", now - (record.expireTime - now))
            .execute();
          const row = toRow(record);
          const columns = Object.keys(row) as (keyof DeviceAuthorizationsTable)[];
          const live = (column?: "address_hash" | "organization_uid") => {
            const q = db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll<number | string | bigint>().as("n"))
              .where("expire_time", ">", now);
            return column === undefined ? q : q.where(column, "=", row[column]);
          };
          // Counted and stored in one statement, as login attempts are (login-store.ts).
          const inserted = await db
            .insertInto(table)
            .columns(columns)
            .expression(
              db
                .selectNoFrom(() => columns.map((c) => sql`cast(${row[c]} as ${sql.raw(NUMBERS.has(c) ? "bigint" : "text")})`.as(c)))
                .where((eb) =>
                  eb.and([
                    eb(live(), "<", limits.live),
                    eb(live("address_hash"), "<", limits.perAddress),
                    eb(live("organization_uid"), "<", limits.perOrganization),
                  ]),
                ),
            )
            .returning("device_code_hash")
            .executeTakeFirst();
          if (inserted !== undefined) return "stored";
          const full = await db
            .selectNoFrom((eb) => [
              eb(live("address_hash"), ">=", limits.perAddress).as("address"),
              eb(live("organization_uid"), ">=", limits.perOrganization).as("organization"),
            ])
            .executeTakeFirstOrThrow();
          return full.address ? "address" : full.organization ? "organization" : "server";
        },
        { unique: () => alreadyExists("a device authorization with this user code") },
      );
    },

    async findPending(userCodeHash, now) {
      const row = await guard(() =>
        db
          .selectFrom(table)
          .selectAll()
          .where("user_code_hash", "=", userCodeHash)
          .where("state", "=", "pending")
          .where("expire_time", ">", now)
          .executeTakeFirst(),
      );
      return row && toRecord(row);
    },

    async settle(deviceCodeHash, outcome, now) {
      const set =
        outcome.state === "approved"
          ? { state: outcome.state, identity_uid: outcome.identityUid, actor: JSON.stringify(outcome.actor) }
          : { state: outcome.state, denial: outcome.denial };
      const result = await guard(() =>
        db
          .updateTable(table)
          .set(set)
          .where("device_code_hash", "=", deviceCodeHash)
          .where("state", "=", "pending")
          .where("expire_time", ">", now)
          .executeTakeFirst(),
      );
      return Number(result.numUpdatedRows) === 1;
    },

    async poll(deviceCodeHash, now, slackMs, slowDownMs) {
      return guard(async () => {
        const inTime = await db
          .updateTable(table)
          .set({ last_poll_time: now })
          .where("device_code_hash", "=", deviceCodeHash)
          .where((eb) => eb.or([eb("last_poll_time", "is", null), eb(sql<number>`last_poll_time + interval_ms - ${slackMs}`, "<=", now)]))
          .returningAll()
          .executeTakeFirst();
        if (inTime !== undefined) return { record: toRecord(inTime), tooSoon: false };
        const tooSoon = await db
          .updateTable(table)
          .set((eb) => ({ last_poll_time: now, interval_ms: eb("interval_ms", "+", slowDownMs) }))
          .where("device_code_hash", "=", deviceCodeHash)
          .returningAll()
          .executeTakeFirst();
        return tooSoon && { record: toRecord(tooSoon), tooSoon: true };
      });
    },

    async take(deviceCodeHash, state) {
      const row = await guard(() =>
        db.deleteFrom(table).where("device_code_hash", "=", deviceCodeHash).where("state", "=", state).returningAll().executeTakeFirst(),
      );
      return row && toRecord(row);
    },
  };
}

function toRow(r: DeviceAuthorizationRecord): DeviceAuthorizationsTable {
  const o = r.outcome;
  return {
    device_code_hash: r.deviceCodeHash,
    user_code_hash: r.userCodeHash,
    provider_uid: r.providerUid,
    issuer: r.issuer,
    client_id: r.clientId,
    invite_code_hash: r.inviteCodeHash,
    address_hash: r.addressHash,
    organization_uid: r.organizationUid,
    interval_ms: r.intervalMs,
    last_poll_time: r.lastPollTime,
    state: o.state,
    identity_uid: o.state === "approved" ? o.identityUid : null,
    actor: o.state === "approved" ? JSON.stringify(o.actor) : null,
    denial: o.state === "denied" ? o.denial : null,
    create_time: r.createTime,
    expire_time: r.expireTime,
  };
}

function toRecord(row: DeviceAuthorizationsTable): DeviceAuthorizationRecord {
  return {
    deviceCodeHash: row.device_code_hash,
    userCodeHash: row.user_code_hash,
    providerUid: row.provider_uid,
    issuer: row.issuer,
    clientId: row.client_id,
    inviteCodeHash: row.invite_code_hash,
    addressHash: row.address_hash,
    organizationUid: row.organization_uid,
    intervalMs: Number(row.interval_ms),
    lastPollTime: row.last_poll_time === null ? null : Number(row.last_poll_time),
    outcome: outcomeOf(row),
    createTime: Number(row.create_time),
    expireTime: Number(row.expire_time),
  };
}

function outcomeOf(row: DeviceAuthorizationsTable): DeviceOutcome {
  if (row.state === "approved")
    return { state: "approved", identityUid: row.identity_uid ?? "", actor: JSON.parse(row.actor ?? "{}") as UpstreamActor };
  if (row.state === "denied") return { state: "denied", denial: row.denial ?? "" };
  return { state: "pending" };
}
