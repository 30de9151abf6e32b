/**
 * The identity provider store on every engine: OIDC settings in and out, which parent a foreign
 * key missed, merging updates, and filters.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import type { ResourceFilter } from "../../src/domain/hierarchy.js";
import { createSecretBox } from "../../src/domain/secret-box.js";
import { createStore } from "../../src/store/create-store.js";
import { describeEachEngine, TEST_SECRETS } from "../support/engines.js";
import { execRaw, rawRows } from "../support/raw-sql.js";
import { expectMatches } from "../support/lists.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { OWNER, provider, VIEWER } from "../support/records.js";
import { chooseProvider } from "../../src/auth/login-provider.js";

const ORG = rootUid(1);
const TEAM = childUid(ORG, 1);
const OTHER = rootUid(2);
const MISSING_GROUP = rootUid(0xbad);
const MISSING_ROLE = childUid(ORG, 0x404);
const T1 = 1_800_000_000_000;
const gone = (resourceType: string, resourceName: string) => ({
  code: Code.NOT_FOUND,
  details: { resource: { resourceType, resourceName } },
});

describeEachEngine("identity provider store", (t) => {
  const providers = () => t.store().identityProviders;
  const okta = provider(childUid(TEAM, 0x10), "okta");

  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [OTHER, "other"],
    ] as const)
      await t.store().groups.insert(group(uid, name));
    await providers().insert(okta);
  });

  describe("writes", () => {
    it("inserts and gets a provider with its OIDC settings", async () => {
      expect(await providers().get(okta.uid)).toEqual(okta);
      expect(await providers().get(childUid(TEAM, 0x404))).toBeUndefined();
    });

    it.each([
      {
        name: "a sibling's name",
        p: provider(childUid(TEAM, 0x11), "okta"),
        want: { code: Code.ALREADY_EXISTS, message: `Already exists: identity provider named "okta" in group ${TEAM}` },
      },
      { name: "a missing group", p: provider(childUid(MISSING_GROUP, 1), "x"), want: gone("group", MISSING_GROUP) },
      { name: "a missing default role", p: provider(childUid(TEAM, 0x12), "x", MISSING_ROLE), want: gone("role", MISSING_ROLE) },
      { name: "a missing group and role", p: provider(childUid(MISSING_GROUP, 1), "x", MISSING_ROLE), want: gone("group", MISSING_GROUP) },
    ])("refuses $name", async ({ p, want }) => {
      await expect(providers().insert(p)).rejects.toMatchObject(want);
      if (p.name !== "okta") expect(await providers().get(p.uid)).toBeUndefined();
    });

    it("names the missing role inside a transaction too, which goes on", async () => {
      const kept = provider(childUid(TEAM, 0x13), "kept");
      await t.store().atomically(async (tx) => {
        await expect(tx.identityProviders.insert(provider(childUid(TEAM, 0x14), "x", MISSING_ROLE))).rejects.toMatchObject(
          gone("role", MISSING_ROLE),
        );
        await tx.identityProviders.insert(kept);
      });
      expect(await providers().get(kept.uid)).toEqual(kept);
    });

    it("merges the OIDC settings given into the stored ones", async () => {
      const updated = await providers().update(
        okta.uid,
        { oidc: { clientSecret: "rotated", additionalScopes: [] }, defaultRole: OWNER },
        T1,
      );
      const want = { ...okta, defaultRole: OWNER, oidc: { ...okta.oidc, clientSecret: "rotated", additionalScopes: [] }, updateTime: T1 };
      expect(updated).toEqual(want);
      expect(await providers().get(okta.uid)).toEqual(want);
    });

    it.each([
      { name: "a missing default role", n: 0x15, changes: { defaultRole: MISSING_ROLE }, want: gone("role", MISSING_ROLE) },
      {
        name: "a sibling's name",
        n: 0x16,
        changes: { name: "okta" },
        want: { code: Code.ALREADY_EXISTS, message: `Already exists: identity provider named "okta" in group ${TEAM}` },
      },
    ])("refuses an update to $name", async ({ n, changes, want }) => {
      const uid = childUid(TEAM, n);
      const before = provider(uid, `updated-${n}`);
      await providers().insert(before);
      await expect(providers().update(uid, changes, T1)).rejects.toMatchObject(want);
      expect(await providers().get(uid)).toEqual(before);
    });

    it("answers undefined and false for a missing provider", async () => {
      expect(await providers().update(childUid(TEAM, 0x404), { name: "x" }, T1)).toBeUndefined();
      expect(await providers().delete(childUid(TEAM, 0x404))).toBe(false);
    });

    it("deletes a provider", async () => {
      const uid = childUid(TEAM, 0x17);
      await providers().insert(provider(uid, "doomed"));
      expect(await providers().delete(uid)).toBe(true);
      expect(await providers().get(uid)).toBeUndefined();
    });
  });

  describe("the client secret at rest", () => {
    const storedSecret = async (uid: string) =>
      (await rawRows(t, `select client_secret from identity_providers where uid = '${uid}'`))[0]?.client_secret as string;

    it("is sealed in the table and opened when read, on insert and on update", async () => {
      const p = provider(childUid(TEAM, 0x30), "sealed");
      await providers().insert(p);
      const stored = await storedSecret(p.uid);
      expect(stored).toMatch(/^enc:v1:/);
      expect(stored).not.toContain(p.oidc.clientSecret);
      expect(TEST_SECRETS.open(stored)).toBe(p.oidc.clientSecret);
      await providers().update(p.uid, { oidc: { clientSecret: "rotated-at-the-idp" } }, T1);
      expect(await storedSecret(p.uid)).not.toContain("rotated-at-the-idp");
      expect((await providers().get(p.uid))?.oidc.clientSecret).toBe("rotated-at-the-idp");
    });

    it("keeps a public client's empty secret empty", async () => {
      const p = provider(childUid(TEAM, 0x31), "public");
      await providers().insert({ ...p, oidc: { ...p.oidc, clientSecret: "" } });
      expect(await storedSecret(p.uid)).toBe("");
    });

    it("re-seals plain text and secrets of an older key under the current key", async () => {
      const older = createSecretBox([Buffer.alloc(32, 9)]);
      const rotated = await createStore({ ...t.options(), secrets: createSecretBox([Buffer.alloc(32, 8), Buffer.alloc(32, 7)]) });
      try {
        const legacy = provider(childUid(TEAM, 0x32), "legacy");
        await t.store().identityProviders.insert(legacy);
        // As an Arbor from before sealing wrote it.
        await execRaw(t, `update identity_providers set client_secret = 'plain-old' where uid = '${legacy.uid}'`);
        expect(await rotated.identityProviders.resealSecrets()).toBeGreaterThanOrEqual(2);
        expect(await rotated.identityProviders.resealSecrets()).toBe(0);
        const stored = await storedSecret(legacy.uid);
        expect(stored).toMatch(/^enc:v1:/);
        expect((await rotated.identityProviders.get(legacy.uid))?.oidc.clientSecret).toBe("plain-old");
        // Sealed under the new first key: a box without it cannot open it.
        expect(() => older.open(stored)).toThrow();
        expect(() => TEST_SECRETS.open(stored)).toThrow();
      } finally {
        await rotated.close();
      }
    });
  });
});

describeEachEngine("identity provider store lists", (t) => {
  const providers = () => t.store().identityProviders;
  const fixture = {
    orgGoogle: provider(childUid(ORG, 0x20), "google"),
    teamGoogle: provider(childUid(TEAM, 0x20), "google"),
    otherGithub: provider(childUid(OTHER, 0x20), "github", OWNER),
  };
  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [OTHER, "other"],
    ] as const)
      await t.store().groups.insert(group(uid, name));
    for (const p of Object.values(fixture)) await providers().insert(p);
  });

  it.each<{ name: string; filter: ResourceFilter; want: (keyof typeof fixture)[] }>([
    { name: "everything", filter: { uidp: {} }, want: ["orgGoogle", "teamGoogle", "otherGithub"] },
    { name: "children of a group", filter: { uidp: { childrenOf: ORG } }, want: ["orgGoogle"] },
    { name: "descendants of an organization", filter: { uidp: { descendantsOf: ORG } }, want: ["orgGoogle", "teamGoogle"] },
    { name: "a name", filter: { uidp: {}, name: "google" }, want: ["orgGoogle", "teamGoogle"] },
    { name: "visibility of a group", filter: { uidp: {}, visibleUnder: [TEAM] }, want: ["teamGoogle"] },
    { name: "visibility of two subtrees", filter: { uidp: {}, visibleUnder: [TEAM, OTHER] }, want: ["teamGoogle", "otherGithub"] },
    { name: "the root", filter: { uidp: { inRoot: true } }, want: [] },
  ])("by $name", async ({ filter, want }) => {
    await expectMatches(
      providers(),
      filter,
      want.map((n) => fixture[n].uid),
    );
  });
});

describeEachEngine("identity provider store: organizations' login issuers", (t) => {
  const providers = () => t.store().identityProviders;
  // The issuer of each provider is https://<name>.example.
  const fixture = [
    provider(childUid(ORG, 0x40), "first", VIEWER, { createTime: T1 }),
    provider(childUid(ORG, 0x01), "later", VIEWER, { createTime: T1 + 1 }),
    provider(childUid(TEAM, 0x40), "in-team", VIEWER, { createTime: T1 - 1 }),
    // The same creation time: the lower uid is the older, as the login's order has it.
    provider(childUid(OTHER, 0x02), "high", VIEWER, { createTime: T1 }),
    provider(childUid(OTHER, 0x01), "low", VIEWER, { createTime: T1 }),
  ];
  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [OTHER, "other"],
    ] as const)
      await t.store().groups.insert(group(uid, name));
    for (const p of fixture) await providers().insert(p);
  });

  it.each([
    { name: "first", login: true },
    { name: "later", login: false },
    { name: "in-team", login: false },
    { name: "low", login: true },
    { name: "high", login: false },
    { name: "unknown", login: false },
  ])("tells $name's issuer is one: $login", async ({ name, login }) => {
    expect(await providers().isLoginIssuer(`https://${name}.example`)).toBe(login);
  });

  it("agrees with the provider a login chooses", async () => {
    for (const org of [ORG, OTHER]) {
      const chosen = await chooseProvider(t.store(), undefined, org, undefined);
      expect(await providers().isLoginIssuer(chosen.issuer)).toBe(true);
    }
  });
});
