/**
 * 0003: people's login. Login attempts (between the redirect to the upstream provider and its
 * callback) and Arbor's one-time authorization codes (between the callback and the CLI's token
 * request) live in the store, so any replica can finish a login another began. Refresh tokens
 * come in families: one per login, rotated on every use.
 *
 * Every secret is kept as its SHA-256 only (state, codes, refresh tokens), except the upstream
 * PKCE verifier, which must be sent to the provider as it is.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates the login tables. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;

  await db.schema
    .createTable("login_attempts")
    .addColumn("state_hash", key, (c) => c.primaryKey().notNull())
    // The organization's identity provider; null for the server's default login provider.
    .addColumn("provider_uid", key)
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("code_verifier", "text", (c) => c.notNull())
    .addColumn("nonce", "text", (c) => c.notNull())
    // The CLI's loopback redirect URI, its PKCE challenge and its own state, for the last hop.
    .addColumn("redirect_uri", "text", (c) => c.notNull())
    .addColumn("code_challenge", "text", (c) => c.notNull())
    .addColumn("client_state", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("invite_code_hash", key)
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("expire_time", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("login_attempts_expire_time_idx").on("login_attempts").column("expire_time").execute();

  await db.schema
    .createTable("login_codes")
    .addColumn("code_hash", key, (c) => c.primaryKey().notNull())
    .addColumn("identity_uid", key, (c) => c.notNull())
    // JSON of the upstream token's issuer, subject and audience (the `act` of tokens).
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("redirect_uri", "text", (c) => c.notNull())
    .addColumn("code_challenge", "text", (c) => c.notNull())
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("expire_time", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("login_codes_expire_time_idx").on("login_codes").column("expire_time").execute();

  await db.schema
    .createTable("refresh_families")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    .addColumn("identity_uid", key, (c) => c.notNull())
    .addColumn("actor", "text", (c) => c.notNull())
    .addColumn("create_time", "bigint", (c) => c.notNull())
    // Absolute: a family never outlives its login's lifetime, however often it rotates.
    .addColumn("expire_time", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("refresh_families_expire_time_idx").on("refresh_families").column("expire_time").execute();
  await db.schema.createIndex("refresh_families_identity_uid_idx").on("refresh_families").column("identity_uid").execute();

  await db.schema
    .createTable("refresh_tokens")
    .addColumn("token_hash", key, (c) => c.primaryKey().notNull())
    // Revoking a family (logout, or a replayed token) deletes it and so every token of it.
    .addColumn("family_uid", key, (c) => c.notNull().references("refresh_families.uid").onDelete("cascade"))
    .addColumn("create_time", "bigint", (c) => c.notNull())
    // Set when the token is exchanged for its successor; a second use is a replay.
    .addColumn("used_time", "bigint")
    .execute();
  await db.schema.createIndex("refresh_tokens_family_uid_idx").on("refresh_tokens").column("family_uid").execute();
}
