/**
 * 0020: headless login, the OAuth device authorization grant (RFC 8628). A device authorization
 * lives in the store from the CLI's request until the CLI takes its tokens (or for as long again
 * after it expires, to answer expired_token), so any replica can answer any step: the CLI's
 * polls, the person's code entry, the provider's callback. Device codes and user codes are kept
 * as their SHA-256 only. A login attempt begun from the verification page names the device
 * authorization it finishes; browser logins leave that null.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates `device_authorizations` and links login attempts to one. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable("device_authorizations")
    .addColumn("device_code_hash", key, (c) => c.primaryKey().notNull())
    .addColumn("user_code_hash", key, (c) => c.notNull().unique())
    // The provider the login goes through, chosen when the CLI asked: null for the default one.
    .addColumn("provider_uid", key)
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("invite_code_hash", key)
    .addColumn("address_hash", key, (c) => c.notNull())
    .addColumn("organization_uid", key, (c) => c.notNull().defaultTo(""))
    // The polling interval, raised by every slow_down, and when the CLI last polled.
    .addColumn("interval_ms", "bigint", (c) => c.notNull())
    .addColumn("last_poll_time", "bigint")
    // 'pending', 'approved' (identity_uid and actor set) or 'denied' (denial says why).
    .addColumn("state", key, (c) => c.notNull().defaultTo("pending"))
    .addColumn("identity_uid", key)
    .addColumn("actor", "text")
    .addColumn("denial", "text")
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("expire_time", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("device_authorizations_expire_time_idx").on("device_authorizations").column("expire_time").execute();
  await db.schema.createIndex("device_authorizations_address_hash_idx").on("device_authorizations").column("address_hash").execute();
  await db.schema
    .createIndex("device_authorizations_organization_uid_idx")
    .on("device_authorizations")
    .column("organization_uid")
    .execute();
  await db.schema.alterTable("login_attempts").addColumn("device_code_hash", key).execute();
}
