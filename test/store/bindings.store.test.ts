/**
 * The role binding store on every engine.
 */
import { beforeAll, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import type { BindingRecord } from "../../src/store/types.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";

const ORG = rootUid(1);
const TEAM = childUid(ORG, 1);
const ALICE = rootUid(0xa11ce);
const BOB = rootUid(0xb0b);
// Bindings name existing roles (a foreign key): the built-in ones are rows of every store.
const OWNER = builtinRoleUid("owner");
const VIEWER = builtinRoleUid("viewer");

function binding(n: number, groupUid: string, identityUid: string, roleUid: string, createTime: number): BindingRecord {
  return { uid: childUid(groupUid, n), groupUid, identityUid, roleUid, createTime };
}

describeEachEngine("binding store", (t) => {
  const bindings = () => t.store().bindings;

  beforeAll(async () => {
    await t.store().groups.insert(group(ORG, "org"));
    await t.store().groups.insert(group(TEAM, "team"));
    await bindings().insert(binding(1, ORG, ALICE, OWNER, 100));
  });

  it("finds a binding by group, identity and role", async () => {
    expect(await bindings().find(ORG, ALICE, OWNER)).toEqual(binding(1, ORG, ALICE, OWNER, 100));
    expect(await bindings().find(ORG, ALICE, VIEWER)).toBeUndefined();
    expect(await bindings().find(TEAM, ALICE, OWNER)).toBeUndefined();
  });

  it("lists an identity's bindings oldest first, and only its own", async () => {
    await bindings().insert(binding(2, TEAM, BOB, VIEWER, 300));
    await bindings().insert(binding(3, ORG, BOB, VIEWER, 200));
    await bindings().insert(binding(4, TEAM, ALICE, VIEWER, 250));
    expect((await bindings().forIdentity(BOB)).map((b) => [b.groupUid, b.createTime])).toEqual([
      [ORG, 200],
      [TEAM, 300],
    ]);
    expect(await bindings().forIdentity(rootUid(0xdead))).toEqual([]);
  });

  it.each([
    {
      name: "in a missing group",
      b: binding(1, rootUid(0x404), ALICE, OWNER, 1),
      want: { code: Code.NOT_FOUND, details: { resource: { resourceType: "group", resourceName: rootUid(0x404) } } },
    },
    { name: "that already exists", b: binding(9, ORG, ALICE, OWNER, 1), want: { code: Code.ALREADY_EXISTS } },
  ])("refuses a binding $name", async ({ b, want }) => {
    await expect(bindings().insert(b)).rejects.toMatchObject(want);
  });
});
