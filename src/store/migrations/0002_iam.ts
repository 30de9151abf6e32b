/**
 * 0002: the rest of IAM: roles (with the built-in ones as rows, so roles list and page in SQL),
 * identities, identity providers, account associations and group invites; role bindings gain a
 * foreign key to their role, so a bound role cannot be deleted.
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { createHash } from "node:crypto";
import { sql, type Kysely } from "kysely";

const BUILTIN_ROLES: [string, string][] = [
  ["owner", "Owner Role (built-in)"],
  ["editor", "Editor Role (built-in)"],
  ["viewer", "Viewer Role (built-in)"],
  ["registry.pull", "Registry Pull Role (built-in)"],
  ["registry.push", "Registry Push Role (built-in)"],
];

/** Creates the IAM tables. */
export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  const key = engine === "postgres" ? sql`text collate "C"` : sql`text`;
  const index = (table: string, columns: string[]) =>
    db.schema
      .createIndex(`${table}_${columns.join("_")}_idx`)
      .on(table)
      .columns(columns)
      .execute();

  await db.schema
    .createTable("roles")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    // Custom roles go with their group; built-in roles have none.
    .addColumn("parent_uid", key, (c) => c.references("groups.uid").onDelete("cascade"))
    .addColumn("name", key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    // JSON array of dotted capability names; empty for built-in roles, whose capabilities are code.
    .addColumn("capabilities", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("update_time", "bigint", (c) => c.notNull())
    .addUniqueConstraint("roles_parent_uid_name_key", ["parent_uid", "name"])
    .execute();
  await db.schema
    .createIndex("roles_builtin_name_key")
    .unique()
    .on("roles")
    .column("name")
    .where(sql.ref("parent_uid"), "is", null)
    .execute();
  for (const columns of [
    ["parent_uid", "name", "uid"],
    ["name", "uid"],
    ["create_time", "uid"],
    ["update_time", "uid"],
  ])
    await index("roles", columns);
  const now = Date.now();
  await db
    .insertInto("roles")
    .values(
      BUILTIN_ROLES.map(([name, description]) => ({
        uid: createHash("sha1").update(`arbor/builtin-role/${name}`).digest("hex"),
        parent_uid: null,
        name,
        description,
        capabilities: "[]",
        create_time: now,
        update_time: now,
      })),
    )
    .execute();

  await db.schema
    .createTable("identities")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    // Root-level identities (people) have no group; a group with identities cannot be deleted.
    .addColumn("parent_uid", key, (c) => c.references("groups.uid").onDelete("restrict"))
    .addColumn("name", key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    // JSON of how tokens are recognised (claim match, static keys, or a person's issuer and subject).
    .addColumn("relationship", "text", (c) => c.notNull())
    // The exact issuer and subject when there are ones: for hydrating bindings and finding people.
    .addColumn("issuer", key)
    .addColumn("subject", key)
    .addColumn("last_seen_time", "bigint")
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("update_time", "bigint", (c) => c.notNull())
    .addUniqueConstraint("identities_parent_uid_name_key", ["parent_uid", "name"])
    .execute();
  for (const columns of [
    ["parent_uid", "name", "uid"],
    ["name", "uid"],
    ["create_time", "uid"],
    ["update_time", "uid"],
    ["issuer", "subject"],
  ]) {
    await index("identities", columns);
  }

  await bindingsWithRoleKey(db, engine, key);

  await db.schema
    .createTable("identity_providers")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    .addColumn("parent_uid", key, (c) => c.notNull().references("groups.uid").onDelete("cascade"))
    .addColumn("name", key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    // A role that is some provider's default cannot be deleted.
    .addColumn("default_role", key, (c) => c.notNull().references("roles.uid"))
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("client_secret", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("additional_scopes", "text", (c) => c.notNull().defaultTo("[]"))
    .addColumn("groups_claim", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("update_time", "bigint", (c) => c.notNull())
    .addUniqueConstraint("identity_providers_parent_uid_name_key", ["parent_uid", "name"])
    .execute();
  for (const columns of [["name", "uid"], ["create_time", "uid"], ["update_time", "uid"], ["default_role"]])
    await index("identity_providers", columns);

  await db.schema
    .createTable("account_associations")
    // The association's uid is its group's: at most one per group, gone with the group.
    .addColumn("uid", key, (c) => c.primaryKey().notNull().references("groups.uid").onDelete("cascade"))
    .addColumn("name", key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    // JSON of each provider's settings, or null.
    .addColumn("amazon", "text")
    .addColumn("google", "text")
    .addColumn("azure", "text")
    .addColumn("github", "text")
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("update_time", "bigint", (c) => c.notNull())
    .execute();
  for (const columns of [
    ["name", "uid"],
    ["create_time", "uid"],
    ["update_time", "uid"],
  ])
    await index("account_associations", columns);

  await db.schema
    .createTable("group_invites")
    .addColumn("uid", key, (c) => c.primaryKey().notNull())
    .addColumn("parent_uid", key, (c) => c.notNull().references("groups.uid").onDelete("cascade"))
    // No foreign key: an invite outlives its role and then shows none (the role is checked on redemption).
    .addColumn("role_uid", key, (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("single_use", "integer", (c) => c.notNull().defaultTo(0))
    // SHA-256 of the code; the code itself is shown once and never stored.
    .addColumn("code_hash", key, (c) => c.notNull().unique())
    .addColumn("key_id", key, (c) => c.notNull())
    .addColumn("expiration_time", "bigint", (c) => c.notNull())
    .addColumn("create_time", "bigint", (c) => c.notNull())
    .addColumn("redeem_time", "bigint")
    .execute();
  for (const columns of [["create_time", "uid"], ["expiration_time", "uid"], ["key_id"]]) await index("group_invites", columns);
}

/**
 * Gives role_bindings a foreign key to roles (NO ACTION, checked at the end of the statement, so
 * a group's cascade can remove a custom role together with the bindings on it). SQLite cannot add
 * a constraint to a table, so there the table is rebuilt.
 */
async function bindingsWithRoleKey(db: Kysely<any>, engine: "sqlite" | "postgres", key: ReturnType<typeof sql>): Promise<void> {
  if (engine === "postgres") {
    await sql`alter table role_bindings add constraint role_bindings_role_uid_fkey foreign key (role_uid) references roles (uid)`.execute(
      db,
    );
  } else {
    await db.schema
      .createTable("role_bindings_new")
      .addColumn("uid", key, (c) => c.primaryKey().notNull())
      .addColumn("group_uid", key, (c) => c.notNull().references("groups.uid").onDelete("cascade"))
      .addColumn("identity_uid", key, (c) => c.notNull())
      .addColumn("role_uid", key, (c) => c.notNull().references("roles.uid"))
      .addColumn("create_time", "bigint", (c) => c.notNull())
      .addUniqueConstraint("role_bindings_group_identity_role_key", ["group_uid", "identity_uid", "role_uid"])
      .execute();
    await sql`insert into role_bindings_new select uid, group_uid, identity_uid, role_uid, create_time from role_bindings`.execute(db);
    // rolling-unsafe: SQLite's way to add a constraint, in one transaction, before any release (one process serves an SQLite store)
    await db.schema.dropTable("role_bindings").execute();
    // rolling-unsafe: the same rebuild; the table keeps its name and columns
    await db.schema.alterTable("role_bindings_new").renameTo("role_bindings").execute();
    await db.schema.createIndex("role_bindings_identity_uid_idx").on("role_bindings").column("identity_uid").execute();
  }
  await db.schema.createIndex("role_bindings_role_uid_idx").on("role_bindings").column("role_uid").execute();
  await db.schema.createIndex("role_bindings_create_time_uid_idx").on("role_bindings").columns(["create_time", "uid"]).execute();
}
