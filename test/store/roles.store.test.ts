/**
 * The role store on every engine: built-in roles as rows that no write but syncBuiltins changes,
 * custom roles and their constraints, and which roles a caller sees.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import { BUILTIN_ROLES, builtinRoleUid } from "../../src/domain/roles.js";
import { createStore } from "../../src/store/create-store.js";
import type { ResourceFilter } from "../../src/domain/hierarchy.js";
import { describeEachEngine } from "../support/engines.js";
import { expectMatches } from "../support/lists.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { binding, OWNER, provider, role, VIEWER } from "../support/records.js";

const ORG = rootUid(1);
const TEAM = childUid(ORG, 1);
const OTHER = rootUid(2);
const BUILTINS = [...BUILTIN_ROLES.values()].map((r) => r.uid);
const T1 = 1_800_000_000_000;

const precondition = (type: string, subject: string, description: string) => ({
  code: Code.FAILED_PRECONDITION,
  details: { preconditionViolations: [{ type, subject, description }] },
});
const builtIn = (uid: string) => precondition("BUILT_IN", uid, "built-in roles cannot be changed or deleted");
const inUse = (uid: string, description: string) => precondition("RESOURCE_IN_USE", uid, description);

describeEachEngine("role store", (t) => {
  const roles = () => t.store().roles;

  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [OTHER, "other"],
    ] as const)
      await t.store().groups.insert(group(uid, name));
  });

  it("holds the built-in roles as rows without a parent or stored capabilities", async () => {
    const owner = await roles().get(OWNER);
    expect(owner).toMatchObject({ uid: OWNER, parentUid: null, name: "owner", description: "Owner Role (built-in)", capabilities: [] });
    expect((await roles().getMany(BUILTINS)).map((r) => r.uid)).toEqual([...BUILTINS].sort());
  });

  describe("writes", () => {
    const editors = role(childUid(TEAM, 1), "editors", ["groups.list", "groups.update"]);
    beforeAll(async () => {
      await roles().insert(editors);
    });

    it("inserts and gets a custom role with its capabilities", async () => {
      expect(await roles().get(editors.uid)).toEqual(editors);
      expect(await roles().get(childUid(TEAM, 0x404))).toBeUndefined();
    });

    it.each([
      {
        name: "a sibling's name is ALREADY_EXISTS",
        r: role(childUid(TEAM, 2), "editors"),
        want: { code: Code.ALREADY_EXISTS, message: `Already exists: role named "editors" in group ${TEAM}` },
      },
      {
        name: "a missing group is NOT_FOUND of the group",
        r: role(childUid(rootUid(0xbad), 1), "orphan"),
        want: { code: Code.NOT_FOUND, details: { resource: { resourceType: "group", resourceName: rootUid(0xbad) } } },
      },
      { name: "a built-in role's name is fine", r: role(childUid(TEAM, 3), "owner"), want: undefined },
      { name: "a name used in another group is fine", r: role(childUid(OTHER, 1), "editors"), want: undefined },
    ])("inserting: $name", async ({ r, want }) => {
      if (want === undefined) {
        await roles().insert(r);
        expect(await roles().get(r.uid)).toEqual(r);
      } else {
        await expect(roles().insert(r)).rejects.toMatchObject(want);
      }
    });

    it("changes only the given fields of a custom role and sets the update time", async () => {
      const updated = await roles().update(editors.uid, { capabilities: ["groups.list"] }, T1);
      expect(updated).toEqual({ ...editors, capabilities: ["groups.list"], updateTime: T1 });
      expect(await roles().get(editors.uid)).toEqual(updated);
    });

    it("answers undefined when updating a missing role, ALREADY_EXISTS for a sibling's name", async () => {
      expect(await roles().update(childUid(TEAM, 0x404), { name: "x" }, T1)).toBeUndefined();
      await expect(roles().update(childUid(TEAM, 3), { name: "editors" }, T1)).rejects.toMatchObject({
        code: Code.ALREADY_EXISTS,
        message: `Already exists: role named "editors" in group ${TEAM}`,
      });
    });

    it("refuses to change or delete a built-in role", async () => {
      const before = await roles().get(VIEWER);
      await expect(roles().update(VIEWER, { description: "mine now" }, T1)).rejects.toMatchObject(builtIn(VIEWER));
      await expect(roles().delete(VIEWER)).rejects.toMatchObject(builtIn(VIEWER));
      expect(await roles().get(VIEWER)).toEqual(before);
    });
  });

  describe("delete", () => {
    const unused = role(childUid(ORG, 0x10), "unused");
    const bound = role(childUid(ORG, 0x11), "bound");
    const defaulted = role(childUid(ORG, 0x12), "defaulted");
    const both = role(childUid(ORG, 0x13), "both");
    beforeAll(async () => {
      for (const r of [unused, bound, defaulted, both]) await roles().insert(r);
      await t.store().bindings.insert(binding(childUid(TEAM, 0x11), rootUid(0xa11ce), bound.uid));
      await t.store().identityProviders.insert(provider(childUid(ORG, 0x21), "idp", defaulted.uid));
      await t.store().bindings.insert(binding(childUid(ORG, 0x13), rootUid(0xa11ce), both.uid));
      await t.store().identityProviders.insert(provider(childUid(ORG, 0x23), "idp2", both.uid));
    });

    it("deletes an unused custom role, then answers false", async () => {
      expect(await roles().delete(unused.uid)).toBe(true);
      expect(await roles().get(unused.uid)).toBeUndefined();
      expect(await roles().delete(unused.uid)).toBe(false);
    });

    it.each([
      { name: "bound", r: bound, description: "cannot delete a role that is bound" },
      {
        name: "some provider's default",
        r: defaulted,
        description: "cannot delete a role that is the default role of an identity provider",
      },
      { name: "bound and a default", r: both, description: "cannot delete a role that is bound" },
    ])("refuses a role that is $name as RESOURCE_IN_USE", async ({ r, description }) => {
      await expect(roles().delete(r.uid)).rejects.toMatchObject(inUse(r.uid, description));
      expect(await roles().get(r.uid)).toEqual(r);
    });

    it("says so inside a transaction too, which goes on", async () => {
      const kept = role(childUid(ORG, 0x14), "kept");
      await t.store().atomically(async (tx) => {
        await expect(tx.roles.delete(defaulted.uid)).rejects.toMatchObject(
          inUse(defaulted.uid, "cannot delete a role that is the default role of an identity provider"),
        );
        await tx.roles.insert(kept);
      });
      expect(await roles().get(kept.uid)).toEqual(kept);
    });
  });

  it("brings the built-in roles' rows in line with the code, sparing the unchanged", async () => {
    const options = await t.freshLocation();
    const store = await createStore(options);
    try {
      const before = await store.roles.get(OWNER);
      const added = { uid: builtinRoleUid("auditor"), name: "auditor", description: "Auditor Role (built-in)" };
      await store.roles.syncBuiltins(
        [
          { uid: OWNER, name: "owner", description: "Owner Role (built-in)" },
          { uid: VIEWER, name: "viewer", description: "Viewer Role (built-in, reworded)" },
          added,
        ],
        T1,
      );
      expect(await store.roles.get(OWNER)).toEqual(before);
      expect(await store.roles.get(VIEWER)).toMatchObject({ description: "Viewer Role (built-in, reworded)", updateTime: T1 });
      expect(await store.roles.get(added.uid)).toEqual({ ...added, parentUid: null, capabilities: [], createTime: T1, updateTime: T1 });
    } finally {
      await store.close();
    }
  });
});

describeEachEngine("role store lists", (t) => {
  const roles = () => t.store().roles;
  const fixture = {
    // Numbered apart from the groups: uids are unique across tables.
    orgAdmin: role(childUid(ORG, 0x10), "admin"),
    teamAdmin: role(childUid(TEAM, 0x10), "admin"),
    teamOwner: role(childUid(TEAM, 0x11), "owner"),
    otherAdmin: role(childUid(OTHER, 0x10), "admin"),
  };
  type Name = keyof typeof fixture;
  const custom = (...names: Name[]) => names.map((n) => fixture[n].uid);

  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [OTHER, "other"],
    ] as const)
      await t.store().groups.insert(group(uid, name));
    for (const r of Object.values(fixture)) await roles().insert(r);
  });

  const cases: { name: string; filter: ResourceFilter; want: string[] }[] = [
    { name: "everything", filter: { uidp: {} }, want: [...BUILTINS, ...custom("orgAdmin", "teamAdmin", "teamOwner", "otherAdmin")] },
    { name: "the root: the built-in roles", filter: { uidp: { inRoot: true } }, want: BUILTINS },
    { name: "the root, even seeing nothing", filter: { uidp: { inRoot: true }, visibleUnder: [] }, want: BUILTINS },
    {
      name: "visibility of a group: its roles and the built-in ones",
      filter: { uidp: {}, visibleUnder: [TEAM] },
      want: [...BUILTINS, ...custom("teamAdmin", "teamOwner")],
    },
    { name: "visibility of nothing: the built-in roles", filter: { uidp: {}, visibleUnder: [] }, want: BUILTINS },
    { name: "children of a group", filter: { uidp: { childrenOf: TEAM } }, want: custom("teamAdmin", "teamOwner") },
    {
      name: "descendants of an organization",
      filter: { uidp: { descendantsOf: ORG } },
      want: custom("orgAdmin", "teamAdmin", "teamOwner"),
    },
    { name: "a name held by a built-in and a custom role", filter: { uidp: {}, name: "owner" }, want: [OWNER, ...custom("teamOwner")] },
    { name: "a name, visible in another subtree", filter: { uidp: {}, name: "admin", visibleUnder: [OTHER] }, want: custom("otherAdmin") },
    {
      name: "ids, visible in a group",
      filter: { uidp: { ids: [VIEWER, ...custom("orgAdmin", "teamAdmin")] }, visibleUnder: [TEAM] },
      want: [VIEWER, ...custom("teamAdmin")],
    },
  ];

  it.each(cases)("by $name", async ({ filter, want }) => {
    await expectMatches(roles(), filter, want);
  });
});
