/**
 * The store as a whole on every engine: transactions, ping and close, reopening, and two
 * processes starting on one database at once.
 */
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import { createStore } from "../../src/store/create-store.js";
import { describeEachEngine, withClient } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";

const run = promisify(execFile);
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

describeEachEngine("store", (t) => {
  const store = () => t.store();

  describe("transaction", () => {
    it("commits when fn resolves", async () => {
      const result = await store().atomically(async (tx) => {
        await tx.groups.insert(group(rootUid(1), "committed"));
        return "done";
      });
      expect(result).toBe("done");
      expect(await store().groups.get(rootUid(1))).toBeDefined();
    });

    it("rolls back when fn throws, and rethrows fn's own error", async () => {
      const own = new Error("changed my mind");
      const attempt = store().atomically(async (tx) => {
        await tx.groups.insert(group(rootUid(2), "rolled-back"));
        await tx.settings.getOrCreate("rolled-back", () => "x");
        throw own;
      });
      await expect(attempt).rejects.toBe(own);
      expect(await store().groups.get(rootUid(2))).toBeUndefined();
      expect(await store().settings.getOrCreate("rolled-back", () => "y")).toBe("y");
    });

    it("rolls back everything when a store call inside fails", async () => {
      const attempt = store().atomically(async (tx) => {
        await tx.groups.insert(group(rootUid(3), "first"));
        await tx.groups.insert(group(rootUid(4), "first"));
      });
      await expect(attempt).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
      expect(await store().groups.get(rootUid(3))).toBeUndefined();
    });

    it("holds a delete with the rest of the transaction", async () => {
      await store().groups.insert(group(rootUid(5), "kept"));
      await store().groups.insert(group(childUid(rootUid(5), 1), "kept child"));
      const attempt = store().atomically(async (tx) => {
        expect(await tx.groups.delete(childUid(rootUid(5), 1))).toBe(true);
        expect(await tx.groups.delete(rootUid(5))).toBe(true);
        throw new Error("undo");
      });
      await expect(attempt).rejects.toThrow("undo");
      expect(await store().groups.get(childUid(rootUid(5), 1))).toBeDefined();
    });
  });

  // The test database may well have a C locale already, so the ordering tests alone cannot tell.
  if (t.engine === "postgres")
    it("compares uids and names byte-wise on PostgreSQL, whatever the locale", async () => {
      const { databaseUrl = "", schema } = t.options();
      const { rows } = await withClient(databaseUrl, (c) =>
        c.query<{ column: string; collation: string | null }>(
          `select table_name || '.' || column_name as column, collation_name as collation
           from information_schema.columns
          where table_schema = $1 and data_type = 'text' and table_name not like 'kysely%'
            and column_name not in ('description', 'private_jwk', 'public_jwk', 'value', 'capabilities', 'relationship',
                                    'amazon', 'google', 'azure', 'github', 'email', 'client_id', 'client_secret',
                                    'additional_scopes', 'groups_claim', 'code_verifier', 'nonce', 'redirect_uri',
                                    'code_challenge', 'client_state', 'actor', 'search', 'document', 'before', 'after',
                                    'data', 'read_caps', 'sink', 'types', 'last_error', 'checked', 'definition')
            and table_name || '.' || column_name not in ('identity_providers.issuer', 'login_attempts.issuer',
                                                         'device_authorizations.issuer', 'device_authorizations.denial')
          order by 1`,
          [schema],
        ),
      );
      // Free text and JSON are left out above; everything compared or ordered is here.
      expect(rows.map((r) => r.column)).toEqual([
        "account_associations.name",
        "account_associations.uid",
        "advisories.content_hash",
        "advisories.uid",
        "advisory_aliases.advisory_uid",
        "advisory_aliases.alias",
        "advisory_counts.key",
        "advisory_deferred_schema.kind",
        "advisory_deferred_schema.name",
        "advisory_feed_cursors.boundary_ids",
        "advisory_feed_cursors.feed",
        "advisory_feed_cursors.modified",
        "advisory_packages.advisory_uid",
        "advisory_packages.ecosystem",
        "advisory_packages.ecosystem_base",
        "advisory_packages.name",
        "advisory_texts.uid",
        "audit_event_counts.group_uid",
        "audit_event_counts.key",
        "audit_events.action",
        "audit_events.actor_uid",
        "audit_events.group_uid",
        "audit_events.method",
        "audit_events.resource_type",
        "audit_events.resource_uid",
        "audit_events.root_uid",
        "audit_events.uid",
        "authz_identity_generations.identity_uid",
        "device_authorizations.address_hash",
        "device_authorizations.device_code_hash",
        "device_authorizations.identity_uid",
        "device_authorizations.invite_code_hash",
        "device_authorizations.organization_uid",
        "device_authorizations.provider_uid",
        "device_authorizations.state",
        "device_authorizations.user_code_hash",
        "event_outbox.group_uid",
        "event_outbox.id",
        "event_outbox.subject",
        "event_outbox.type",
        "event_subscriptions.creator_uid",
        "event_subscriptions.parent_uid",
        "event_subscriptions.uid",
        "group_descendant_counts.ancestor_uid",
        "group_invites.code_hash",
        "group_invites.key_id",
        "group_invites.parent_uid",
        "group_invites.role_uid",
        "group_invites.uid",
        "groups.name",
        "groups.parent_uid",
        "groups.uid",
        "identities.issuer",
        "identities.name",
        "identities.parent_uid",
        "identities.subject",
        "identities.uid",
        "identity_providers.default_role",
        "identity_providers.name",
        "identity_providers.parent_uid",
        "identity_providers.uid",
        "list_changes.row_uid",
        "list_changes.scope_uid",
        "list_changes.table_name",
        "login_attempts.address_hash",
        "login_attempts.device_code_hash",
        "login_attempts.invite_code_hash",
        "login_attempts.organization_uid",
        "login_attempts.provider_uid",
        "login_attempts.state_hash",
        "login_codes.code_hash",
        "login_codes.identity_uid",
        "manifest_deletes.digest",
        "manifest_deletes.repo_uid",
        "organization_members.organization_uid",
        "organization_members.person_uid",
        "refresh_families.identity_uid",
        "refresh_families.uid",
        "refresh_tokens.family_uid",
        "refresh_tokens.token_hash",
        "registry_paths.group_uid",
        "registry_paths.path",
        "repos.name",
        "repos.parent_uid",
        "repos.uid",
        "role_bindings.group_uid",
        "role_bindings.identity_uid",
        "role_bindings.role_uid",
        "role_bindings.uid",
        "roles.name",
        "roles.parent_uid",
        "roles.uid",
        "settings.name",
        "signing_keys.kid",
        "tags.digest",
        "tags.name",
        "tags.repo_uid",
        "tags.uid",
      ]);
      expect(new Set(rows.map((r) => r.collation))).toEqual(new Set(["C"]));
    });

  if (t.engine === "postgres")
    it("keeps its tables in the connection's own schema when given none", async () => {
      const { databaseUrl = "", schema = "" } = await t.freshLocation();
      await withClient(databaseUrl, (c) => c.query(`create schema ${schema}`));
      const url = new URL(databaseUrl);
      url.searchParams.set("options", `-c search_path=${schema}`);
      const opened = await createStore({ databaseUrl: url.href, dataDir: "unused" });
      try {
        await opened.groups.insert(group(rootUid(8), "in its own schema"));
        const { rows } = await withClient(databaseUrl, (c) =>
          c.query(`select table_schema from information_schema.tables where table_name = 'groups' and table_schema = $1`, [schema]),
        );
        expect(rows).toHaveLength(1);
      } finally {
        await opened.close();
      }
    });

  it("answers a ping", async () => {
    await expect(store().ping()).resolves.toBeUndefined();
  });

  it("keeps its data across a reopen, and is UNAVAILABLE once closed", async () => {
    const options = await t.freshLocation();
    const first = await createStore(options);
    expect(first.engine).toBe(t.engine);
    await first.groups.insert(group(rootUid(6), "durable"));
    await first.close();
    await expect(first.ping()).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    await expect(first.groups.get(rootUid(6))).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    const second = await createStore(options);
    try {
      expect((await second.groups.get(rootUid(6)))?.name).toBe("durable");
    } finally {
      await second.close();
    }
  });

  it("migrates once when several processes start on a new database at once", async () => {
    const options = await t.freshLocation();
    const start = () =>
      run(process.execPath, ["--import", here("../support/ts-resolve.mjs"), here("../support/open-store.ts"), JSON.stringify(options)]);
    await Promise.all([start(), start(), start(), start()]);
    const opened = await createStore(options);
    try {
      await opened.groups.insert(group(rootUid(7), "after the race"));
      expect(await opened.groups.count({ uidp: {} })).toBe(1);
    } finally {
      await opened.close();
    }
  });
});

describe("createStore", () => {
  it("refuses a database URL of another engine without echoing it", async () => {
    const opening = createStore({ databaseUrl: "mysql://root:s3cret@db.example/arbor", dataDir: "unused" });
    await expect(opening).rejects.toThrow(/postgres:\/\/ or postgresql:\/\//);
    await expect(opening).rejects.not.toThrow(/s3cret/);
  });

  it("is UNAVAILABLE when PostgreSQL cannot be reached", async () => {
    const opening = createStore({ databaseUrl: "postgresql://postgres@127.0.0.1:1/none", dataDir: "unused" });
    await expect(opening).rejects.toMatchObject({ code: Code.UNAVAILABLE, message: "Unavailable: the store cannot be reached" });
  });
});
