/**
 * The identity store on every engine: writes and their constraints, deleting with bindings, and
 * who sees which identities.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { FEW_SCOPES } from "../../src/store/hierarchy-filter.js";
import { Code } from "../../src/domain/errors.js";
import type { Relationship } from "../../src/domain/identities.js";
import { rootOf } from "../../src/domain/uid.js";
import type { ResourceFilter } from "../../src/domain/hierarchy.js";
import { describeEachEngine } from "../support/engines.js";
import { expectMatches } from "../support/lists.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { rawRows } from "../support/raw-sql.js";
import { binding, identity, OWNER, VIEWER } from "../support/records.js";

const ORG = rootUid(1);
const TEAM = childUid(ORG, 1);
const SUB = childUid(TEAM, 1);
const OTHER = rootUid(2);
const T1 = 1_800_000_000_000;

describeEachEngine("identity store", (t) => {
  const identities = () => t.store().identities;

  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [SUB, "sub"],
      [OTHER, "other"],
    ] as const) {
      await t.store().groups.insert(group(uid, name));
    }
  });

  describe("writes", () => {
    const robot = identity(childUid(TEAM, 0x10), "robot", { lastSeenTime: 5 });
    const alice = identity(rootUid(0xa11ce), "alice");
    beforeAll(async () => {
      await identities().insert(robot);
      await identities().insert(alice);
    });

    it("inserts and gets identities in a group and at the root, relationship and all", async () => {
      expect(await identities().get(robot.uid)).toEqual(robot);
      expect(await identities().get(alice.uid)).toEqual(alice);
      expect(await identities().get(childUid(TEAM, 0x404))).toBeUndefined();
    });

    it("gets the ones among many uids that exist", async () => {
      expect(await identities().getMany([alice.uid, childUid(TEAM, 0x404), robot.uid])).toEqual(
        [alice, robot].sort((a, b) => (a.uid < b.uid ? -1 : 1)),
      );
      expect(await identities().getMany([])).toEqual([]);
    });

    it.each([
      {
        name: "a sibling's name",
        i: identity(childUid(TEAM, 0x11), "robot"),
        message: `Already exists: identity named "robot" in group ${TEAM}`,
      },
      { name: "a person's uid", i: identity(rootUid(0xa11ce), "alice again"), message: `Already exists: identity ${rootUid(0xa11ce)}` },
    ])("refuses $name as ALREADY_EXISTS", async ({ i, message }) => {
      await expect(identities().insert(i)).rejects.toMatchObject({ code: Code.ALREADY_EXISTS, message });
    });

    it.each([
      { name: "a name used in another group", i: identity(childUid(SUB, 0x10), "robot") },
      { name: "a person's name, for another person", i: identity(rootUid(0xa11ce2), "alice") },
    ])("accepts $name", async ({ i }) => {
      await identities().insert(i);
      expect(await identities().get(i.uid)).toEqual(i);
    });

    it("refuses an identity in a missing group as NOT_FOUND of the group", async () => {
      const orphan = identity(childUid(rootUid(0xbad), 1), "orphan");
      await expect(identities().insert(orphan)).rejects.toMatchObject({
        code: Code.NOT_FOUND,
        details: { resource: { resourceType: "group", resourceName: rootUid(0xbad) } },
      });
    });

    it.each<{ name: string; relationship: Relationship; issuer: string | null; subject: string | null }>([
      {
        name: "a person",
        relationship: { kind: "user", issuer: "https://a.example", subject: "u1" },
        issuer: "https://a.example",
        subject: "u1",
      },
      {
        name: "static keys",
        relationship: { kind: "staticKeys", issuer: "https://k.example", subject: "s", issuerKeys: '{"keys":[]}', expirationTime: 9 },
        issuer: "https://k.example",
        subject: "s",
      },
      {
        name: "patterns only",
        relationship: { kind: "claimMatch", issuerPattern: "https://.*", subjectPattern: ".*", claims: {}, claimPatterns: {} },
        issuer: null,
        subject: null,
      },
    ])("keeps the exact issuer and subject of $name in their columns", async ({ relationship, issuer, subject }) => {
      const uid = childUid(SUB, 0x20);
      await identities().insert(identity(uid, "columns", { relationship: { kind: "user", issuer: "https://x", subject: "old" } }));
      const updated = await identities().update(uid, { relationship }, T1);
      expect(updated?.relationship).toEqual(relationship);
      expect(await rawRows(t, `select issuer, subject from identities where uid = '${uid}'`)).toEqual([{ issuer, subject }]);
      expect(await identities().delete(uid)).toBe(true);
    });

    it("changes only the given fields and sets the update time", async () => {
      const updated = await identities().update(robot.uid, { description: "beep" }, T1);
      expect(updated).toEqual({ ...robot, description: "beep", updateTime: T1 });
      expect(await identities().get(robot.uid)).toEqual(updated);
    });

    it("answers undefined when updating a missing identity, ALREADY_EXISTS for a sibling's name", async () => {
      expect(await identities().update(childUid(TEAM, 0x404), { name: "x" }, T1)).toBeUndefined();
      await identities().insert(identity(childUid(TEAM, 0x12), "robot2"));
      await expect(identities().update(childUid(TEAM, 0x12), { name: "robot" }, T1)).rejects.toMatchObject({
        code: Code.ALREADY_EXISTS,
        message: `Already exists: identity named "robot" in group ${TEAM}`,
      });
    });
  });

  describe("delete", () => {
    const bob = rootUid(0xb0b);
    const carol = rootUid(0xca201);
    beforeAll(async () => {
      await identities().insert(identity(bob, "bob"));
      await t.store().bindings.insert(binding(childUid(TEAM, 0xb1), bob, VIEWER));
      await t.store().bindings.insert(binding(childUid(ORG, 0xb2), bob, OWNER));
      // Carol is bound before her first login: no identity yet.
      await t.store().bindings.insert(binding(childUid(TEAM, 0xc1), carol, VIEWER));
    });

    it("takes every binding of the identity with it, and no other", async () => {
      expect(await identities().delete(bob)).toBe(true);
      expect(await identities().get(bob)).toBeUndefined();
      expect(await t.store().bindings.forIdentity(bob)).toEqual([]);
      expect(await t.store().bindings.forIdentity(carol)).toHaveLength(1);
    });

    it("answers false for a missing identity and keeps the bindings made for it", async () => {
      expect(await identities().delete(carol)).toBe(false);
      expect(await t.store().bindings.forIdentity(carol)).toHaveLength(1);
    });
  });
});

describeEachEngine("identity store lists", (t) => {
  const identities = () => t.store().identities;
  // People: bound in TEAM, bound in OTHER, bound in SUB, bound nowhere, and bound in TEAM by
  // someone else without having joined its organization.
  const P_TEAM = rootUid(0xa1);
  const P_OTHER = rootUid(0xa2);
  const P_SUB = rootUid(0xa3);
  const P_NONE = rootUid(0xa4);
  const P_UNJOINED = rootUid(0xa5);
  const fixture = {
    orgBot: identity(childUid(ORG, 0x10), "bot"),
    teamBot: identity(childUid(TEAM, 0x10), "bot"),
    subBot: identity(childUid(SUB, 0x10), "sub-bot"),
    otherBot: identity(childUid(OTHER, 0x10), "bot"),
    pTeam: identity(P_TEAM, "p-team"),
    pOther: identity(P_OTHER, "p-other"),
    pSub: identity(P_SUB, "bot"),
    pNone: identity(P_NONE, "p-none"),
    pUnjoined: identity(P_UNJOINED, "p-unjoined"),
  };
  type Name = keyof typeof fixture;

  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [SUB, "sub"],
      [OTHER, "other"],
    ] as const) {
      await t.store().groups.insert(group(uid, name));
    }
    for (const i of Object.values(fixture)) await identities().insert(i);
    await t.store().bindings.insert(binding(childUid(TEAM, 0x30), P_TEAM, VIEWER));
    await t.store().bindings.insert(binding(childUid(TEAM, 0x31), P_TEAM, OWNER));
    await t.store().bindings.insert(binding(childUid(OTHER, 0x30), P_OTHER, VIEWER));
    await t.store().bindings.insert(binding(childUid(SUB, 0x30), P_SUB, VIEWER));
    await t.store().bindings.insert(binding(childUid(TEAM, 0x32), P_UNJOINED, VIEWER));
    for (const [org, person] of [
      [ORG, P_TEAM],
      [ORG, P_SUB],
      [rootOf(OTHER), P_OTHER],
      [rootOf(OTHER), P_UNJOINED],
    ] as const) {
      await identities().join(org, person, 1);
    }
  });

  const cases: { name: string; filter: ResourceFilter; want: Name[] }[] = [
    {
      name: "everything",
      filter: { uidp: {} },
      want: ["orgBot", "teamBot", "subBot", "otherBot", "pTeam", "pOther", "pSub", "pNone", "pUnjoined"],
    },
    { name: "the root", filter: { uidp: { inRoot: true } }, want: ["pTeam", "pOther", "pSub", "pNone", "pUnjoined"] },
    { name: "children of a group", filter: { uidp: { childrenOf: TEAM } }, want: ["teamBot"] },
    { name: "descendants of an organization", filter: { uidp: { descendantsOf: ORG } }, want: ["orgBot", "teamBot", "subBot"] },
    { name: "a name", filter: { uidp: {}, name: "bot" }, want: ["orgBot", "teamBot", "otherBot", "pSub"] },
    { name: "ids", filter: { uidp: { ids: [P_NONE, fixture.subBot.uid] } }, want: ["pNone", "subBot"] },
    {
      name: "visibility of an organization: its identities and the people bound in it",
      filter: { uidp: {}, visibleUnder: [ORG] },
      want: ["orgBot", "teamBot", "subBot", "pTeam", "pSub"],
    },
    { name: "visibility of a group", filter: { uidp: {}, visibleUnder: [SUB] }, want: ["subBot", "pSub"] },
    {
      name: "visibility of two subtrees",
      filter: { uidp: {}, visibleUnder: [SUB, OTHER] },
      want: ["subBot", "pSub", "otherBot", "pOther"],
    },
    {
      // Past FEW_SCOPES: membership instead of ranges, for the identities and the people's bindings.
      name: "visibility of two subtrees among many scopes where nothing is",
      filter: {
        uidp: {},
        visibleUnder: [SUB, OTHER, ...Array.from({ length: FEW_SCOPES }, (_, i) => `${"9".repeat(39)}${i.toString(16)}`)],
      },
      want: ["subBot", "pSub", "otherBot", "pOther"],
    },
    { name: "visibility of nothing", filter: { uidp: {}, visibleUnder: [] }, want: [] },
    { name: "the root, visible in a group", filter: { uidp: { inRoot: true }, visibleUnder: [TEAM] }, want: ["pTeam", "pSub"] },
    { name: "a name, visible in a group", filter: { uidp: {}, name: "bot", visibleUnder: [TEAM] }, want: ["teamBot", "pSub"] },
  ];

  it.each(cases)("by $name", async ({ filter, want }) => {
    await expectMatches(
      identities(),
      filter,
      want.map((n) => fixture[n].uid),
    );
  });

  it("sees a person bound in an organization only once they have joined it", async () => {
    // Joined OTHER's organization, but bound in ORG's TEAM: nothing shows there.
    expect(await identities().count({ uidp: { ids: [P_UNJOINED] }, visibleUnder: [TEAM] })).toBe(0);
    await identities().join(ORG, P_UNJOINED, 2);
    await identities().join(ORG, P_UNJOINED, 3);
    expect(await identities().count({ uidp: { ids: [P_UNJOINED] }, visibleUnder: [TEAM] })).toBe(1);
    expect(await identities().memberships([P_UNJOINED, P_NONE])).toEqual(
      expect.arrayContaining([
        { organizationUid: ORG, personUid: P_UNJOINED },
        { organizationUid: rootOf(OTHER), personUid: P_UNJOINED },
      ]),
    );
    expect(await identities().memberships([P_NONE])).toEqual([]);
  });

  it("sees a person once however many bindings it holds there", async () => {
    expect(await identities().count({ uidp: { ids: [P_TEAM] }, visibleUnder: [TEAM, ORG] })).toBe(1);
  });
});
