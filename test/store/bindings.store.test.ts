/**
 * The role binding store on every engine: writes and which parent a foreign key missed, grants
 * with their capabilities, and filters.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import type { Stores } from "../../src/store/store.js";
import type { BindingFilter } from "../../src/domain/role-bindings.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { expectMatches } from "../support/lists.js";
import { binding, OWNER, role, VIEWER } from "../support/records.js";

const ORG = rootUid(1);
const TEAM = childUid(ORG, 1);
const OTHER = rootUid(2);
const ALICE = rootUid(0xa11ce);
const BOB = rootUid(0xb0b);
const CUSTOM = role(childUid(ORG, 0x20), "deployers", ["repo.push", "repo.list"]);
const MISSING_GROUP = rootUid(0x404);
const MISSING_ROLE = childUid(ORG, 0x404);
const gone = (resourceType: string, resourceName: string) => ({
  code: Code.NOT_FOUND,
  details: { resource: { resourceType, resourceName } },
});

/** The groups and the custom role every binding here is in or to. */
async function seed(store: Stores): Promise<void> {
  for (const [uid, name] of [
    [ORG, "org"],
    [TEAM, "team"],
    [OTHER, "other"],
  ] as const)
    await store.groups.insert(group(uid, name));
  await store.roles.insert(CUSTOM);
}

describeEachEngine("binding store", (t) => {
  const bindings = () => t.store().bindings;
  const aliceOwner = binding(childUid(ORG, 0x10), ALICE, OWNER, 100);

  beforeAll(async () => {
    await seed(t.store());
    await bindings().insert(aliceOwner);
  });

  it("gets a binding by uid, and finds one by group, identity and role", async () => {
    expect(await bindings().get(aliceOwner.uid)).toEqual(aliceOwner);
    expect(await bindings().get(childUid(ORG, 0x404))).toBeUndefined();
    expect(await bindings().find(ORG, ALICE, OWNER)).toEqual(aliceOwner);
    expect(await bindings().find(ORG, ALICE, VIEWER)).toBeUndefined();
    expect(await bindings().find(TEAM, ALICE, OWNER)).toBeUndefined();
  });

  it("lists an identity's bindings oldest first, and only its own", async () => {
    await bindings().insert(binding(childUid(TEAM, 0x10), BOB, VIEWER, 300));
    await bindings().insert(binding(childUid(ORG, 0x11), BOB, VIEWER, 200));
    await bindings().insert(binding(childUid(TEAM, 0x11), ALICE, VIEWER, 250));
    expect((await bindings().forIdentity(BOB)).map((b) => [b.groupUid, b.createTime])).toEqual([
      [ORG, 200],
      [TEAM, 300],
    ]);
    expect(await bindings().forIdentity(rootUid(0xdead))).toEqual([]);
  });

  it("grants each role an identity holds, with a custom role's capabilities", async () => {
    const carol = rootUid(0xca201);
    await bindings().insert(binding(childUid(TEAM, 0x12), carol, CUSTOM.uid, 2));
    await bindings().insert(binding(childUid(ORG, 0x12), carol, VIEWER, 1));
    // Grants come in no particular order (permissions do not depend on it).
    const grants = (await bindings().grantsOf(carol)).sort((a, b) => a.groupUid.localeCompare(b.groupUid));
    expect(grants).toEqual([
      { groupUid: ORG, roleUid: VIEWER, capabilities: [] },
      { groupUid: TEAM, roleUid: CUSTOM.uid, capabilities: ["repo.push", "repo.list"] },
    ]);
    expect(await bindings().grantsOf(rootUid(0xdead))).toEqual([]);
  });

  it.each([
    { name: "in a missing group", b: binding(childUid(MISSING_GROUP, 1), ALICE, OWNER), want: gone("group", MISSING_GROUP) },
    { name: "to a missing role", b: binding(childUid(TEAM, 0x13), ALICE, MISSING_ROLE), want: gone("role", MISSING_ROLE) },
    {
      name: "to a missing role in a missing group",
      b: binding(childUid(MISSING_GROUP, 2), ALICE, MISSING_ROLE),
      want: gone("group", MISSING_GROUP),
    },
    {
      name: "that already exists",
      b: binding(childUid(ORG, 0x19), ALICE, OWNER),
      want: { code: Code.ALREADY_EXISTS, message: `Already exists: role binding of ${ALICE} to role ${OWNER} in group ${ORG}` },
    },
  ])("refuses a binding $name", async ({ b, want }) => {
    await expect(bindings().insert(b)).rejects.toMatchObject(want);
    expect(await bindings().get(b.uid)).toBeUndefined();
  });

  it("names the missing role inside a transaction too, which goes on", async () => {
    const kept = binding(childUid(TEAM, 0x14), BOB, OWNER);
    await t.store().atomically(async (tx) => {
      await expect(tx.bindings.insert(binding(childUid(TEAM, 0x15), BOB, MISSING_ROLE))).rejects.toMatchObject(gone("role", MISSING_ROLE));
      await tx.bindings.insert(kept);
    });
    expect(await bindings().get(kept.uid)).toEqual(kept);
  });

  describe("update and delete", () => {
    const dave = rootUid(0xda7e);
    const b = binding(childUid(TEAM, 0x20), dave, VIEWER);
    beforeAll(async () => {
      await bindings().insert(b);
      await bindings().insert(binding(childUid(TEAM, 0x21), dave, OWNER));
    });

    it("changes the identity and the role given", async () => {
      expect(await bindings().update(b.uid, { roleUid: CUSTOM.uid })).toEqual({ ...b, roleUid: CUSTOM.uid });
      expect(await bindings().update(b.uid, { identityUid: BOB })).toEqual({ ...b, roleUid: CUSTOM.uid, identityUid: BOB });
      expect(await bindings().update(b.uid, { identityUid: dave, roleUid: VIEWER })).toEqual(b);
      expect(await bindings().get(b.uid)).toEqual(b);
    });

    it.each([
      {
        name: "another binding",
        changes: { roleUid: OWNER },
        want: { code: Code.ALREADY_EXISTS, message: `Already exists: role binding of ${dave} to role ${OWNER} in group ${TEAM}` },
      },
      { name: "a missing role", changes: { roleUid: MISSING_ROLE }, want: gone("role", MISSING_ROLE) },
    ])("refuses to turn a binding into $name", async ({ changes, want }) => {
      await expect(bindings().update(b.uid, changes)).rejects.toMatchObject(want);
      expect(await bindings().get(b.uid)).toEqual(b);
    });

    it("answers undefined and false for a missing binding, and deletes one", async () => {
      expect(await bindings().update(childUid(TEAM, 0x404), { roleUid: OWNER })).toBeUndefined();
      expect(await bindings().delete(childUid(TEAM, 0x404))).toBe(false);
      expect(await bindings().delete(b.uid)).toBe(true);
      expect(await bindings().get(b.uid)).toBeUndefined();
    });
  });
});

describeEachEngine("binding store lists", (t) => {
  const bindings = () => t.store().bindings;
  const fixture = {
    orgAlice: binding(childUid(ORG, 0x10), ALICE, OWNER),
    orgBob: binding(childUid(ORG, 0x11), BOB, VIEWER),
    teamAlice: binding(childUid(TEAM, 0x10), ALICE, VIEWER),
    teamBobCustom: binding(childUid(TEAM, 0x11), BOB, CUSTOM.uid),
    otherAlice: binding(childUid(OTHER, 0x10), ALICE, VIEWER),
  };
  beforeAll(async () => {
    await seed(t.store());
    for (const b of Object.values(fixture)) await bindings().insert(b);
  });

  it.each<{ name: string; filter: BindingFilter; want: (keyof typeof fixture)[] }>([
    { name: "everything", filter: { uidp: {} }, want: ["orgAlice", "orgBob", "teamAlice", "teamBobCustom", "otherAlice"] },
    { name: "an identity", filter: { uidp: {}, identity: ALICE }, want: ["orgAlice", "teamAlice", "otherAlice"] },
    { name: "a group", filter: { uidp: {}, group: TEAM }, want: ["teamAlice", "teamBobCustom"] },
    { name: "a role", filter: { uidp: {}, role: VIEWER }, want: ["orgBob", "teamAlice", "otherAlice"] },
    { name: "an identity and a role", filter: { uidp: {}, identity: ALICE, role: VIEWER }, want: ["teamAlice", "otherAlice"] },
    { name: "children of a group: the bindings held there", filter: { uidp: { childrenOf: ORG } }, want: ["orgAlice", "orgBob"] },
    {
      name: "descendants of an organization",
      filter: { uidp: { descendantsOf: ORG } },
      want: ["orgAlice", "orgBob", "teamAlice", "teamBobCustom"],
    },
    { name: "ids", filter: { uidp: { ids: [fixture.orgBob.uid, fixture.otherAlice.uid] } }, want: ["orgBob", "otherAlice"] },
    { name: "the root", filter: { uidp: { inRoot: true } }, want: [] },
    { name: "visibility of a group", filter: { uidp: {}, visibleUnder: [TEAM] }, want: ["teamAlice", "teamBobCustom"] },
    {
      name: "visibility of an organization",
      filter: { uidp: {}, visibleUnder: [ORG] },
      want: ["orgAlice", "orgBob", "teamAlice", "teamBobCustom"],
    },
    { name: "visibility of nothing", filter: { uidp: {}, visibleUnder: [] }, want: [] },
    {
      name: "an identity, visible in two subtrees",
      filter: { uidp: {}, identity: ALICE, visibleUnder: [TEAM, OTHER] },
      want: ["teamAlice", "otherAlice"],
    },
  ])("by $name", async ({ filter, want }) => {
    await expectMatches(
      bindings(),
      filter,
      want.map((n) => fixture[n].uid),
    );
  });
});
