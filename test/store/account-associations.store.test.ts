/**
 * The account association store on every engine: one per group under the group's uid, providers
 * as JSON set, kept and removed, and hierarchy filters read through the group.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import type { ResourceFilter } from "../../src/domain/hierarchy.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { expectMatches } from "../support/lists.js";
import { association } from "../support/records.js";

const ORG = rootUid(1);
const TEAM = childUid(ORG, 1);
const SUB = childUid(TEAM, 1);
const LONE = childUid(ORG, 2);
const OTHER = rootUid(2);
const T1 = 1_800_000_000_000;

describeEachEngine("account association store", (t) => {
  const associations = () => t.store().accountAssociations;

  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [SUB, "sub"],
      [LONE, "lone"],
      [OTHER, "other"],
    ] as const) {
      await t.store().groups.insert(group(uid, name));
    }
  });

  describe("writes", () => {
    const full = {
      ...association(TEAM, "team accounts"),
      google: { projectId: "p", projectNumber: "42" },
      azure: { tenantId: "t", clientIds: { "https://a.example": "c1" } },
      github: { installations: [{ installationId: "9007199254740993", name: "acme" }] },
    };
    beforeAll(async () => {
      await associations().insert(full);
    });

    it("inserts and gets an association, providers and all, and none where there is none", async () => {
      expect(await associations().get(TEAM)).toEqual(full);
      expect(await associations().get(LONE)).toBeUndefined();
    });

    it.each([
      {
        name: "a second one for the group",
        a: association(TEAM, "again"),
        want: { code: Code.ALREADY_EXISTS, message: `Already exists: an account association for group ${TEAM}` },
      },
      {
        name: "one for a missing group",
        a: association(rootUid(0xbad), "orphan"),
        want: { code: Code.NOT_FOUND, details: { resource: { resourceType: "group", resourceName: rootUid(0xbad) } } },
      },
    ])("refuses $name", async ({ a, want }) => {
      await expect(associations().insert(a)).rejects.toMatchObject(want);
    });

    it("sets the providers given, removes those given as null, and keeps the rest", async () => {
      const updated = await associations().update(
        TEAM,
        { name: "renamed", amazon: null, google: { projectId: "q", projectNumber: "43" } },
        T1,
      );
      const { amazon: _removed, ...kept } = full;
      const want = { ...kept, name: "renamed", google: { projectId: "q", projectNumber: "43" }, updateTime: T1 };
      expect(updated).toEqual(want);
      expect(await associations().get(TEAM)).toEqual(want);
    });

    it("answers undefined and false for a group without one", async () => {
      expect(await associations().update(LONE, { name: "x" }, T1)).toBeUndefined();
      expect(await associations().delete(LONE)).toBe(false);
    });

    it("deletes one", async () => {
      await associations().insert(association(SUB, "sub accounts"));
      expect(await associations().delete(SUB)).toBe(true);
      expect(await associations().get(SUB)).toBeUndefined();
    });
  });
});

describeEachEngine("account association store lists", (t) => {
  const associations = () => t.store().accountAssociations;

  beforeAll(async () => {
    for (const [uid, name] of [
      [ORG, "org"],
      [TEAM, "team"],
      [SUB, "sub"],
      [LONE, "lone"],
      [OTHER, "other"],
    ] as const) {
      await t.store().groups.insert(group(uid, name));
    }
    // LONE has none.
    for (const [uid, name] of [
      [ORG, "aws"],
      [TEAM, "aws"],
      [SUB, "gcp"],
      [OTHER, "aws"],
    ] as const) {
      await associations().insert(association(uid, name));
    }
  });

  it.each<{ name: string; filter: ResourceFilter; want: string[] }>([
    { name: "everything", filter: { uidp: {} }, want: [ORG, TEAM, SUB, OTHER] },
    { name: "the root: organizations'", filter: { uidp: { inRoot: true } }, want: [ORG, OTHER] },
    { name: "children of an organization: its child groups'", filter: { uidp: { childrenOf: ORG } }, want: [TEAM] },
    { name: "children of a group", filter: { uidp: { childrenOf: TEAM } }, want: [SUB] },
    { name: "descendants of an organization", filter: { uidp: { descendantsOf: ORG } }, want: [TEAM, SUB] },
    { name: "ids", filter: { uidp: { ids: [SUB, LONE, OTHER] } }, want: [SUB, OTHER] },
    { name: "a name", filter: { uidp: {}, name: "aws" }, want: [ORG, TEAM, OTHER] },
    { name: "visibility of a group", filter: { uidp: {}, visibleUnder: [TEAM] }, want: [TEAM, SUB] },
    { name: "visibility of nothing", filter: { uidp: {}, visibleUnder: [] }, want: [] },
    { name: "the root, visible in an organization", filter: { uidp: { inRoot: true }, visibleUnder: [ORG] }, want: [ORG] },
  ])("by $name", async ({ filter, want }) => {
    await expectMatches(associations(), filter, want);
  });
});
