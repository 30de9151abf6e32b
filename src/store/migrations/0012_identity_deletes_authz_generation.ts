/**
 * 0012: deleting an identity advances the authorization generation (migration 0007) too. Servers
 * remember, with the permissions they computed for a caller, that the caller's identity exists;
 * a token of a deleted identity must stop working on the next request, as a revoked binding does.
 * Inserts and updates leave it alone: only remembered existence can go stale, and an update (the
 * last-seen time of every token exchange) must not empty every server's cache.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates the trigger. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine === "postgres") {
    await sql`
      create trigger identities_authz_generation after delete on identities
      for each statement execute function arbor_advance_authz_generation()`.execute(db);
    return;
  }
  await sql`
    create trigger identities_authz_generation_delete after delete on identities
    begin update authz_generation set value = value + 1 where id = 1; end`.execute(db);
}
