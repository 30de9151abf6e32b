/**
 * 0010: which organizations each person has joined, by their own act: logging in through the
 * organization's identity provider, redeeming one of its invites, or creating it (or being made
 * its owner by the installation's operator). A person's name, issuer and subject are shown to an
 * organization only once they have joined it; a binding made to a person's uid before shows the
 * uid alone.
 *
 * Existing people count as having joined every organization they are bound in: before this
 * migration they were shown there already.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Creates organization_members, filled from the bindings people hold. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  await db.schema
    .createTable("organization_members")
    .addColumn("organization_uid", key, (c) => c.notNull().references("groups.uid").onDelete("cascade"))
    .addColumn("person_uid", key, (c) => c.notNull())
    .addColumn("join_time", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("organization_members_pkey", ["organization_uid", "person_uid"])
    .execute();
  await db.schema.createIndex("organization_members_person_uid_idx").on("organization_members").column("person_uid").execute();
  // A person's uid is 40 hex characters with no slash; so is an organization's, the first 40 of
  // any group uid under it.
  await sql`
    insert into organization_members (organization_uid, person_uid, join_time)
    select substr(b.group_uid, 1, 40), b.identity_uid, min(b.create_time)
      from role_bindings b
     where length(b.identity_uid) = 40
     group by substr(b.group_uid, 1, 40), b.identity_uid`.execute(db);
}
