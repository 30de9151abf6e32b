/**
 * The repo and tag stores on every engine: the constraints behind them (names unique in a group
 * or repo, a repo keeps its group, tags go with their repo), tombstones kept from the API, the
 * manifest-delete record, and every filter and order of the lists.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import { repoSortValue, tagSortValue, type RepoRecord } from "../../src/domain/repos.js";
import type { TagState } from "../../src/domain/tag-events.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { expectMatches, key, pageThrough, sortedBy, uids, window } from "../support/lists.js";

function repo(uid: string, name: string, createTime = 1_000, updateTime = createTime): RepoRecord {
  return { uid, parentUid: uid.slice(0, uid.lastIndexOf("/")), name, description: `the ${name} repo`, createTime, updateTime };
}

function tag(uid: string, name: string, digest: string, time = 1_000, more: Partial<TagState> = {}): TagState {
  const repoUid = uid.slice(0, uid.lastIndexOf("/"));
  return { uid, repoUid, name, digest, createTime: time, updateTime: time, eventTime: time, deleteTime: null, deleted: false, ...more };
}

const D1 = `sha256:${"1".repeat(64)}`;
const D2 = `sha256:${"2".repeat(64)}`;

describeEachEngine("repo and tag stores", (t) => {
  const repos = () => t.store().repos;
  const tags = () => t.store().tags;
  const org = rootUid(1);
  const team = childUid(org, 1);
  const other = childUid(org, 2);

  beforeAll(async () => {
    await t.store().groups.insert(group(org, "acme"));
    await t.store().groups.insert(group(team, "team"));
    await t.store().groups.insert(group(other, "other"));
  });

  describe("repos", () => {
    it("inserts, gets and finds a repo by group and name", async () => {
      const r = repo(childUid(team, 1), "nginx", 1_712_345_678_901);
      await repos().insert(r);
      expect(await repos().get(r.uid)).toEqual(r);
      expect(await repos().find(team, "nginx")).toEqual(r);
      expect(await repos().find(other, "nginx")).toBeUndefined();
      expect(await repos().get(childUid(team, 0x404))).toBeUndefined();
    });

    it.each([
      { name: "a name the group holds", uid: childUid(team, 2), parent: team, repoName: "nginx", want: { code: Code.ALREADY_EXISTS } },
      { name: "a name another group holds", uid: childUid(other, 2), parent: other, repoName: "nginx", want: undefined },
      {
        name: "a missing group",
        uid: childUid(childUid(org, 0xbad), 1),
        parent: childUid(org, 0xbad),
        repoName: "orphan",
        want: { code: Code.NOT_FOUND, details: { resource: { resourceType: "group", resourceName: childUid(org, 0xbad) } } },
      },
    ])("insert with $name", async ({ uid, repoName, want }) => {
      const inserting = repos().insert(repo(uid, repoName));
      if (want === undefined) await inserting;
      else await expect(inserting).rejects.toMatchObject(want);
    });

    it("updates the description and time; touch only moves the time forward", async () => {
      const uid = childUid(team, 1);
      expect(await repos().update(uid, { description: "web server" }, 5_000)).toMatchObject({
        description: "web server",
        updateTime: 5_000,
      });
      expect(await repos().touch(uid, 4_000)).toBe(true);
      expect((await repos().get(uid))?.updateTime).toBe(5_000);
      expect(await repos().touch(uid, 6_000)).toBe(true);
      expect((await repos().get(uid))?.updateTime).toBe(6_000);
      expect(await repos().touch(childUid(team, 0x404), 1)).toBe(false);
      expect(await repos().update(childUid(team, 0x404), { description: "x" }, 1)).toBeUndefined();
    });

    it("keeps a group holding repos from being deleted, naming the repos", async () => {
      await expect(t.store().groups.delete(other)).rejects.toMatchObject({
        code: Code.FAILED_PRECONDITION,
        message: "Precondition failed: cannot delete group with child repos",
        details: {
          preconditionViolations: [{ type: "RESOURCE_NOT_EMPTY", subject: other, description: "cannot delete group with child repos" }],
        },
      });
      expect(await repos().delete(childUid(other, 2))).toBe(true);
      expect(await repos().delete(childUid(other, 2))).toBe(false);
      expect(await t.store().groups.delete(other)).toBe(true);
    });
  });

  describe("tags", () => {
    const nginx = childUid(team, 1);
    const redis = childUid(team, 3);
    beforeAll(async () => {
      await repos().insert(repo(redis, "redis"));
    });

    it("inserts a tag and reads its whole state; a tombstone is hidden from get and lists", async () => {
      const latest = tag(childUid(nginx, 1), "latest", D1, 2_000);
      await tags().insert(latest);
      expect(await tags().state(nginx, "latest")).toEqual(latest);
      expect(await tags().get(latest.uid)).toEqual({
        uid: latest.uid,
        repoUid: nginx,
        name: "latest",
        digest: D1,
        createTime: 2_000,
        updateTime: 2_000,
      });
      await tags().replace({ ...latest, deleted: true, deleteTime: 3_000, updateTime: 3_000 });
      expect(await tags().get(latest.uid)).toBeUndefined();
      expect(await tags().state(nginx, "latest")).toEqual({ ...latest, deleted: true, deleteTime: 3_000, updateTime: 3_000 });
      await expectMatches(tags(), { uidp: { childrenOf: nginx } }, []);
      expect(await tags().pointingAt(nginx, D1)).toEqual([]);
      await tags().replace(latest);
      await expectMatches(tags(), { uidp: { childrenOf: nginx } }, [latest.uid]);
    });

    it.each([
      { name: "a name the repo holds", state: tag(childUid(nginx, 2), "latest", D2), want: { code: Code.ALREADY_EXISTS } },
      { name: "a missing repo", state: tag(childUid(childUid(team, 0x404), 1), "x", D2), want: { code: Code.NOT_FOUND } },
    ])("insert with $name", async ({ state, want }) => {
      await expect(tags().insert(state)).rejects.toMatchObject(want);
    });

    it("finds the live tags pointing at a digest", async () => {
      await tags().insert(tag(childUid(nginx, 3), "v1", D1));
      await tags().insert(tag(childUid(nginx, 4), "v2", D2));
      await tags().insert(tag(childUid(redis, 1), "v1", D1));
      expect(uids(await tags().pointingAt(nginx, D1)).sort()).toEqual([childUid(nginx, 1), childUid(nginx, 3)]);
    });

    it("records the latest delete of a manifest, never an earlier one", async () => {
      expect(await tags().manifestDeleted(nginx, D1)).toBeUndefined();
      await tags().recordManifestDelete(nginx, D1, 5_000);
      await tags().recordManifestDelete(nginx, D1, 4_000);
      expect(await tags().manifestDeleted(nginx, D1)).toBe(5_000);
      await tags().recordManifestDelete(nginx, D1, 6_000);
      expect(await tags().manifestDeleted(nginx, D1)).toBe(6_000);
      expect(await tags().manifestDeleted(redis, D1)).toBeUndefined();
    });

    it("goes with its repo, and so does the manifest-delete record", async () => {
      const gone = childUid(team, 9);
      await repos().insert(repo(gone, "gone"));
      await tags().insert(tag(childUid(gone, 1), "latest", D1));
      await tags().recordManifestDelete(gone, D2, 1);
      expect(await repos().delete(gone)).toBe(true);
      expect(await tags().state(gone, "latest")).toBeUndefined();
      expect(await tags().manifestDeleted(gone, D2)).toBeUndefined();
    });
  });

  describe("lists", () => {
    const org2 = rootUid(2);
    const g = [childUid(org2, 1), childUid(org2, 2), childUid(childUid(org2, 1), 1)];
    const all: RepoRecord[] = [];
    const allTags: TagState[] = [];
    beforeAll(async () => {
      await t.store().groups.insert(group(org2, "lists"));
      for (const uid of g) await t.store().groups.insert(group(uid, `g${uid.slice(-1)}`));
      let n = 0;
      for (const parent of g) {
        for (const name of ["alpha", "bravo", "charlie", "delta"]) {
          n++;
          const r = repo(childUid(parent, 0x10 + n), name, 1_000 + (n % 3), 2_000 + (n % 5));
          await repos().insert(r);
          all.push(r);
          for (const [i, tagName] of ["latest", "v1"].entries()) {
            const s = tag(childUid(r.uid, i + 1), tagName, i === 0 ? D1 : D2, 3_000 + ((n + i) % 4));
            await tags().insert(s);
            allTags.push(s);
          }
        }
      }
      // A tombstone in every repo, which no list may show.
      for (const r of all) await tags().insert(tag(childUid(r.uid, 9), "dead", D1, 1, { deleted: true }));
    });

    const under = (prefix: string, records: readonly { uid: string }[]) => uids(records.filter((r) => r.uid.startsWith(`${prefix}/`)));

    it("filters repos by hierarchy, name and visibility", async () => {
      await expectMatches(repos(), { uidp: { descendantsOf: org2 } }, uids(all));
      await expectMatches(repos(), { uidp: { childrenOf: g[0]! } }, uids(all.filter((r) => r.parentUid === g[0])));
      await expectMatches(repos(), { uidp: { descendantsOf: org2 }, name: "bravo" }, uids(all.filter((r) => r.name === "bravo")));
      await expectMatches(repos(), { uidp: {}, visibleUnder: [g[0]!] }, under(g[0]!, all));
      await expectMatches(repos(), { uidp: { descendantsOf: org2 }, visibleUnder: [] }, []);
      await expectMatches(repos(), { uidp: { ids: [all[0]!.uid, all[5]!.uid] } }, [all[0]!.uid, all[5]!.uid]);
    });

    it("filters tags by repo, name, digest and visibility, never showing tombstones", async () => {
      const first = all[0]!.uid;
      await expectMatches(tags(), { uidp: { childrenOf: first } }, under(first, allTags));
      await expectMatches(tags(), { uidp: { descendantsOf: org2 }, name: "v1" }, uids(allTags.filter((s) => s.name === "v1")));
      await expectMatches(tags(), { uidp: { descendantsOf: org2 }, digest: D1 }, uids(allTags.filter((s) => s.digest === D1)));
      await expectMatches(tags(), { uidp: { descendantsOf: org2 }, name: "dead" }, []);
      await expectMatches(tags(), { uidp: {}, visibleUnder: [g[1]!] }, under(g[1]!, allTags));
    });

    it.each([
      [key("name"), key("uid")],
      [key("name", true), key("uid", true)],
      [key("create_time"), key("uid")],
      [key("update_time", true), key("uid", true)],
      [key("name"), key("create_time", true), key("uid")],
    ])("pages repos and tags in every order: %j %j", async (...order) => {
      const repoFilter = { uidp: { descendantsOf: org2 } };
      const want = uids(sortedBy(all, order, repoSortValue));
      expect(uids(await repos().list(repoFilter, window(order)))).toEqual(want);
      expect(await pageThrough((w) => repos().list(repoFilter, w), order, 5, repoSortValue)).toEqual(want);
      const wantTags = uids(sortedBy(allTags, order, (r, f) => tagSortValue(r, f)));
      expect(
        await pageThrough(
          (w) => tags().list(repoFilter, w),
          order,
          7,
          (r, f) => tagSortValue(r, f),
        ),
      ).toEqual(wantTags);
    });
  });
});
