/**
 * The group store's pages and counts for callers with many scopes (src/store/group-pages.ts), on
 * every engine: each way a page is read (scope by scope in uid order, all of a few visible
 * groups, rows tested in the page's order) returns what a plain filter over every group returns,
 * page after page, and a remembered count stays exact through every change that could make it
 * stale: groups made and removed, folds of the counts, a rolled-back transaction, a second
 * replica's writes.
 */
import { Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Capability } from "../../src/domain/capabilities.js";
import { groupSortValue, type GroupFilter, type GroupRecord } from "../../src/domain/groups.js";
import type { OrderKey } from "../../src/domain/list.js";
import { Permissions } from "../../src/domain/permissions.js";
import { isSelfOrDescendant } from "../../src/domain/uid.js";
import { createStore } from "../../src/store/create-store.js";
import { engineSetup } from "../../src/store/dialect.js";
import { FOLD_AT, manyScopeGroups, MAX_READ_ROWS, type GroupRows } from "../../src/store/group-pages.js";
import { groupsTable } from "../../src/store/group-store.js";
import { ScopeMemory } from "../../src/store/scope-memory.js";
import type { Database } from "../../src/store/tables.js";
import { FEW_SCOPES } from "../../src/store/hierarchy-filter.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { key, pageThrough, sortedBy, uids, window } from "../support/lists.js";
import { execRaw } from "../support/raw-sql.js";

const T = 1_700_000_000_000;
const ORG = rootUid(0xa1);
const OTHER_ORG = rootUid(0xb2);
const LIST = [Capability.CAP_IAM_GROUPS_LIST];

// 40 teams of 6 projects, every third project with 2 subprojects: 400 groups below ORG. Names
// repeat and times tie, so the uid must break ties; uid order differs from name order.
const teams = Array.from({ length: 40 }, (_, t) => childUid(ORG, 0x100 + ((t * 37) % 40)));
const tree: GroupRecord[] = [group(ORG, "org", { createTime: T }), group(OTHER_ORG, "other", { createTime: T })];
for (const [t, team] of teams.entries()) {
  tree.push(group(team, `team-${(t * 7) % 40}`, { createTime: T + (t % 5), updateTime: T + t }));
  for (let p = 0; p < 6; p++) {
    const project = childUid(team, 0x10 + p);
    tree.push(group(project, `p-${(t + p) % 9}`, { createTime: T + ((t + p) % 4), updateTime: T + p }));
    if (p % 3 === 0) for (let s = 0; s < 2; s++) tree.push(group(childUid(project, 0x20 + s), `s-${s}`, { createTime: T + s }));
  }
}
tree.push(...Array.from({ length: 30 }, (_, i) => group(childUid(OTHER_ORG, 0x300 + i), `o-${i}`, { createTime: T + i })));

const projectsOf = (team: string) => tree.filter((g) => g.parentUid === team).map((g) => g.uid);

/** A caller's scopes as the server hands them to the store: from Permissions, frozen and sorted. */
function scopesOf(groups: readonly string[]): readonly string[] {
  return new Permissions(groups.map((groupUid) => ({ groupUid, capabilities: new Set(LIST) }))).scopes(LIST);
}

const callers = {
  // 30 of 40 teams: most of the organization, so a page tests rows in its order.
  dense: scopesOf(teams.slice(0, 30)),
  // 20 projects: few visible groups, all read and ordered.
  few: scopesOf(teams.slice(0, 20).map((team) => projectsOf(team)[1] as string)),
  // Teams, projects of other teams, a project inside a bound team (not counted twice), groups that
  // do not exist, and a group of another organization.
  mixed: scopesOf([
    ...teams.slice(0, 8),
    ...teams.slice(10, 24).map((team) => projectsOf(team)[0] as string),
    projectsOf(teams[0] as string)[2] as string,
    childUid(ORG, 0xfff),
    childUid(teams[30] as string, 0xeee),
    childUid(OTHER_ORG, 0x301),
  ]),
};

const orders: OrderKey[][] = [
  [key("name"), key("uid")],
  [key("uid")],
  [key("uid", true)],
  [key("create_time", true), key("uid", true)],
  [key("update_time"), key("name", true), key("uid")],
];

/** What a filter over every group answers: the reference the many-scope reads must equal. */
function expected(filter: GroupFilter, order: readonly OrderKey[], groups: readonly GroupRecord[] = tree): string[] {
  const scopes = filter.visibleUnder ?? [];
  const under = filter.uidp.descendantsOf;
  const seen = groups.filter(
    (g) => (under === undefined || g.uid.startsWith(`${under}/`)) && scopes.some((s) => isSelfOrDescendant(g.uid, s)),
  );
  return uids(sortedBy(seen, order, groupSortValue));
}

describeEachEngine("group store, callers with many scopes", (t) => {
  const groups = () => t.store().groups;

  beforeAll(async () => {
    for (const g of tree) await groups().insert(g);
  });

  it("gives each caller more scopes than FEW_SCOPES, so these reads are the ones tested", () => {
    for (const scopes of Object.values(callers)) expect(scopes.length).toBeGreaterThan(FEW_SCOPES);
    expect(Object.isFrozen(callers.dense)).toBe(true);
  });

  describe.each(Object.entries(callers).map(([name, scopes]) => ({ name, scopes })))("the $name caller", ({ scopes }) => {
    const filters: [string, GroupFilter][] = [
      ["below the organization", { uidp: { descendantsOf: ORG }, visibleUnder: scopes }],
      ["below a team", { uidp: { descendantsOf: teams[0] as string }, visibleUnder: scopes }],
      ["everywhere", { uidp: {}, visibleUnder: scopes }],
    ];

    describe.each(filters.map(([name, filter]) => ({ name, filter })))("$name", ({ filter }) => {
      it.each(orders.map((order) => ({ order, name: order.map((k) => `${k.field}${k.desc ? " desc" : ""}`).join(", ") })))(
        "pages of 1, 7 and 50 ordered by $name reproduce the filter over every group",
        async ({ order }) => {
          const want = expected(filter, order);
          for (const size of [1, 7, 50]) {
            expect(await pageThrough((w) => groups().list(filter, w), order, size, groupSortValue)).toEqual(want);
          }
        },
      );

      it("skips an offset, from the start and after a key", async () => {
        const order = [key("name"), key("uid")];
        const want = expected(filter, order);
        expect(uids(await groups().list(filter, window(order, { offset: 3, limit: 5 })))).toEqual(want.slice(3, 8));
        const second = tree.find((g) => g.uid === want[1]);
        if (second === undefined) return;
        const after = order.map((k) => groupSortValue(second, k.field));
        expect(uids(await groups().list(filter, window(order, { after, offset: 2, limit: 4 })))).toEqual(want.slice(4, 8));
      });

      it("counts exactly what it lists, again from memory", async () => {
        const want = expected(filter, [key("uid")]).length;
        expect(await groups().count(filter)).toBe(want);
        expect(await groups().count(filter)).toBe(want);
      });
    });
  });

  describe("a page whose sort keys are read before its rows", () => {
    // The dense caller's pages walk the sort keys and then read the page's groups by uid (the
    // few caller's gather all keys first): a group removed or renamed between the two reads
    // must not leave a short page, which would read as the last, or one out of its order.
    const cases = [
      { name: "dense", filter: { uidp: { descendantsOf: ORG }, visibleUnder: callers.dense } },
      { name: "few", filter: { uidp: { descendantsOf: ORG }, visibleUnder: callers.few } },
    ];
    const order = [key("name"), key("uid")];
    let db: Kysely<Database>;

    beforeAll(() => {
      db = new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
    });
    afterAll(() => db.destroy());

    /** The many-scope reads over db, running `between` once when the page's groups are first read by uid. */
    function readsWith(between: (uids: readonly string[]) => Promise<void>) {
      const table = groupsTable(db, t.engine);
      let done = false;
      const rows: GroupRows = {
        list: table.list,
        listSortKeys: table.listSortKeys,
        async getMany(uids) {
          if (!done) {
            done = true;
            await between(uids);
          }
          return table.getMany(uids);
        },
      };
      return manyScopeGroups(db, t.engine, new ScopeMemory(), rows, table.fromRow);
    }

    /** A leaf group among the page's. */
    function leafOf(page: readonly string[]): string {
      const leaf = page.find((uid) => !tree.some((g) => g.parentUid === uid));
      if (leaf === undefined) throw new Error("no leaf group in the page");
      return leaf;
    }

    it.each(cases)("the $name caller's page is read again when a group of it is renamed meanwhile", async ({ filter }) => {
      const want = expected(filter, order, tree).slice(0, 51);
      expect(uids((await readsWith(async () => undefined).list(filter, window(order, { limit: 51 }))) ?? [])).toEqual(want);
      let renamed: { uid: string; name: string } | undefined;
      const reads = readsWith(async (page) => {
        const uid = leafOf(page);
        const before = await db.selectFrom("groups").select("name").where("uid", "=", uid).executeTakeFirstOrThrow();
        renamed = { uid, name: before.name };
        await db.updateTable("groups").set({ name: "zzz-renamed" }).where("uid", "=", uid).execute();
      });
      try {
        expect(await reads.list(filter, window(order, { limit: 51 }))).toBeUndefined();
        expect(renamed).toBeDefined();
      } finally {
        if (renamed !== undefined) await db.updateTable("groups").set({ name: renamed.name }).where("uid", "=", renamed.uid).execute();
      }
    });

    it.each(cases)("the $name caller's page is read again when a group of it is removed meanwhile", async ({ filter }) => {
      let removed: GroupRecord | undefined;
      const reads = readsWith(async (page) => {
        const uid = leafOf(page);
        removed = tree.find((g) => g.uid === uid);
        await db.deleteFrom("groups").where("uid", "=", uid).execute();
      });
      try {
        expect(await reads.list(filter, window(order, { limit: 51 }))).toBeUndefined();
        expect(removed).toBeDefined();
      } finally {
        if (removed !== undefined) await groups().insert(removed);
      }
    });
  });

  describe("a remembered count", () => {
    const scopes = callers.dense;
    const filter: GroupFilter = { uidp: { descendantsOf: ORG }, visibleUnder: scopes };
    const inScope = teams[3] as string;
    const outOfScope = teams[35] as string;
    let made: GroupRecord[] = [];
    const countNow = () => expected(filter, [key("uid")], [...tree, ...made]).length;
    const make = async (parent: string, n: number) => {
      const g = group(childUid(parent, n), `made-${n}`, { createTime: T + 9 });
      await groups().insert(g);
      made.push(g);
      return g;
    };

    beforeAll(async () => {
      expect(await groups().count(filter)).toBe(countNow());
    });

    it("follows groups made and removed below a scope, and only those", async () => {
      const inside = await make(inScope, 0xc00);
      expect(await groups().count(filter)).toBe(countNow());
      await make(outOfScope, 0xc01);
      expect(await groups().count(filter)).toBe(countNow());
      expect(await groups().delete(inside.uid)).toBe(true);
      made = made.filter((g) => g !== inside);
      expect(await groups().count(filter)).toBe(countNow());
      // Made again with the uid it had: the version must still have moved.
      await make(inScope, 0xc00);
      expect(await groups().count(filter)).toBe(countNow());
    });

    it("stays exact across folds of the organization's counts", async () => {
      // Each group made adds a count row to the organization; past FOLD_AT a count folds them.
      for (let i = 0; i < FOLD_AT + 8; i++) {
        await make(i % 2 === 0 ? inScope : outOfScope, 0xd00 + i);
        if (i % 9 === 0) expect(await groups().count(filter)).toBe(countNow());
      }
      expect(await groups().count(filter)).toBe(countNow());
      expect(await groups().count(filter)).toBe(countNow());
      await make(inScope, 0xe00);
      expect(await groups().count(filter)).toBe(countNow());
    });

    it("is not taken from a transaction that rolled back", async () => {
      const before = countNow();
      const rolledBack = new Error("rolled back on purpose");
      await expect(
        t.store().atomically(async (tx) => {
          await tx.groups.insert(group(childUid(inScope, 0xf00), "gone", { createTime: T }));
          expect(await tx.groups.count(filter)).toBe(before + 1);
          throw rolledBack;
        }),
      ).rejects.toBe(rolledBack);
      // A later group takes the place (on SQLite, the row number) the rolled-back one had, and so
      // the version the transaction saw: what was counted in it must not have been remembered.
      await make(outOfScope, 0xf01);
      expect(countNow()).toBe(before);
      expect(await groups().count(filter)).toBe(before);
      await make(inScope, 0xf02);
      expect(await groups().count(filter)).toBe(countNow());
    });

    it("sees another replica's changes on the next count", async () => {
      const replica = await createStore(t.options());
      try {
        expect(await groups().count(filter)).toBe(countNow());
        const g = group(childUid(inScope, 0xf10), "from-replica", { createTime: T });
        await replica.groups.insert(g);
        made.push(g);
        expect(await groups().count(filter)).toBe(countNow());
        expect(await replica.groups.count(filter)).toBe(countNow());
      } finally {
        await replica.close();
      }
    });

    it("lists a page right when groups made since the last count make the caller's few groups many", async () => {
      // The few-group caller's groups are read all at once; MAX_READ_ROWS more below one of its
      // scopes, written beside the store so that no count sees them first, must not truncate it.
      const few: GroupFilter = { uidp: { descendantsOf: ORG }, visibleUnder: callers.few };
      // Descending by name, the first page holds the other scopes' groups (p-…, s-…), which come
      // last in uid order: the ones a truncated read would miss.
      const order = [key("name", true), key("uid", true)];
      expect(await groups().count(few)).toBe(expected(few, order, [...tree, ...made]).length);
      const under = callers.few[0] as string;
      const bulk = Array.from({ length: MAX_READ_ROWS + 10 }, (_, i) =>
        group(childUid(under, 0x10000 + i), `bulk-${i}`, { createTime: T }),
      );
      const values = bulk.map((g) => `('${g.uid}', '${under}', '${g.name}', '', ${T}, ${T})`).join(", ");
      await execRaw(t, `insert into groups (uid, parent_uid, name, description, create_time, update_time) values ${values}`);
      made.push(...bulk);
      const want = expected(few, order, [...tree, ...made]);
      expect(uids(await groups().list(few, window(order, { limit: 51 })))).toEqual(want.slice(0, 51));
      expect(await groups().count(few)).toBe(want.length);
    });

    it("lists what it counts after all of that", async () => {
      const order = [key("name"), key("uid")];
      expect(await pageThrough((w) => groups().list(filter, w), order, 50, groupSortValue)).toEqual(
        expected(filter, order, [...tree, ...made]),
      );
    });
  });
});
