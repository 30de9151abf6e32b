/**
 * The binding store's pages and counts for callers with many scopes (src/store/list-changes.ts),
 * on every engine: a page read in its order with rows tested in the server returns what the
 * engine's filter returns, page after page, and a count remembered and moved forward by the
 * change log (migration 0017) stays exact through everything that could make it stale: bindings
 * made and removed in and out of the caller's scopes, a group's cascade, a rolled-back
 * transaction, another replica's writes, a transaction that commits after a count began, and
 * pruning of the log.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Capability } from "../../src/domain/capabilities.js";
import type { OrderKey } from "../../src/domain/list.js";
import { Permissions } from "../../src/domain/permissions.js";
import { bindingSortValue } from "../../src/domain/role-binding-rules.js";
import { isSelfOrDescendant, parentOf } from "../../src/domain/uid.js";
import { createStore } from "../../src/store/create-store.js";
import { FEW_SCOPES } from "../../src/store/hierarchy-filter.js";
import { MAX_READ_ROWS } from "../../src/store/list-changes.js";
import type { BindingFilter, BindingRecord } from "../../src/domain/role-bindings.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { key, pageThrough, sortedBy, uids, window } from "../support/lists.js";
import { passHorizon } from "../support/list-changes.js";
import { execRaw, rawRows } from "../support/raw-sql.js";
import { binding, OWNER, VIEWER } from "../support/records.js";

const T = 1_700_000_000_000;
const ORG = rootUid(0xc1);
const OTHER_ORG = rootUid(0xc2);
const LIST = [Capability.CAP_IAM_ROLE_BINDINGS_LIST];

// 60 teams with 3 projects each; bindings at the organization, at every team and at every
// project, each of its own identity, with create times that tie so the uid must break ties.
const teams = Array.from({ length: 60 }, (_, t) => childUid(ORG, 0x100 + ((t * 13) % 60)));
const groups = [group(ORG, "org"), group(OTHER_ORG, "other")];
const projects: string[] = [];
for (const [t, team] of teams.entries()) {
  groups.push(group(team, `team-${t}`));
  for (let p = 0; p < 3; p++) {
    const project = childUid(team, 0x10 + p);
    groups.push(group(project, `p-${p}`));
    projects.push(project);
  }
}
const otherTeams = Array.from({ length: 5 }, (_, i) => childUid(OTHER_ORG, 0x200 + i));
groups.push(...otherTeams.map((uid, i) => group(uid, `o-${i}`)));

// Each binding of its own identity (one need not exist), so none clashes with another.
let serial = 0x1000;
const bind = (groupUid: string, createTime = T + (serial % 7)) => {
  const n = serial++;
  return binding(childUid(groupUid, n), rootUid(0x50000 + n), n % 3 === 0 ? OWNER : VIEWER, createTime);
};
const initial: BindingRecord[] = [
  bind(ORG),
  ...teams.flatMap((team) => [bind(team), bind(team)]),
  ...projects.map((project) => bind(project)),
  ...otherTeams.map((team) => bind(team)),
];

/** A caller's scopes as the server hands them to the store: from Permissions, frozen and sorted. */
function scopesOf(at: readonly string[]): readonly string[] {
  return new Permissions(at.map((groupUid) => ({ groupUid, capabilities: new Set(LIST) }))).scopes(LIST);
}

const callers = {
  // 45 of 60 teams: most bindings of the organization, so pages are read in order and tested.
  dense: scopesOf(teams.slice(0, 45)),
  // 30 projects and 2 teams: few of the bindings, so the engine reads the pages.
  sparse: scopesOf([...projects.slice(0, 30), ...teams.slice(50, 52)]),
  // Teams, a project inside a bound team, groups that do not exist, another organization's team.
  mixed: scopesOf([...teams.slice(0, 20), projects[0] as string, childUid(ORG, 0xfff), otherTeams[1] as string]),
};

const orders: OrderKey[][] = [
  [key("create_time"), key("uid")],
  [key("create_time", true), key("uid", true)],
  [key("uid")],
  [key("uid", true)],
];

/** What a filter over every binding answers: the reference the store must equal. */
function expected(filter: BindingFilter, order: readonly OrderKey[], all: readonly BindingRecord[]): string[] {
  const scopes = filter.visibleUnder ?? [];
  const under = filter.uidp.descendantsOf;
  const seen = all.filter(
    (b) => (under === undefined || b.uid.startsWith(`${under}/`)) && scopes.some((s) => isSelfOrDescendant(b.groupUid, s)),
  );
  return uids(sortedBy(seen, order, bindingSortValue));
}

describeEachEngine("binding store, callers with many scopes", (t) => {
  const bindings = () => t.store().bindings;
  let all: BindingRecord[] = [...initial];

  beforeAll(async () => {
    for (const g of groups) await t.store().groups.insert(g);
    for (const b of initial) await bindings().insert(b);
  });

  it("gives each caller more scopes than FEW_SCOPES, so these reads are the ones tested", () => {
    for (const scopes of Object.values(callers)) expect(scopes.length).toBeGreaterThan(FEW_SCOPES);
  });

  describe.each(Object.entries(callers).map(([name, scopes]) => ({ name, scopes })))("the $name caller", ({ scopes }) => {
    const filters: [string, BindingFilter][] = [
      ["below the organization", { uidp: { descendantsOf: ORG }, visibleUnder: scopes }],
      ["everywhere", { uidp: {}, visibleUnder: scopes }],
    ];
    describe.each(filters.map(([name, filter]) => ({ name, filter })))("$name", ({ filter }) => {
      it.each(orders.map((order) => ({ order, name: order.map((k) => `${k.field}${k.desc ? " desc" : ""}`).join(", ") })))(
        "pages of 1, 7 and 50 ordered by $name reproduce the filter over every binding",
        async ({ order }) => {
          const want = expected(filter, order, all);
          for (const size of [1, 7, 50])
            expect(await pageThrough((w) => bindings().list(filter, w), order, size, bindingSortValue)).toEqual(want);
        },
      );

      it("skips an offset", async () => {
        const order = [key("create_time"), key("uid")];
        expect(uids(await bindings().list(filter, window(order, { offset: 3, limit: 5 })))).toEqual(
          expected(filter, order, all).slice(3, 8),
        );
      });

      it("counts exactly what it lists, again from memory", async () => {
        const want = expected(filter, [key("uid")], all).length;
        expect(await bindings().count(filter)).toBe(want);
        expect(await bindings().count(filter)).toBe(want);
      });
    });
  });

  describe.each(Object.entries(callers).map(([name, scopes]) => ({ name, scopes })))("narrow filters of the $name caller", ({ scopes }) => {
    // Read in order and tested here (or, past MAX_READ_ROWS, by the engine): the same answers.
    const narrow = (): [string, BindingFilter, (b: BindingRecord) => boolean][] => {
      const sample = initial[7] as BindingRecord;
      const team = teams[2] as string;
      return [
        ["an identity", { uidp: {}, identity: sample.identityUid, visibleUnder: scopes }, (b) => b.identityUid === sample.identityUid],
        [
          "a role below the organization",
          { uidp: { descendantsOf: ORG }, role: OWNER, visibleUnder: scopes },
          (b) => b.roleUid === OWNER && b.uid.startsWith(`${ORG}/`),
        ],
        ["a group", { uidp: {}, group: team, visibleUnder: scopes }, (b) => b.groupUid === team],
        ["children of a team", { uidp: { childrenOf: team }, visibleUnder: scopes }, (b) => b.groupUid === team],
      ];
    };
    it("pages and counts each as the filter over every binding", async () => {
      for (const [, filter, matches] of narrow()) {
        for (const order of orders) {
          const want = uids(
            sortedBy(
              all.filter((b) => matches(b) && scopes.some((s) => isSelfOrDescendant(b.groupUid, s))),
              order,
              bindingSortValue,
            ),
          );
          for (const size of [1, 7, 50])
            expect(await pageThrough((w) => bindings().list(filter, w), order, size, bindingSortValue)).toEqual(want);
          expect(await bindings().count(filter)).toBe(want.length);
        }
      }
    });
  });

  describe("a remembered count", () => {
    const scopes = callers.dense;
    const filter: BindingFilter = { uidp: { descendantsOf: ORG }, visibleUnder: scopes };
    const countNow = () => expected(filter, [key("uid")], all).length;
    const inScope = teams[3] as string;
    const outOfScope = teams[55] as string;
    const make = async (groupUid: string) => {
      const b = bind(groupUid);
      await bindings().insert(b);
      all.push(b);
      return b;
    };
    const remove = async (b: BindingRecord) => {
      expect(await bindings().delete(b.uid)).toBe(true);
      all = all.filter((x) => x.uid !== b.uid);
    };

    beforeAll(async () => {
      expect(await bindings().count(filter)).toBe(countNow());
    });

    it("moves forward by the bindings made and removed since, and only those it sees", async () => {
      const inside = await make(inScope);
      expect(await bindings().count(filter)).toBe(countNow());
      await make(outOfScope);
      await make(otherTeams[0] as string);
      expect(await bindings().count(filter)).toBe(countNow());
      await remove(inside);
      expect(await bindings().count(filter)).toBe(countNow());
      // Made again with the uid it had.
      await bindings().insert(inside);
      all.push(inside);
      expect(await bindings().count(filter)).toBe(countNow());
    });

    it("moves forward by the log rather than counting again", async () => {
      expect(await bindings().count(filter)).toBe(countNow());
      // A binding written with its log entry taken out: a count moved forward cannot see it, a
      // count taken again would. The log is what the count follows.
      const hidden = bind(inScope);
      await execRaw(
        t,
        "insert into role_bindings (uid, group_uid, identity_uid, role_uid, create_time) " +
          `values ('${hidden.uid}', '${inScope}', '${hidden.identityUid}', '${hidden.roleUid}', ${hidden.createTime})`,
      );
      await execRaw(t, `delete from list_changes where row_uid = '${hidden.uid}'`);
      const seen = await make(inScope);
      expect(await bindings().count(filter)).toBe(countNow());
      all.push(hidden);
      // With the log's horizon past it, the count is taken again, and finds it.
      const putBack = await passHorizon(t);
      await make(outOfScope);
      expect(await bindings().count(filter)).toBe(countNow());
      await putBack();
      expect(await rawRows(t, `select scope_uid, delta from list_changes where row_uid = '${seen.uid}'`)).toEqual([
        { scope_uid: inScope, delta: 1 },
      ]);
    });

    it("follows a group's cascade", async () => {
      const doomed = childUid(inScope, 0x99);
      await t.store().groups.insert(group(doomed, "doomed"));
      for (let i = 0; i < 3; i++) await make(doomed);
      expect(await bindings().count(filter)).toBe(countNow());
      expect(await t.store().groups.delete(doomed)).toBe(true);
      all = all.filter((b) => parentOf(b.uid) !== doomed);
      expect(await bindings().count(filter)).toBe(countNow());
    });

    it("is not taken from a transaction that rolled back", async () => {
      const before = countNow();
      const rolledBack = new Error("rolled back on purpose");
      await expect(
        t.store().atomically(async (tx) => {
          await tx.bindings.insert(bind(inScope));
          expect(await tx.bindings.count(filter)).toBe(before + 1);
          throw rolledBack;
        }),
      ).rejects.toBe(rolledBack);
      // A later binding takes the place (on SQLite, the number) the rolled-back one had.
      await make(outOfScope);
      expect(await bindings().count(filter)).toBe(before);
      await make(inScope);
      expect(await bindings().count(filter)).toBe(countNow());
    });

    it("sees another replica's changes on the next count, and one committed after a count began", async () => {
      const replica = await createStore(t.options());
      try {
        expect(await bindings().count(filter)).toBe(countNow());
        const b = bind(inScope);
        await replica.bindings.insert(b);
        all.push(b);
        expect(await bindings().count(filter)).toBe(countNow());
        // A transaction open across a count that commits after it: the count must not have
        // taken it, and the next one must.
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        let wrote!: () => void;
        const written = new Promise<void>((resolve) => (wrote = resolve));
        const late = bind(inScope);
        const committing = replica.atomically(async (tx) => {
          await tx.bindings.insert(late);
          wrote();
          await held;
        });
        await written;
        if (t.engine === "postgres") {
          // A transaction that began later and commits first: the count's snapshot then lists the
          // open one as in progress below its horizon, which a count that only looked past the
          // horizon would miss for good. (SQLite writes one transaction at a time.)
          await make(inScope);
        }
        expect(await bindings().count(filter)).toBe(countNow());
        release();
        await committing;
        all.push(late);
        expect(await bindings().count(filter)).toBe(countNow());
        expect(await replica.bindings.count(filter)).toBe(countNow());
      } finally {
        await replica.close();
      }
    });

    it("stays exact across prunes of the log, which leave nothing below its horizon", async () => {
      expect(await bindings().count(filter)).toBe(countNow());
      await make(inScope);
      await t.store().pruneListChanges();
      await make(inScope);
      await t.store().pruneListChanges();
      await make(outOfScope);
      expect(await bindings().count(filter)).toBe(countNow());
      await make(inScope);
      expect(await bindings().count(filter)).toBe(countNow());
      const below =
        t.engine === "postgres" ? "xid < (select below from list_change_horizon)" : "position < (select below from list_change_horizon)";
      expect(await rawRows(t, `select count(*) as n from list_changes where ${below}`)).toEqual([{ n: t.engine === "postgres" ? "0" : 0 }]);
      if (t.engine === "sqlite") {
        // One writer, no other transactions: the second prune dropped everything before the first.
        expect(Number((await rawRows(t, "select count(*) as n from list_changes"))[0]?.n)).toBe(3);
      }
    });

    it("lists a page right when bindings made since the last count make the sparse caller's few many", async () => {
      // The sparse caller's bindings are read all at once through its scopes; MAX_READ_ROWS more
      // at one of them, written beside the store after its count, must not truncate the page.
      const sparse: BindingFilter = { uidp: { descendantsOf: ORG }, visibleUnder: callers.sparse };
      const order = [key("create_time", true), key("uid", true)];
      expect(await bindings().count(sparse)).toBe(expected(sparse, order, all).length);
      const at = callers.sparse[0] as string;
      const bulk = Array.from({ length: MAX_READ_ROWS + 10 }, (_, i) =>
        binding(childUid(at, 0x20000 + i), rootUid(0x90000 + i), VIEWER, T - 1),
      );
      await execRaw(
        t,
        "insert into role_bindings (uid, group_uid, identity_uid, role_uid, create_time) " +
          `values ${bulk.map((b) => `('${b.uid}', '${b.groupUid}', '${b.identityUid}', '${b.roleUid}', ${b.createTime})`).join(", ")}`,
      );
      all.push(...bulk);
      const want = expected(sparse, order, all);
      expect(uids(await bindings().list(sparse, window(order, { limit: 51 })))).toEqual(want.slice(0, 51));
      expect(await bindings().count(sparse)).toBe(want.length);
    });

    it("lists what it counts after all of that", async () => {
      for (const order of orders)
        expect(await pageThrough((w) => bindings().list(filter, w), order, 50, bindingSortValue)).toEqual(expected(filter, order, all));
    });
  });
});
