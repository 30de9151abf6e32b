/**
 * The authorization generation of an identity (migrations 0007, 0012, 0013): every change of one
 * of its bindings or of any role moves it, whoever makes it and however (a cascade included), and
 * reads alone never do; a change of another identity's bindings leaves it alone. Servers trust
 * the permissions they remember only while it holds (src/auth/authorizer.ts), so a write that
 * failed to move it would let a revoked binding keep working.
 */
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { binding, identity, role, VIEWER, OWNER } from "../support/records.js";

const ORG = rootUid(0x6e7);
const TEAM = childUid(ORG, 1);
const ROBOT = childUid(ORG, 0x10);
const OTHER = childUid(ORG, 0x13);
const CUSTOM = childUid(TEAM, 0x20);

describeEachEngine("authorization generation", (t) => {
  beforeAll(async () => {
    await t.store().groups.insert(group(ORG, "org"));
    await t.store().groups.insert(group(TEAM, "team"));
    await t.store().identities.insert(identity(ROBOT, "robot"));
  });

  /** Runs change and tells whether the generation of identity (by default ROBOT) moved. */
  const moves = async (change: () => Promise<unknown>, identityUid = ROBOT) => {
    const before = await t.store().bindings.authzGeneration(identityUid);
    await change();
    return (await t.store().bindings.authzGeneration(identityUid)) !== before;
  };

  it("moves on every write of a binding or a role, and on a group's bindings going with it", async () => {
    const store = t.store();
    const first = childUid(TEAM, 0x30);
    expect.soft(await moves(() => store.roles.insert(role(CUSTOM, "custom", ["groups.list"])))).toBe(true);
    expect.soft(await moves(() => store.bindings.insert(binding(first, ROBOT, VIEWER)))).toBe(true);
    expect.soft(await moves(() => store.bindings.update(first, { roleUid: OWNER }))).toBe(true);
    expect.soft(await moves(() => store.roles.update(CUSTOM, { capabilities: ["groups.list", "groups.update"] }, 2))).toBe(true);
    expect.soft(await moves(() => store.bindings.delete(first))).toBe(true);
    expect.soft(await moves(() => store.atomically((tx) => tx.bindings.insert(binding(childUid(TEAM, 0x31), ROBOT, CUSTOM))))).toBe(true);
    // Deleting the group takes its binding and custom role along (ON DELETE CASCADE).
    expect.soft(await moves(() => store.groups.delete(TEAM))).toBe(true);
    expect(await store.bindings.grantsOf(ROBOT)).toEqual([]);
  });

  it("moves for the identities whose bindings changed, and for no other", async () => {
    const store = t.store();
    const third = childUid(ORG, 0x14);
    const team = childUid(ORG, 3);
    await store.groups.insert(group(team, "team 3"));
    const theirs = childUid(team, 0x50);
    expect.soft(await moves(() => store.bindings.insert(binding(theirs, OTHER, VIEWER)))).toBe(false);
    expect.soft(await moves(() => store.bindings.insert(binding(childUid(team, 0x51), OTHER, OWNER)), OTHER)).toBe(true);
    // A binding handed to another identity moves both, and still not a bystander's.
    const generations = async () => Promise.all([OTHER, third, ROBOT].map((uid) => store.bindings.authzGeneration(uid)));
    let before = await generations();
    await store.bindings.update(theirs, { identityUid: third });
    let after = await generations();
    expect.soft(after.map((g, i) => g !== before[i])).toEqual([true, true, false]);
    // A group's bindings going with it move each of their identities.
    await store.bindings.insert(binding(childUid(team, 0x52), ROBOT, VIEWER));
    before = await generations();
    await store.groups.delete(team);
    after = await generations();
    expect(after.map((g, i) => g !== before[i])).toEqual([true, true, true]);
  });

  it("stays put for reads, and for writes of anything else", async () => {
    const store = t.store();
    await store.bindings.insert(binding(childUid(ORG, 0x40), ROBOT, VIEWER));
    expect(await moves(() => store.bindings.grantsOf(ROBOT))).toBe(false);
    expect(await moves(() => store.groups.insert(group(childUid(ORG, 2), "another")))).toBe(false);
    expect(await moves(() => store.identities.update(ROBOT, { description: "changed" }, 3))).toBe(false);
    expect(await moves(() => store.identities.touch(ROBOT, 4))).toBe(false);
  });

  it("moves when an identity is deleted, bound or not (migration 0012: remembered existence)", async () => {
    const store = t.store();
    const loner = childUid(ORG, 0x11);
    await store.identities.insert(identity(loner, "loner"));
    expect(await moves(() => store.identities.insert(identity(childUid(ORG, 0x12), "newcomer")))).toBe(false);
    expect(await moves(() => store.identities.delete(loner))).toBe(true);
  });

  it("does not move for a write that rolled back", async () => {
    const store = t.store();
    expect(
      await moves(() =>
        store
          .atomically(async (tx) => {
            await tx.bindings.insert(binding(childUid(ORG, 0x41), ROBOT, OWNER));
            throw new Error("changed my mind");
          })
          .catch(() => undefined),
      ),
    ).toBe(false);
  });
});
