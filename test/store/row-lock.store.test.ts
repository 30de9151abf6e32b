/**
 * lock(): the read of a read-modify-write holds its row until the transaction ends, on every
 * engine, so a concurrent writer waits instead of being overwritten (docs/reliability.md, races).
 */
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { identity } from "../support/records.js";

const ORG = rootUid(0x10c);
const ROBOT = childUid(ORG, 0x10);

describeEachEngine("row locks", (t) => {
  beforeAll(async () => {
    await t.store().groups.insert(group(ORG, "org"));
    await t.store().identities.insert(identity(ROBOT, "robot"));
  });

  it("makes a concurrent write wait until the locking transaction ends", async () => {
    const store = t.store();
    const order: string[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked = () => {};
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const first = store.atomically(async (tx) => {
      expect((await tx.identities.lock(ROBOT))?.uid).toBe(ROBOT);
      locked();
      await held;
      await tx.identities.update(ROBOT, { description: "first" }, 2);
      order.push("first wrote");
    });
    await isLocked;
    const second = store.identities.update(ROBOT, { description: "second" }, 3).then(() => order.push("second wrote"));
    await new Promise((r) => setTimeout(r, 200));
    order.push("released");
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(["released", "first wrote", "second wrote"]);
    expect((await store.identities.get(ROBOT))?.description).toBe("second");
  });

  it("finds nothing to lock for a uid that is not there", async () => {
    expect(await t.store().atomically((tx) => tx.identities.lock(childUid(ORG, 0x99)))).toBeUndefined();
  });
});
