/**
 * store.atomically(): every statement the stores make within it, wherever they are called from,
 * lands in one transaction; an atomically() inside joins it, with the same tx. This is what makes
 * a change and its audit event commit together (src/server/invoker.ts), and what the escalation
 * guard reads the call's authority changes from. (ambient-transaction.store.test.ts pins each
 * kind of statement underneath.)
 */
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { binding, OWNER, VIEWER } from "../support/records.js";

const ORG = rootUid(0xa7);
const ADMIN = rootUid(0xa70);

describeEachEngine("atomically", (t) => {
  beforeAll(async () => {
    await t.store().groups.insert(group(ORG, "org"));
  });

  /** A change made the way services make them: through the store's own methods, in helpers that know nothing of transactions. */
  const createTeam = async (n: number) => {
    await t.store().groups.insert(group(childUid(ORG, n), `team-${n}`));
    await t.store().atomically((tx) => tx.bindings.insert(binding(childUid(childUid(ORG, n), 1), ADMIN, OWNER)));
  };
  const exists = async (n: number) => ({
    group: (await t.store().groups.get(childUid(ORG, n))) !== undefined,
    binding: (await t.store().bindings.get(childUid(childUid(ORG, n), 1))) !== undefined,
  });

  it("commits everything fn did when it resolves, and fn sees its own writes", async () => {
    const seen = await t.store().atomically(async () => {
      await createTeam(1);
      return exists(1);
    });
    expect(seen).toEqual({ group: true, binding: true });
    expect(await exists(1)).toEqual({ group: true, binding: true });
  });

  it("rolls back everything fn did when it throws, nested transactions included", async () => {
    await expect(
      t.store().atomically(async () => {
        await createTeam(2);
        throw new Error("the audit event could not be written");
      }),
    ).rejects.toThrow("the audit event could not be written");
    expect(await exists(2)).toEqual({ group: false, binding: false });
  });

  it("keeps what fn did from others until it commits", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let written = () => {};
    const isWritten = new Promise<void>((resolve) => (written = resolve));
    const inside = t.store().atomically(async () => {
      await t.store().groups.insert(group(childUid(ORG, 3), "team-3"));
      written();
      await held;
    });
    await isWritten;
    // Outside fn's async context: another connection (on SQLite the reader, sqlite-driver.ts),
    // which cannot see the insert yet.
    const outside = t.store().groups.get(childUid(ORG, 3));
    const early = await Promise.race([
      outside.then((g) => (g === undefined ? "absent" : "present")),
      new Promise((r) => setTimeout(() => r("waiting"), 200)),
    ]);
    expect(early).toBe("absent");
    release();
    await inside;
    expect((await t.store().groups.get(childUid(ORG, 3)))?.name).toBe("team-3");
  });

  it("gives fn its stores and the authority changes, shared by the store's own calls and any atomically() inside", async () => {
    const team = childUid(ORG, 4);
    const changes = await t.store().atomically(async (tx) => {
      await tx.groups.insert(group(team, "team-4"));
      // Through tx, through the store, and in a nested atomically: one transaction, one list.
      await tx.bindings.insert(binding(childUid(team, 1), ADMIN, OWNER));
      await t.store().bindings.insert(binding(childUid(team, 2), ADMIN, VIEWER));
      const inner = await t.store().atomically(async (nested) => {
        expect(nested).toBe(tx);
        expect((await nested.groups.get(team))?.name).toBe("team-4");
        return nested.authorityChanges.length;
      });
      expect(inner).toBe(2);
      expect((await t.store().bindings.get(childUid(team, 1)))?.roleUid).toBe(OWNER);
      return [...tx.authorityChanges];
    });
    expect(changes).toEqual([
      { kind: "binding", groupUid: team, identityUid: ADMIN, roleUid: OWNER },
      { kind: "binding", groupUid: team, identityUid: ADMIN, roleUid: VIEWER },
    ]);
  });

  it("starts each transaction with no authority changes", async () => {
    expect(await t.store().atomically(async (tx) => tx.authorityChanges.length)).toBe(0);
  });
});
