/**
 * The group invite store on every engine: flags and times in and out, finding by the code's
 * hash, updates, and filters.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import type { InviteFilter } from "../../src/domain/group-invites.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { expectMatches } from "../support/lists.js";
import { invite } from "../support/records.js";

const ORG = rootUid(1);
const TEAM = childUid(ORG, 1);
const OTHER = rootUid(2);

describeEachEngine("group invite store", (t) => {
  const invites = () => t.store().groupInvites;

  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [OTHER, "other"],
    ] as const)
      await t.store().groups.insert(group(uid, name));
  });

  describe("writes", () => {
    const once = invite(childUid(TEAM, 0x10), { singleUse: true });
    const many = invite(childUid(TEAM, 0x11), { singleUse: false });
    beforeAll(async () => {
      await invites().insert(once);
      await invites().insert(many);
    });

    it("inserts and gets invites, single use or not", async () => {
      expect(await invites().get(once.uid)).toEqual(once);
      expect(await invites().get(many.uid)).toEqual(many);
      expect(await invites().get(childUid(TEAM, 0x404))).toBeUndefined();
    });

    it("finds an invite by its code's hash", async () => {
      expect(await invites().findByCodeHash(many.codeHash)).toEqual(many);
      expect(await invites().findByCodeHash("no such hash")).toBeUndefined();
    });

    it.each([
      {
        name: "a code another invite has",
        i: { ...invite(childUid(TEAM, 0x12)), codeHash: once.codeHash },
        want: { code: Code.ALREADY_EXISTS },
      },
      {
        name: "a missing group",
        i: invite(childUid(rootUid(0xbad), 1)),
        want: { code: Code.NOT_FOUND, details: { resource: { resourceType: "group", resourceName: rootUid(0xbad) } } },
      },
    ])("refuses an invite with $name", async ({ i, want }) => {
      await expect(invites().insert(i)).rejects.toMatchObject(want);
      expect(await invites().get(i.uid)).toBeUndefined();
    });

    it("changes only the given fields; a redeem time can be set and cleared", async () => {
      const redeemed = await invites().update(once.uid, { redeemTime: 7, singleUse: false, email: "other@example.com" });
      expect(redeemed).toEqual({ ...once, redeemTime: 7, singleUse: false, email: "other@example.com" });
      const cleared = await invites().update(once.uid, { redeemTime: null, expirationTime: 99 });
      expect(cleared).toEqual({ ...once, singleUse: false, email: "other@example.com", expirationTime: 99 });
      expect(await invites().get(once.uid)).toEqual(cleared);
      expect(await invites().update(once.uid, {})).toEqual(cleared);
    });

    it("redeems an invite once, however many redemptions race", async () => {
      const raced = invite(childUid(TEAM, 0x13), { singleUse: true });
      await invites().insert(raced);
      const wins = await Promise.all(Array.from({ length: 6 }, (_, i) => invites().redeem(raced.uid, 100 + i)));
      expect(wins.filter(Boolean)).toHaveLength(1);
      const stored = await invites().get(raced.uid);
      expect(stored?.redeemTime).toBe(100 + wins.indexOf(true));
      expect(await invites().redeem(raced.uid, 200)).toBe(false);
      expect(await invites().redeem(childUid(TEAM, 0x404), 200)).toBe(false);
    });

    it("answers undefined and false for a missing invite, and deletes one", async () => {
      expect(await invites().update(childUid(TEAM, 0x404), { email: "x" })).toBeUndefined();
      expect(await invites().delete(childUid(TEAM, 0x404))).toBe(false);
      expect(await invites().delete(many.uid)).toBe(true);
      expect(await invites().get(many.uid)).toBeUndefined();
    });
  });
});

describeEachEngine("group invite store lists", (t) => {
  const invites = () => t.store().groupInvites;
  const fixture = {
    orgA: invite(childUid(ORG, 0x10), { keyId: "a" }),
    teamA: invite(childUid(TEAM, 0x10), { keyId: "a" }),
    teamB: invite(childUid(TEAM, 0x11), { keyId: "b" }),
    otherA: invite(childUid(OTHER, 0x10), { keyId: "a" }),
  };
  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [OTHER, "other"],
    ] as const)
      await t.store().groups.insert(group(uid, name));
    for (const i of Object.values(fixture)) await invites().insert(i);
  });

  it.each<{ name: string; filter: InviteFilter; want: (keyof typeof fixture)[] }>([
    { name: "everything", filter: { uidp: {} }, want: ["orgA", "teamA", "teamB", "otherA"] },
    { name: "a key id", filter: { uidp: {}, keyId: "a" }, want: ["orgA", "teamA", "otherA"] },
    { name: "children of a group", filter: { uidp: { childrenOf: TEAM } }, want: ["teamA", "teamB"] },
    { name: "descendants of an organization", filter: { uidp: { descendantsOf: ORG } }, want: ["orgA", "teamA", "teamB"] },
    { name: "visibility of a group", filter: { uidp: {}, visibleUnder: [TEAM] }, want: ["teamA", "teamB"] },
    { name: "a key id, visible in a group", filter: { uidp: {}, keyId: "a", visibleUnder: [TEAM, OTHER] }, want: ["teamA", "otherA"] },
    { name: "visibility of nothing", filter: { uidp: {}, visibleUnder: [] }, want: [] },
  ])("by $name", async ({ filter, want }) => {
    await expectMatches(
      invites(),
      filter,
      want.map((n) => fixture[n].uid),
    );
  });
});
