/**
 * The group store's reads on every engine: each filter and their combinations, every order,
 * keyset windows, offset and count, over one fixed tree.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { groupSortValue, type GroupFilter, type GroupRecord } from "../../src/domain/groups.js";
import type { OrderKey } from "../../src/domain/list.js";
import { FEW_SCOPES } from "../../src/store/hierarchy-filter.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { key, pageThrough as pageWindows, sortedBy, uids, window } from "../support/lists.js";

// The tree. Names repeat across parents and differ only in punctuation, which a locale collation
// would order differently from bytes; times tie often, so the uid must break the ties; uid order
// differs from name order.
const T = 1_700_000_000_000;
const ACME = rootUid(0x30);
const ZETA = rootUid(0x10);
const DOT = rootUid(0x20);
const DASH = rootUid(0x40);
const TEAM = childUid(ACME, 0x9);
const ALPHA = childUid(TEAM, 0x5);
const BETA = childUid(TEAM, 0x2);
const DEEP = childUid(BETA, 0x7);
/** Scopes where no group is, at depths 1 to 4, enough to pass FEW_SCOPES: they widen nothing. */
const MISSING = [
  ...Array.from({ length: FEW_SCOPES }, (_, i) => rootUid(0x80 + i)),
  childUid(rootUid(0x98), 1),
  childUid(DOT, 0x77),
  childUid(childUid(TEAM, 0x66), 1),
  childUid(DEEP, 0x55),
];
const fixture: Record<string, GroupRecord> = {
  acme: group(ACME, "acme", { createTime: T, updateTime: T + 50 }),
  zeta: group(ZETA, "zeta", { createTime: T, updateTime: T + 10 }),
  dot: group(DOT, "acme.io", { createTime: T + 1, updateTime: T + 10 }),
  dash: group(DASH, "acme-io", { createTime: T + 1, updateTime: T + 30 }),
  space: group(rootUid(0x50), "acme io", { createTime: T + 2, updateTime: T + 2 }),
  team: group(TEAM, "team", { createTime: T + 3, updateTime: T + 40 }),
  team2Space: group(childUid(ACME, 0x1), "team 2", { createTime: T + 3, updateTime: T + 3 }),
  team2Dash: group(childUid(ACME, 0x4), "team-2", { createTime: T + 3, updateTime: T + 40 }),
  team2Under: group(childUid(ACME, 0x2), "team_2", { createTime: T + 4, updateTime: T + 4 }),
  team2: group(childUid(ACME, 0x3), "team2", { createTime: T + 4, updateTime: T + 40 }),
  alpha: group(ALPHA, "alpha", { createTime: T + 5, updateTime: T + 5 }),
  beta: group(BETA, "beta", { createTime: T + 5, updateTime: T + 5 }),
  deepAlpha: group(DEEP, "alpha", { createTime: T + 5, updateTime: T + 60 }),
  zetaTeam: group(childUid(ZETA, 0x1), "team", { createTime: T + 6, updateTime: T + 6 }),
  zetaAlpha: group(childUid(ZETA, 0x2), "alpha", { createTime: T + 6, updateTime: T + 6 }),
};
const all = Object.values(fixture);
const acmeBelow = ["team", "team2Space", "team2Dash", "team2Under", "team2", "alpha", "beta", "deepAlpha"];

const filterCases: { name: string; filter: GroupFilter; want: string[] }[] = [
  { name: "no filter", filter: { uidp: {} }, want: Object.keys(fixture) },
  { name: "descendants of an organization", filter: { uidp: { descendantsOf: ACME } }, want: acmeBelow },
  { name: "descendants of a group", filter: { uidp: { descendantsOf: TEAM } }, want: ["alpha", "beta", "deepAlpha"] },
  { name: "descendants of a leaf", filter: { uidp: { descendantsOf: DEEP } }, want: [] },
  {
    name: "children of an organization",
    filter: { uidp: { childrenOf: ACME } },
    want: ["team", "team2Space", "team2Dash", "team2Under", "team2"],
  },
  { name: "children of a group", filter: { uidp: { childrenOf: BETA } }, want: ["deepAlpha"] },
  { name: "the root", filter: { uidp: { inRoot: true } }, want: ["acme", "zeta", "dot", "dash", "space"] },
  { name: "ids", filter: { uidp: { ids: [ALPHA, ZETA, rootUid(0xfff)] } }, want: ["alpha", "zeta"] },
  { name: "no ids", filter: { uidp: { ids: [] } }, want: [] },
  { name: "a name", filter: { uidp: {}, name: "alpha" }, want: ["alpha", "deepAlpha", "zetaAlpha"] },
  { name: "a name no group has", filter: { uidp: {}, name: "alph" }, want: [] },
  {
    name: "visibility under one group",
    filter: { uidp: {}, visibleUnder: [TEAM] },
    want: ["team", "alpha", "beta", "deepAlpha"],
  },
  {
    name: "visibility under two subtrees",
    filter: { uidp: {}, visibleUnder: [BETA, ZETA] },
    want: ["beta", "deepAlpha", "zeta", "zetaTeam", "zetaAlpha"],
  },
  {
    // More scopes than FEW_SCOPES: tested by membership rather than ranges, with the same answer.
    name: "visibility under many subtrees at several depths",
    filter: { uidp: {}, visibleUnder: [ALPHA, BETA, DOT, childUid(ACME, 0x4), ZETA, ...MISSING] },
    want: ["dot", "team2Dash", "alpha", "beta", "deepAlpha", "zeta", "zetaTeam", "zetaAlpha"],
  },
  { name: "visibility under nothing", filter: { uidp: {}, visibleUnder: [] }, want: [] },
  { name: "descendants and a name", filter: { uidp: { descendantsOf: ACME }, name: "alpha" }, want: ["alpha", "deepAlpha"] },
  { name: "descendants and children", filter: { uidp: { descendantsOf: ACME, childrenOf: TEAM } }, want: ["alpha", "beta"] },
  { name: "the root and descendants", filter: { uidp: { inRoot: true, descendantsOf: ACME } }, want: [] },
  { name: "the root and a name", filter: { uidp: { inRoot: true }, name: "acme" }, want: ["acme"] },
  { name: "children and visibility", filter: { uidp: { childrenOf: ACME }, visibleUnder: [TEAM, ZETA] }, want: ["team"] },
  {
    name: "ids and visibility",
    filter: { uidp: { ids: [ALPHA, ACME, DEEP, ZETA] }, visibleUnder: [TEAM] },
    want: ["alpha", "deepAlpha"],
  },
  {
    name: "everything at once",
    filter: { uidp: { descendantsOf: ACME, ids: [DEEP, ALPHA] }, name: "alpha", visibleUnder: [BETA] },
    want: ["deepAlpha"],
  },
];

const orders: OrderKey[][] = [
  [key("name"), key("uid")],
  [key("name", true), key("uid", true)],
  [key("uid")],
  [key("uid", true)],
  [key("create_time"), key("uid")],
  [key("create_time", true), key("uid", true)],
  [key("update_time"), key("uid")],
  [key("update_time", true), key("uid", true)],
  [key("create_time", true), key("name"), key("uid")],
  [key("name"), key("create_time", true), key("uid", true)],
  [key("update_time"), key("name", true), key("uid")],
];
const orderName = (order: OrderKey[]) => order.map((k) => `${k.field}${k.desc ? " desc" : ""}`).join(", ");

const sorted = (groups: GroupRecord[], order: readonly OrderKey[]) => sortedBy(groups, order, groupSortValue);

describeEachEngine("group store lists", (t) => {
  const groups = () => t.store().groups;

  beforeAll(async () => {
    // Parents first: the foreign key wants them.
    for (const g of sorted(all, [key("uid")])) await groups().insert(g);
  });

  describe("filters", () => {
    it.each(filterCases)("by $name", async ({ filter, want }) => {
      const order = [key("name"), key("uid")];
      const expected = sorted(
        want.map((k) => fixture[k] as GroupRecord),
        order,
      );
      expect(uids(await groups().list(filter, window(order)))).toEqual(uids(expected));
      expect(await groups().count(filter)).toBe(want.length);
    });
  });

  describe.each(orders.map((order) => ({ order, name: orderName(order) })))("ordered by $name", ({ order }) => {
    const expected = uids(sorted(all, order));

    it("returns every group in order, ties broken by uid", async () => {
      expect(uids(await groups().list({ uidp: {} }, window(order)))).toEqual(expected);
    });

    it.each([1, 2, 4])("pages of %i by keyset reproduce it, without repeats or gaps", async (size) => {
      expect(await pageThrough({ uidp: {} }, order, size)).toEqual(expected);
    });

    it("pages a filtered list the same way", async () => {
      const filter: GroupFilter = { uidp: { descendantsOf: ACME } };
      const want = uids(
        sorted(
          acmeBelow.map((k) => fixture[k] as GroupRecord),
          order,
        ),
      );
      expect(await pageThrough(filter, order, 3)).toEqual(want);
    });

    it("skips offset rows, from the start or after a key", async () => {
      const fromStart = await groups().list({ uidp: {} }, window(order, { offset: 3, limit: 4 }));
      expect(uids(fromStart)).toEqual(expected.slice(3, 7));
      const second = all.find((g) => g.uid === expected[1]) as GroupRecord;
      const afterKey = order.map((k) => groupSortValue(second, k.field));
      const afterTwo = await groups().list({ uidp: {} }, window(order, { after: afterKey, offset: 2, limit: 3 }));
      expect(uids(afterTwo)).toEqual(expected.slice(4, 7));
      expect(await groups().list({ uidp: {} }, window(order, { offset: all.length }))).toEqual([]);
    });
  });

  /** Lists page by page, each page starting after the last row of the one before. */
  function pageThrough(filter: GroupFilter, order: OrderKey[], size: number): Promise<string[]> {
    return pageWindows((w) => groups().list(filter, w), order, size, groupSortValue);
  }
});
