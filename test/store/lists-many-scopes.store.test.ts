/**
 * Repos, tags, identity providers, invites, roles and identities in groups for callers with many scopes
 * (src/store/list-changes.ts, ownUidLists), on every engine: pages read in their order and tested
 * in the server, and counts moved forward by the change log (migration 0018), answer what the
 * plain filter over every row answers, through rows made and removed in and out of the caller's
 * scopes, a tag deleted to a tombstone and pushed again, and a row written behind the log's back
 * (which a moved-forward count cannot see until the log's horizon passes it: the count follows
 * the log; it is not a recount).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Capability } from "../../src/domain/capabilities.js";
import { groupInviteSortValue } from "../../src/domain/group-invite-rules.js";
import { identityProviderSortValue } from "../../src/domain/identity-provider-rules.js";
import { identitySortValue } from "../../src/domain/identity-rules.js";
import type { OrderKey } from "../../src/domain/list.js";
import { Permissions } from "../../src/domain/permissions.js";
import { repoSortValue, tagSortValue } from "../../src/domain/repos.js";
import { roleSortValue } from "../../src/domain/role-rules.js";
import type { TagState } from "../../src/domain/tag-events.js";
import { isSelfOrDescendant } from "../../src/domain/uid.js";
import { FEW_SCOPES } from "../../src/store/hierarchy-filter.js";
import type { Store } from "../../src/store/store.js";
import type { RowWindow } from "../../src/store/row-window.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { key, pageThrough, sortedBy, uids, window } from "../support/lists.js";
import { passHorizon } from "../support/list-changes.js";
import { execRaw } from "../support/raw-sql.js";
import { identity, invite, provider, role } from "../support/records.js";

const T = 1_700_000_000_000;
const ORG = rootUid(0xe1);
const OTHER_ORG = rootUid(0xe2);
const DIGEST = `sha256:${"3".repeat(64)}`;
const teams = Array.from({ length: 40 }, (_, t) => childUid(ORG, 0x100 + ((t * 7) % 40)));
const otherTeams = Array.from({ length: 3 }, (_, i) => childUid(OTHER_ORG, 0x200 + i));
// Each group's repo, which holds the tags of that group.
const repoOf = (groupUid: string) => childUid(groupUid, 0x7e);

function tag(uid: string, time: number, deleted = false): TagState {
  return {
    uid,
    repoUid: uid.slice(0, uid.lastIndexOf("/")),
    name: `t-${uid.slice(-4)}`,
    digest: DIGEST,
    createTime: time,
    updateTime: time,
    eventTime: time,
    deleteTime: deleted ? time : null,
    deleted,
  };
}

type Filter = { uidp: { descendantsOf?: string }; visibleUnder: readonly string[] };

/** What the reference knows of a row: its uid, when it was made, and whether it is listed. */
interface Row {
  uid: string;
  createTime: number;
  live: boolean;
  /** Seen by every caller (a built-in role). */
  everyone?: boolean;
  /** Its name, for kinds that have one. */
  name?: string;
}

/** How the test makes, removes and lists one kind of row. */
interface Kind {
  name: string;
  make(store: Store, groupUid: string, n: number): Promise<Row>;
  remove(store: Store, row: Row): Promise<void>;
  list(store: Store, filter: Filter, window: RowWindow): Promise<{ uid: string }[]>;
  count(store: Store, filter: Filter): Promise<number>;
  sortValue: (record: { uid: string }, field: string) => string | number;
  /** An insert of a listed row in a group written beside the store, in SQL. */
  raw?(groupUid: string, n: number): { uid: string; statement: string };
}

const time = (n: number) => T + (n % 5);
const kinds: Kind[] = [
  {
    name: "repos",
    async make(store, groupUid, n) {
      const uid = childUid(groupUid, n);
      await store.repos.insert({ uid, parentUid: groupUid, name: `repo-${n}`, description: "", createTime: time(n), updateTime: time(n) });
      return { uid, createTime: time(n), live: true, name: `repo-${n}` };
    },
    async remove(store, row) {
      expect(await store.repos.delete(row.uid)).toBe(true);
    },
    list: (store, filter, w) => store.repos.list(filter, w),
    count: (store, filter) => store.repos.count(filter),
    sortValue: repoSortValue as Kind["sortValue"],
    raw(groupUid, n) {
      const uid = childUid(groupUid, n);
      return {
        uid,
        statement:
          "insert into repos (uid, parent_uid, name, description, create_time, update_time) " +
          `values ('${uid}', '${groupUid}', 'raw-${n}', '', ${T}, ${T})`,
      };
    },
  },
  {
    name: "tags",
    async make(store, groupUid, n) {
      const t = tag(childUid(repoOf(groupUid), n), time(n));
      await store.tags.insert(t);
      return { uid: t.uid, createTime: t.createTime, live: true, name: t.name };
    },
    async remove(store, row) {
      // A tag deleted stays as a tombstone, which no list shows.
      await store.tags.replace(tag(row.uid, row.createTime, true));
    },
    list: (store, filter, w) => store.tags.list(filter, w),
    count: (store, filter) => store.tags.count(filter),
    sortValue: tagSortValue as Kind["sortValue"],
    raw(groupUid, n) {
      const uid = childUid(repoOf(groupUid), n);
      return {
        uid,
        statement:
          "insert into tags (uid, repo_uid, name, digest, create_time, update_time, event_time, delete_time, deleted) " +
          `values ('${uid}', '${repoOf(groupUid)}', 'raw-${n}', '${DIGEST}', ${T}, ${T}, ${T}, null, 0)`,
      };
    },
  },
  {
    name: "identity providers",
    async make(store, groupUid, n) {
      const p = provider(childUid(groupUid, n), `idp-${n}`, undefined, { createTime: time(n) });
      await store.identityProviders.insert(p);
      return { uid: p.uid, createTime: p.createTime, live: true, name: p.name };
    },
    async remove(store, row) {
      expect(await store.identityProviders.delete(row.uid)).toBe(true);
    },
    list: (store, filter, w) => store.identityProviders.list(filter, w),
    count: (store, filter) => store.identityProviders.count(filter),
    sortValue: identityProviderSortValue as Kind["sortValue"],
  },
  {
    name: "invites",
    async make(store, groupUid, n) {
      const i = invite(childUid(groupUid, n), { createTime: time(n) });
      await store.groupInvites.insert(i);
      return { uid: i.uid, createTime: i.createTime, live: true };
    },
    async remove(store, row) {
      expect(await store.groupInvites.delete(row.uid)).toBe(true);
    },
    list: (store, filter, w) => store.groupInvites.list(filter, w),
    count: (store, filter) => store.groupInvites.count(filter),
    sortValue: groupInviteSortValue as Kind["sortValue"],
  },
  {
    name: "roles",
    async make(store, groupUid, n) {
      const r = role(childUid(groupUid, n), `role-${n}`, ["groups.list"], { createTime: time(n) });
      await store.roles.insert(r);
      return { uid: r.uid, createTime: r.createTime, live: true, name: r.name };
    },
    async remove(store, row) {
      expect(await store.roles.delete(row.uid)).toBe(true);
    },
    list: (store, filter, w) => store.roles.list(filter, w),
    count: (store, filter) => store.roles.count(filter),
    sortValue: roleSortValue as Kind["sortValue"],
  },
  {
    name: "identities",
    async make(store, groupUid, n) {
      const i = identity(childUid(groupUid, n), `id-${n}`, { createTime: time(n) });
      await store.identities.insert(i);
      return { uid: i.uid, createTime: i.createTime, live: true, name: i.name };
    },
    async remove(store, row) {
      expect(await store.identities.delete(row.uid)).toBe(true);
    },
    list: (store, filter, w) => store.identities.list(filter, w),
    count: (store, filter) => store.identities.count(filter),
    sortValue: identitySortValue as Kind["sortValue"],
  },
];

/** A caller's scopes as the server hands them to the store: from Permissions, frozen and sorted. */
function scopesOf(at: readonly string[]): readonly string[] {
  const caps = [Capability.CAP_REPO_LIST];
  return new Permissions(at.map((groupUid) => ({ groupUid, capabilities: new Set(caps) }))).scopes(caps);
}

const callers = {
  // 30 of 40 teams: pages read in their order and tested in the server.
  dense: scopesOf(teams.slice(0, 30)),
  // Teams, groups that do not exist, and another organization's team.
  mixed: scopesOf([...teams.slice(0, 20), childUid(ORG, 0xfff), otherTeams[1] as string]),
};

const orders: OrderKey[][] = [[key("create_time"), key("uid")], [key("uid", true)]];

function expected(filter: Filter, order: readonly OrderKey[], rows: readonly Row[]): string[] {
  const under = filter.uidp.descendantsOf;
  const seen = rows.filter(
    (r) =>
      r.live &&
      (under === undefined || r.uid.startsWith(`${under}/`)) &&
      (r.everyone === true || filter.visibleUnder.some((s) => isSelfOrDescendant(r.uid, s))),
  );
  return uids(sortedBy(seen, order, (r, field) => (field === "uid" ? r.uid : r.createTime)));
}

describeEachEngine("lists of rows visible where they lie, callers with many scopes", (t) => {
  const store = () => t.store();
  const rows = new Map<string, Row[]>(kinds.map((k) => [k.name, []]));

  beforeAll(async () => {
    for (const g of [
      group(ORG, "org"),
      group(OTHER_ORG, "other"),
      ...teams.map((u, i) => group(u, `team-${i}`)),
      ...otherTeams.map((u, i) => group(u, `o-${i}`)),
    ]) {
      await store().groups.insert(g);
    }
    for (const team of [...teams, ...otherTeams]) {
      await store().repos.insert({ uid: repoOf(team), parentUid: team, name: "holder", description: "", createTime: T, updateTime: T });
      rows.get("repos")?.push({ uid: repoOf(team), createTime: T, live: true, name: "holder" });
    }
    // The built-in roles, which every caller sees.
    for (const r of await store().roles.list({ uidp: { inRoot: true } }, window([key("uid")])))
      rows.get("roles")?.push({ uid: r.uid, createTime: r.createTime, live: true, everyone: true, name: r.name });
    expect(rows.get("roles")?.length).toBeGreaterThan(0);
    let n = 0x1000;
    for (const kind of kinds) {
      for (const team of [...teams, ...otherTeams]) {
        for (let i = 0; i < 3; i++) rows.get(kind.name)?.push(await kind.make(store(), team, n++));
      }
    }
  });

  it("gives each caller more scopes than FEW_SCOPES, so these reads are the ones tested", () => {
    for (const scopes of Object.values(callers)) expect(scopes.length).toBeGreaterThan(FEW_SCOPES);
  });

  describe.each(kinds.map((kind) => ({ kind, name: kind.name })))("$name", ({ kind }) => {
    const all = () => rows.get(kind.name) ?? [];

    it.each(Object.entries(callers).map(([name, scopes]) => ({ name, scopes })))(
      "pages and counts of the $name caller reproduce the filter over every row",
      async ({ scopes }) => {
        for (const filter of [
          { uidp: { descendantsOf: ORG }, visibleUnder: scopes },
          { uidp: {}, visibleUnder: scopes },
        ]) {
          for (const order of orders) {
            const want = expected(filter, order, all());
            for (const size of [1, 7, 50])
              expect(await pageThrough((w) => kind.list(store(), filter, w), order, size, kind.sortValue)).toEqual(want);
          }
          const want = expected(filter, orders[0] as OrderKey[], all()).length;
          expect(await kind.count(store(), filter)).toBe(want);
          expect(await kind.count(store(), filter)).toBe(want);
        }
      },
    );

    it("pages and counts narrow filters (children of a team, a name) as the filter over every row", async () => {
      const team = teams[3] as string;
      const parent = kind.name === "tags" ? repoOf(team) : team;
      // A name some row under the team has (invites have none: a parent filter only), and for
      // repos also the name every team's holder repo has.
      const names =
        kind.name === "invites"
          ? []
          : [all().find((r) => r.uid.startsWith(`${team}/`) && r.live)?.name ?? "", ...(kind.name === "repos" ? ["holder"] : [])];
      for (const scopes of Object.values(callers)) {
        const filters: [Record<string, unknown>, (r: Row) => boolean][] = [
          [{ uidp: { childrenOf: parent } }, (r) => r.uid.slice(0, r.uid.lastIndexOf("/")) === parent],
          ...names.map((name): [Record<string, unknown>, (r: Row) => boolean] => [
            { uidp: { descendantsOf: ORG }, name },
            (r) => r.uid.startsWith(`${ORG}/`) && r.name === name,
          ]),
        ];
        for (const [extra, matches] of filters) {
          const filter = { ...extra, visibleUnder: scopes } as Filter;
          const want = uids(
            sortedBy(
              all().filter((r) => r.live && matches(r) && (r.everyone === true || scopes.some((s) => isSelfOrDescendant(r.uid, s)))),
              [key("uid")],
              (r, f) => (f === "uid" ? r.uid : r.createTime),
            ),
          );
          expect(await pageThrough((w) => kind.list(store(), filter, w), [key("uid")], 7, kind.sortValue)).toEqual(want);
          expect(await kind.count(store(), filter)).toBe(want.length);
        }
      }
    });

    it("keeps a remembered count exact through rows made and removed in and out of scope", async () => {
      const filter = { uidp: { descendantsOf: ORG }, visibleUnder: callers.dense };
      const countNow = () => expected(filter, [key("uid")], all()).length;
      expect(await kind.count(store(), filter)).toBe(countNow());
      let n = 0x2000;
      const inside = await kind.make(store(), teams[2] as string, n++);
      all().push(inside);
      expect(await kind.count(store(), filter)).toBe(countNow());
      all().push(await kind.make(store(), teams[35] as string, n++), await kind.make(store(), otherTeams[0] as string, n++));
      expect(await kind.count(store(), filter)).toBe(countNow());
      await kind.remove(store(), inside);
      inside.live = false;
      expect(await kind.count(store(), filter)).toBe(countNow());
      expect(await pageThrough((w) => kind.list(store(), filter, w), [key("uid")], 50, kind.sortValue)).toEqual(
        expected(filter, [key("uid")], all()),
      );
    });
  });

  it("brings a tag back into its list when it is pushed again over its tombstone", async () => {
    const filter = { uidp: { descendantsOf: ORG }, visibleUnder: callers.dense };
    const tags = rows.get("tags") ?? [];
    const countNow = () => expected(filter, [key("uid")], tags).length;
    const gone = tags.find((r) => !r.live && isSelfOrDescendant(r.uid, teams[2] as string));
    expect(gone).toBeDefined();
    if (gone === undefined) return;
    expect(await store().tags.count(filter)).toBe(countNow());
    await store().tags.replace(tag(gone.uid, gone.createTime));
    gone.live = true;
    expect(await store().tags.count(filter)).toBe(countNow());
  });

  it.each(kinds.filter((k) => k.raw !== undefined).map((kind) => ({ kind, name: kind.name })))(
    "follows the log for $name: a row written without its log entry is found only once the horizon passes the count",
    async ({ kind }) => {
      const filter = { uidp: { descendantsOf: ORG }, visibleUnder: callers.dense };
      const all = rows.get(kind.name) ?? [];
      const countNow = () => expected(filter, [key("uid")], all).length;
      expect(await kind.count(store(), filter)).toBe(countNow());
      const hidden = kind.raw?.(teams[4] as string, 0x3000);
      if (hidden === undefined) throw new Error("only kinds with raw are tested here");
      await execRaw(t, hidden.statement);
      await execRaw(t, `delete from list_changes where row_uid = '${hidden.uid}'`);
      expect(await kind.count(store(), filter)).toBe(countNow());
      all.push({ uid: hidden.uid, createTime: T, live: true });
      // With the log's horizon past the count, it is taken again, and finds it.
      const putBack = await passHorizon(t);
      all.push(await kind.make(store(), teams[36] as string, 0x3001));
      expect(await kind.count(store(), filter)).toBe(countNow());
      await putBack();
    },
  );
});
