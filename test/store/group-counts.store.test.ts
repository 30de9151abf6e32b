/**
 * Descendant counts (migration 0008): a groups count of `uidp.descendants_of`, read off the
 * counts the triggers keep, must always equal the rows a count of the table finds, however the
 * groups came and went (one at a time, in bulk, concurrently, or by a statement from outside the
 * store), whatever the caller may see, and after the store folds an ancestor's rows.
 */
import { beforeAll, expect, it } from "vitest";
import type { GroupFilter } from "../../src/domain/groups.js";
import { createStore } from "../../src/store/create-store.js";
import { describeEachEngine, type EngineContext } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { migrateUpTo } from "../support/older-store.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

const ORG = rootUid(0xc0);
const A = childUid(ORG, 0xa);
const B = childUid(ORG, 0xb);
const A1 = childUid(A, 0x1);
const A1X = childUid(A1, 0x1);
const OTHER_ORG = rootUid(0xc1);

/** What a count of the table finds below uid (strictly), within the visible subtrees. */
async function rowsBelow(t: EngineContext, uid: string, visibleUnder?: readonly string[]): Promise<number> {
  const inside = `uid > '${uid}/' and uid < '${uid}0'`;
  const visible =
    visibleUnder === undefined
      ? "1 = 1"
      : visibleUnder.length === 0
        ? "1 = 0"
        : visibleUnder.map((v) => `(uid = '${v}' or (uid > '${v}/' and uid < '${v}0'))`).join(" or ");
  const [row] = await rawRows(t, `select count(*) as n from groups where ${inside} and (${visible})`);
  return Number(row?.n);
}

const below = (uid: string, visibleUnder?: readonly string[]): GroupFilter => ({
  uidp: { descendantsOf: uid },
  ...(visibleUnder !== undefined && { visibleUnder }),
});

describeEachEngine("group descendant counts", (t) => {
  const groups = () => t.store().groups;
  const agree = async (uid: string, visibleUnder?: readonly string[]) => {
    const want = await rowsBelow(t, uid, visibleUnder);
    expect(
      await groups().count(below(uid, visibleUnder)),
      `below ${uid.slice(-4)}, visible ${visibleUnder?.map((v) => v.slice(-4)).join(",")}`,
    ).toBe(want);
    return want;
  };

  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [OTHER_ORG, "other"],
      [A, "a"],
      [B, "b"],
      [A1, "a1"],
      [A1X, "a1x"],
    ] as const)
      await groups().insert(group(uid, name));
    for (let i = 0; i < 20; i++) await groups().insert(group(childUid(B, 0x100 + i), `b-${i}`));
  });

  it("counts a tree as a count of its rows would, at every level and for every visibility", async () => {
    expect(await agree(ORG)).toBe(24);
    expect(await agree(A)).toBe(2);
    expect(await agree(A1)).toBe(1);
    expect(await agree(A1X)).toBe(0);
    expect(await agree(OTHER_ORG)).toBe(0);
    expect(await agree(rootUid(0xdead))).toBe(0);
    for (const visible of [[ORG], [A], [A1, B], [A, A1], [A1X], [B, OTHER_ORG], [], [OTHER_ORG], [childUid(ORG, 0xf)]]) {
      for (const uid of [ORG, A, A1, B]) await agree(uid, visible);
    }
  });

  it("follows deletes, and inserts and deletes made by statements from outside the store", async () => {
    await groups().delete(A1X);
    expect(await agree(ORG)).toBe(23);
    expect(await agree(A)).toBe(1);
    const bulk = childUid(B, 0x200);
    await execRaw(
      t,
      "insert into groups (uid, parent_uid, name, description, create_time, update_time) " +
        `values ('${bulk}', '${B}', 'bulk', '', 1, 1), ('${childUid(bulk, 1)}', '${bulk}', 'bulk-child', '', 1, 1)`,
    );
    expect(await agree(ORG)).toBe(25);
    expect(await agree(B)).toBe(22);
    await execRaw(t, `delete from groups where uid = '${childUid(bulk, 1)}'`);
    expect(await agree(B)).toBe(21);
    await groups().insert(group(A1X, "a1x"));
  });

  it("folds an ancestor's rows into one once they pile up, and still counts right", async () => {
    const many = childUid(ORG, 0xe);
    await groups().insert(group(many, "many"));
    for (let i = 0; i < 150; i++) await groups().insert(group(childUid(many, 0x1000 + i), `m-${i}`));
    for (let i = 0; i < 10; i++) await groups().delete(childUid(many, 0x1000 + i));
    const rowsOf = async (uid: string) =>
      Number((await rawRows(t, `select count(*) as n from group_descendant_counts where ancestor_uid = '${uid}'`))[0]?.n);
    expect(await rowsOf(many)).toBe(160);
    expect(await agree(many)).toBe(140);
    expect(await rowsOf(many)).toBe(1);
    expect(await agree(many)).toBe(140);
    expect(await agree(ORG)).toBe(await rowsBelow(t, ORG));
  });

  it("counts concurrent creates and deletes exactly", async () => {
    const busy = childUid(ORG, 0xd);
    await groups().insert(group(busy, "busy"));
    const kids = Array.from({ length: 40 }, (_, i) => childUid(busy, 0x2000 + i));
    await Promise.all(kids.map((uid, i) => groups().insert(group(uid, `k-${i}`))));
    const before = await agree(ORG);
    // A count taken while the deletes run sees some of them, never less than all or more than none.
    const [during] = await Promise.all([groups().count(below(ORG)), ...kids.slice(0, 15).map((uid) => groups().delete(uid))]);
    expect(during).toBeGreaterThanOrEqual(before - 15);
    expect(during).toBeLessThanOrEqual(before);
    expect(await agree(busy)).toBe(25);
    expect(await agree(ORG)).toBe(await rowsBelow(t, ORG));
  });
});

describeEachEngine("group descendant counts of groups made before them", (t) => {
  it("are counted when migration 0008 runs on an existing store", async () => {
    // A store as an Arbor before 0008 left it, with groups in it.
    const options = await t.freshLocation();
    await migrateUpTo(options, "0007_authz_generation");
    const t0 = { ...t, options: () => options };
    for (const [uid, parent, name] of [
      [ORG, null, "org"],
      [A, ORG, "a"],
      [B, ORG, "b"],
      [A1, A, "a1"],
      [A1X, A1, "a1x"],
    ] as const) {
      await execRaw(
        t0,
        "insert into groups (uid, parent_uid, name, description, create_time, update_time) " +
          `values ('${uid}', ${parent === null ? "null" : `'${parent}'`}, '${name}', '', 1, 1)`,
      );
    }
    const reopened = await createStore(options);
    try {
      expect(await reopened.groups.count(below(ORG))).toBe(4);
      expect(await reopened.groups.count(below(A))).toBe(2);
      expect(await reopened.groups.count(below(B))).toBe(0);
    } finally {
      await reopened.close();
    }
  });
});
