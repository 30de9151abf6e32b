import { describe, expect, it } from "vitest";
import { descendantCountPlan, MAX_COUNTED_SUBTREES } from "../../src/domain/group-counts.js";
import type { GroupFilter } from "../../src/domain/groups.js";

const org = "0123456789abcdef0123456789abcdef01234567";
const team = `${org}/0000000000000001`;
const sub = `${team}/0000000000000002`;
const other = `${org}/0000000000000003`;
const elsewhere = "fedcba9876543210fedcba9876543210fedcba98";
const below = (uid: string, more: Partial<GroupFilter> = {}): GroupFilter => ({ uidp: { descendantsOf: uid }, ...more });

describe("descendant count plan", () => {
  it.each<[string, GroupFilter, ReturnType<typeof descendantCountPlan>]>([
    ["everything visible", below(org), { sumBelow: [org], plusGroups: [] }],
    ["visible from the group itself", below(team, { visibleUnder: [team] }), { sumBelow: [team], plusGroups: [] }],
    ["visible from above", below(sub, { visibleUnder: [org] }), { sumBelow: [sub], plusGroups: [] }],
    [
      "visible only in subtrees below",
      below(org, { visibleUnder: [team, other, elsewhere] }),
      { sumBelow: [team, other], plusGroups: [team, other] },
    ],
    ["a subtree inside another counts once", below(org, { visibleUnder: [team, sub] }), { sumBelow: [team], plusGroups: [team] }],
    ["nothing visible", below(org, { visibleUnder: [] }), { sumBelow: [], plusGroups: [] }],
    ["nothing visible there", below(team, { visibleUnder: [other, elsewhere] }), { sumBelow: [], plusGroups: [] }],
    ["a name too: rows", below(org, { name: "team" }), undefined],
    ["children too: rows", { uidp: { descendantsOf: org, childrenOf: team } }, undefined],
    ["ids too: rows", { uidp: { descendantsOf: org, ids: [team] } }, undefined],
    ["in root: rows", { uidp: { descendantsOf: org, inRoot: true } }, undefined],
    ["no descendants_of: rows", { uidp: {} }, undefined],
  ])("%s", (_name, filter, want) => {
    expect(descendantCountPlan(filter)).toEqual(want);
  });

  it("adds up any number of subtrees (the store remembers the sum beyond MAX_COUNTED_SUBTREES)", () => {
    const tops = Array.from({ length: MAX_COUNTED_SUBTREES + 1 }, (_, i) => `${org}/${i.toString(16).padStart(16, "0")}`);
    expect(descendantCountPlan(below(org, { visibleUnder: tops }))).toEqual({ sumBelow: tops, plusGroups: tops });
  });
});
