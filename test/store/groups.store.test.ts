/**
 * The group store's writes on every engine: insert, get, update, delete, and the constraints
 * behind them, asserted by code and details.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import type { Stores } from "../../src/store/store.js";
import { describeEachEngine, withClient } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { association, binding, identity, invite, OWNER, provider, role } from "../support/records.js";

describeEachEngine("group store", (t) => {
  const groups = () => t.store().groups;

  it("inserts and gets a group, with times as numbers", async () => {
    const org = group(rootUid(1), "acme", { createTime: 1_712_345_678_901, updateTime: 1_712_345_678_999 });
    await groups().insert(org);
    expect(await groups().get(org.uid)).toEqual(org);
    expect(await groups().get(rootUid(0xdead))).toBeUndefined();
  });

  it("finds an organization by name, not a group of that name", async () => {
    const org = group(rootUid(2), "find-me");
    const child = group(childUid(rootUid(2), 1), "child-name");
    await groups().insert(org);
    await groups().insert(child);
    expect(await groups().findOrganization("find-me")).toEqual(org);
    expect(await groups().findOrganization("child-name")).toBeUndefined();
  });

  describe("insert", () => {
    const parent = rootUid(3);
    const otherOrg = rootUid(4);
    beforeAll(async () => {
      await groups().insert(group(parent, "org-three"));
      await groups().insert(group(childUid(parent, 1), "taken"));
      await groups().insert(group(otherOrg, "org-four"));
    });

    it.each([
      { name: "a sibling's name", uid: childUid(parent, 2), groupName: "taken", want: { code: Code.ALREADY_EXISTS } },
      {
        name: "an organization's name, for an organization",
        uid: rootUid(0x44),
        groupName: "org-three",
        want: { code: Code.ALREADY_EXISTS },
      },
      { name: "a name used under another parent", uid: childUid(otherOrg, 1), groupName: "taken", want: undefined },
      { name: "an organization's name, for a group", uid: childUid(parent, 3), groupName: "org-three", want: undefined },
      {
        name: "a missing parent",
        uid: childUid(rootUid(0xbad), 1),
        groupName: "orphan",
        want: { code: Code.NOT_FOUND, details: { resource: { resourceType: "group", resourceName: rootUid(0xbad) } } },
      },
    ])("with $name", async ({ uid, groupName, want }) => {
      const inserting = groups().insert(group(uid, groupName));
      if (want === undefined) {
        await inserting;
        expect((await groups().get(uid))?.name).toBe(groupName);
      } else {
        await expect(inserting).rejects.toMatchObject(want);
        expect(await groups().get(uid)).toBeUndefined();
      }
    });
  });

  describe("update", () => {
    const org = rootUid(5);
    const a = childUid(org, 1);
    const b = childUid(org, 2);
    const c = childUid(org, 3);
    beforeAll(async () => {
      await groups().insert(group(org, "org-five", { createTime: 10 }));
      await groups().insert(group(a, "a", { createTime: 10 }));
      await groups().insert(group(b, "b", { createTime: 10 }));
      await groups().insert(group(c, "c", { createTime: 10 }));
      await groups().insert(group(rootUid(0x55), "org-taken"));
    });

    it("changes only the given fields and sets the update time", async () => {
      const renamed = await groups().update(c, { name: "c2" }, 20);
      expect(renamed).toEqual({ ...group(c, "c", { createTime: 10 }), name: "c2", updateTime: 20 });
      const described = await groups().update(c, { description: "new words" }, 30);
      expect(described).toMatchObject({ name: "c2", description: "new words", updateTime: 30 });
      expect(await groups().get(c)).toEqual(described);
    });

    it("answers undefined for a missing group", async () => {
      expect(await groups().update(childUid(org, 99), { name: "x" }, 1)).toBeUndefined();
    });

    it.each([
      { name: "a sibling's name", uid: b, to: "a" },
      { name: "another organization's name", uid: org, to: "org-taken" },
    ])("to $name is ALREADY_EXISTS and changes nothing", async ({ uid, to }) => {
      const before = await groups().get(uid);
      await expect(groups().update(uid, { name: to }, 40)).rejects.toMatchObject({ code: Code.ALREADY_EXISTS });
      expect(await groups().get(uid)).toEqual(before);
    });
  });

  describe("delete", () => {
    const org = rootUid(6);
    const parent = childUid(org, 1);
    const leaf = childUid(parent, 1);
    /** The refusal while these kinds of children remain: one violation per kind, in this order. */
    const notEmpty = (uid: string, ...kinds: string[]) => ({
      code: Code.FAILED_PRECONDITION,
      message:
        "Precondition failed: cannot delete group with " +
        `${kinds.length === 1 ? kinds[0] : `${kinds.slice(0, -1).join(", ")} and ${kinds.at(-1)}`}`,
      details: {
        preconditionViolations: kinds.map((what) => ({
          type: "RESOURCE_NOT_EMPTY",
          subject: uid,
          description: `cannot delete group with ${what}`,
        })),
      },
    });
    beforeAll(async () => {
      await groups().insert(group(org, "org-six"));
    });

    it("answers false for a missing group", async () => {
      expect(await groups().delete(childUid(org, 0x404))).toBe(false);
    });

    it("refuses while child groups remain, then deletes bottom up", async () => {
      await groups().insert(group(parent, "parent"));
      await groups().insert(group(leaf, "leaf"));
      await expect(groups().delete(parent)).rejects.toMatchObject(notEmpty(parent, "child groups"));
      await expect(groups().delete(org)).rejects.toMatchObject(notEmpty(org, "child groups"));
      expect(await groups().delete(leaf)).toBe(true);
      expect(await groups().delete(parent)).toBe(true);
      expect(await groups().get(parent)).toBeUndefined();
      expect(await groups().delete(parent)).toBe(false);
    });

    it("refuses while children of any kind remain, naming every kind in the way", async () => {
      const holder = childUid(org, 5);
      const robot = identity(childUid(holder, 0x10), "robot");
      const web = { uid: childUid(holder, 0x20), parentUid: holder, name: "web", description: "", createTime: 1, updateTime: 1 };
      await groups().insert(group(holder, "holder"));
      await t.store().identities.insert(robot);
      await expect(groups().delete(holder)).rejects.toMatchObject(notEmpty(holder, "child identities"));
      await t.store().repos.insert(web);
      await groups().insert(group(childUid(holder, 1), "child"));
      await expect(groups().delete(holder)).rejects.toMatchObject(notEmpty(holder, "child groups", "child repos", "child identities"));
      expect(await groups().delete(childUid(holder, 1))).toBe(true);
      await expect(groups().delete(holder)).rejects.toMatchObject(notEmpty(holder, "child repos", "child identities"));
      expect(await t.store().identities.delete(robot.uid)).toBe(true);
      await expect(groups().delete(holder)).rejects.toMatchObject(notEmpty(holder, "child repos"));
      expect(await t.store().repos.delete(web.uid)).toBe(true);
      expect(await groups().delete(holder)).toBe(true);
    });

    it("takes the group's roles, providers, invites, bindings and account association with it, and no one else's", async () => {
      const team = childUid(org, 2);
      const stays = childUid(org, 3);
      const person = rootUid(0x1d);
      const inGroup = (g: string) => ({
        role: role(childUid(g, 0x10), "custom"),
        // The provider's default role and a binding are the group's own custom role, which goes in the same statement.
        provider: provider(childUid(g, 0x11), "idp", childUid(g, 0x10)),
        invite: invite(childUid(g, 0x12)),
        owner: binding(childUid(g, 0x13), person, OWNER),
        custom: binding(childUid(g, 0x14), person, childUid(g, 0x10)),
        association: association(g, "accounts"),
      });
      const [gone, kept] = [inGroup(team), inGroup(stays)];
      for (const [uid, name, r] of [
        [team, "team", gone],
        [stays, "stays", kept],
      ] as const) {
        await groups().insert(group(uid, name));
        await t.store().roles.insert(r.role);
        await t.store().identityProviders.insert(r.provider);
        await t.store().groupInvites.insert(r.invite);
        await t.store().bindings.insert(r.owner);
        await t.store().bindings.insert(r.custom);
        await t.store().accountAssociations.insert(r.association);
      }
      const secret = await t.store().settings.getOrCreate("cascade-check", () => "untouched");

      expect(await groups().delete(team)).toBe(true);

      const s = t.store();
      expect(await s.roles.get(gone.role.uid)).toBeUndefined();
      expect(await s.identityProviders.get(gone.provider.uid)).toBeUndefined();
      expect(await s.groupInvites.get(gone.invite.uid)).toBeUndefined();
      expect(await s.accountAssociations.get(team)).toBeUndefined();
      expect((await s.bindings.forIdentity(person)).map((b) => b.uid)).toEqual([kept.owner.uid, kept.custom.uid]);
      expect(await s.roles.get(kept.role.uid)).toEqual(kept.role);
      expect(await s.identityProviders.get(kept.provider.uid)).toEqual(kept.provider);
      expect(await s.groupInvites.get(kept.invite.uid)).toEqual(kept.invite);
      expect(await s.accountAssociations.get(stays)).toEqual(kept.association);
      expect(await s.settings.getOrCreate("cascade-check", () => "recreated")).toBe(secret);
    });

    // SQLite has one writer at a time, so only PostgreSQL can slip a child in after the checks.
    if (t.engine === "postgres")
      it.each([
        { name: "a child group", n: 4, add: (tx: Stores, parent: string) => tx.groups.insert(group(childUid(parent, 1), "late child")) },
        {
          name: "an identity",
          n: 7,
          add: (tx: Stores, parent: string) => tx.identities.insert(identity(childUid(parent, 0x10), "late robot")),
        },
      ])("is refused by the foreign key when $name appears after the checks", async ({ n, add }) => {
        const racer = childUid(org, n);
        await groups().insert(group(racer, `racer ${n}`));
        let added!: () => void;
        const isAdded = new Promise<void>((resolve) => (added = resolve));
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        const adding = t.store().atomically(async (tx) => {
          await add(tx, racer);
          added();
          await held;
        });
        await isAdded;
        // Outside the transaction (a store call inside it would join it): the uncommitted child is
        // invisible to the checks; the delete then waits on its row lock.
        const deleting = groups().delete(racer);
        deleting.catch(() => undefined);
        await waitForLockWait(t.options().databaseUrl ?? "");
        release();
        await adding;
        await expect(deleting).rejects.toMatchObject(notEmpty(racer, "child resources"));
      });
  });
});

/** Waits until some PostgreSQL session is blocked on a lock. */
async function waitForLockWait(url: string): Promise<void> {
  await withClient(url, async (client) => {
    for (let i = 0; i < 200; i++) {
      const { rows } = await client.query<{ n: string }>("select count(*) as n from pg_locks where not granted");
      if (Number(rows[0]?.n) > 0) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error("no session ever waited on a lock");
  });
}
