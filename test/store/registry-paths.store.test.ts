/**
 * Registry path bindings (migration 0011) on every engine: a path has one group and a group one
 * path, decided by the constraints however concurrent the claims; bindings outlive their group;
 * and the migration binds the paths of the repos an older store already holds.
 */
import { describe, expect, it } from "vitest";
import { Code, isApiError } from "../../src/domain/errors.js";
import { createStore } from "../../src/store/create-store.js";
import type { RegistryPath } from "../../src/store/registry-path-store.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { migrateUpTo } from "../support/older-store.js";
import { execRaw } from "../support/raw-sql.js";

/** The refusal bind gives, as [code, type, subject]. */
async function refusal(binding: Promise<void>): Promise<unknown[]> {
  const e: unknown = await binding.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!isApiError(e)) return ["no refusal", e];
  const v = e.details.preconditionViolations?.[0];
  return [e.code, v?.type, v?.subject, e.message];
}

describeEachEngine("registry path bindings", (t) => {
  const paths = () => t.store().registryPaths;
  const bind = (...list: RegistryPath[]) => t.store().atomically((tx) => tx.registryPaths.bind(list));

  it("binds each path to its group once, and finds them by path or by group", async () => {
    const [org, team] = [rootUid(0x10), childUid(rootUid(0x10), 1)];
    await bind({ path: "acme", groupUid: org }, { path: "acme/team", groupUid: team });
    await bind({ path: "acme", groupUid: org }, { path: "acme/team", groupUid: team });
    expect(await paths().lookup({ paths: ["acme/team"] })).toEqual([{ path: "acme/team", groupUid: team }]);
    expect(await paths().lookup({ groups: [org] })).toEqual([{ path: "acme", groupUid: org }]);
    const both = await paths().lookup({ paths: ["acme"], groups: [team] });
    expect(both.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: "acme", groupUid: org },
      { path: "acme/team", groupUid: team },
    ]);
    expect(await paths().lookup({})).toEqual([]);
  });

  it("refuses a path bound to another group, and a group bound to another path", async () => {
    const [org, other] = [rootUid(0x20), rootUid(0x21)];
    await bind({ path: "orgb", groupUid: org });
    const reserved = [Code.FAILED_PRECONDITION, "REGISTRY_PATH_RESERVED"];
    expect(await refusal(bind({ path: "orgb", groupUid: other }))).toEqual([
      ...reserved,
      "orgb",
      "Precondition failed: registry path orgb is reserved by another group",
    ]);
    expect(await refusal(bind({ path: "orgc", groupUid: org }))).toEqual([...reserved, "orgc", expect.any(String)]);
    // The transaction went back whole: nothing of the refused claim stays.
    expect(await refusal(bind({ path: "orgd", groupUid: other }, { path: "orgb", groupUid: other }))).toEqual([
      ...reserved,
      "orgb",
      expect.any(String),
    ]);
    expect(await paths().lookup({ groups: [other], paths: ["orgc", "orgd"] })).toEqual([]);
  });

  it("keeps a binding after its group is deleted: the path stays reserved", async () => {
    const org = rootUid(0x30);
    await t.store().groups.insert(group(org, "gone"));
    await bind({ path: "gone", groupUid: org });
    expect(await t.store().groups.delete(org)).toBe(true);
    expect(await paths().lookup({ paths: ["gone"] })).toEqual([{ path: "gone", groupUid: org }]);
    expect((await refusal(bind({ path: "gone", groupUid: rootUid(0x31) })))[1]).toBe("REGISTRY_PATH_RESERVED");
  });

  it("lets exactly one of two concurrent claims on a path win", async () => {
    for (let round = 0; round < 5; round++) {
      const path = `contested${round}`;
      const claimants = [rootUid(0x40 + 2 * round), rootUid(0x41 + 2 * round)];
      const results = await Promise.allSettled(
        claimants.map((groupUid) => bind({ path: "shared-org", groupUid: rootUid(0x3f) }, { path, groupUid })),
      );
      expect(results.map((r) => r.status).sort(), path).toEqual(["fulfilled", "rejected"]);
      const [held] = await paths().lookup({ paths: [path] });
      expect(claimants.indexOf(held?.groupUid ?? "")).toBe(results.findIndex((r) => r.status === "fulfilled"));
    }
  });
});

describeEachEngine("registry path bindings of repos made before them", (t) => {
  describe("migration 0011", () => {
    it("binds the path of every group holding repos and of the groups above it", async () => {
      // A store as an Arbor before 0011 left it, with groups and repos in it.
      const options = await t.freshLocation();
      await migrateUpTo(options, "0010_organization_members");
      const older = { ...t, options: () => options };
      const org = rootUid(0x50);
      const [team, idle, spaced] = [childUid(org, 1), childUid(org, 2), childUid(org, 3)];
      const [deep, under] = [childUid(team, 1), childUid(spaced, 1)];
      for (const [uid, name] of [
        [org, "acme"],
        [team, "team"],
        [idle, "idle"],
        [spaced, "with space"],
        [deep, "deep"],
        [under, "under"],
      ] as const) {
        const parent = uid === org ? "null" : `'${uid.slice(0, uid.lastIndexOf("/"))}'`;
        await execRaw(
          older,
          "insert into groups (uid, parent_uid, name, description, create_time, update_time) " +
            `values ('${uid}', ${parent}, '${name}', '', 1, 1)`,
        );
      }
      for (const [parent, n] of [
        [deep, 1],
        [deep, 2],
        [under, 1],
      ] as const) {
        await execRaw(
          older,
          "insert into repos (uid, parent_uid, name, description, create_time, update_time) " +
            `values ('${childUid(parent, n)}', '${parent}', 'r${n}', '', 1, 1)`,
        );
      }
      const reopened = await createStore(options);
      try {
        const bound = await reopened.registryPaths.lookup({ groups: [org, team, idle, spaced, deep, under] });
        expect(bound.sort((a, b) => a.path.localeCompare(b.path))).toEqual([
          { path: "acme", groupUid: org },
          { path: "acme/team", groupUid: team },
          { path: "acme/team/deep", groupUid: deep },
        ]);
      } finally {
        await reopened.close();
      }
    });
  });
});
