/**
 * The authorization generation (migration 0007): every change of a binding or a role moves it,
 * whoever makes it and however (a cascade included), and reads alone never do. Servers trust the
 * permissions they remember only while it holds (src/services/authorizer.ts), so a write that
 * failed to move it would let a revoked binding keep working.
 */
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { binding, identity, role, VIEWER, OWNER } from "../support/records.js";

const ORG = rootUid(0x6e7);
const TEAM = childUid(ORG, 1);
const ROBOT = childUid(ORG, 0x10);
const CUSTOM = childUid(TEAM, 0x20);

describeEachEngine("authorization generation", (t) => {
  beforeAll(async () => {
    await t.store().groups.insert(group(ORG, "org"));
    await t.store().groups.insert(group(TEAM, "team"));
    await t.store().identities.insert(identity(ROBOT, "robot"));
  });

  /** Runs change and tells whether the generation moved. */
  const moves = async (change: () => Promise<unknown>) => {
    const before = await t.store().bindings.authzGeneration();
    await change();
    return (await t.store().bindings.authzGeneration()) !== before;
  };

  it("moves on every write of a binding or a role, and on a group's bindings going with it", async () => {
    const store = t.store();
    const first = childUid(TEAM, 0x30);
    expect.soft(await moves(() => store.roles.insert(role(CUSTOM, "custom", ["groups.list"])))).toBe(true);
    expect.soft(await moves(() => store.bindings.insert(binding(first, ROBOT, VIEWER)))).toBe(true);
    expect.soft(await moves(() => store.bindings.update(first, { roleUid: OWNER }))).toBe(true);
    expect.soft(await moves(() => store.roles.update(CUSTOM, { capabilities: ["groups.list", "groups.update"] }, 2))).toBe(true);
    expect.soft(await moves(() => store.bindings.delete(first))).toBe(true);
    expect.soft(await moves(() => store.transaction((tx) => tx.bindings.insert(binding(childUid(TEAM, 0x31), ROBOT, CUSTOM))))).toBe(true);
    // Deleting the group takes its binding and custom role along (ON DELETE CASCADE).
    expect.soft(await moves(() => store.groups.delete(TEAM))).toBe(true);
    expect(await store.bindings.grantsOf(ROBOT)).toEqual([]);
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
          .transaction(async (tx) => {
            await tx.bindings.insert(binding(childUid(ORG, 0x41), ROBOT, OWNER));
            throw new Error("changed my mind");
          })
          .catch(() => undefined),
      ),
    ).toBe(false);
  });
});
