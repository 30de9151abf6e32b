/**
 * The registry index on every engine, over the real store: resolving repository paths, creating
 * repos on first push, and tags that end in the same state whatever the order, the repetition
 * and the concurrency of the notifications.
 */
import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createChildGroup, createOrganization } from "../../src/services/iam/groups-store-ops.js";
import type { ServiceDeps } from "../../src/services/deps.js";
import { createRegistryIndex, type DeleteEvent, type PushEvent, type RegistryIndex } from "../../src/services/registry/registry-index.js";
import { describeEachEngine } from "../support/engines.js";
import { rawRows } from "../support/raw-sql.js";

const ids = { hex: (bytes: number) => randomBytes(bytes).toString("hex") };
const digest = (c: string) => `sha256:${c.repeat(64)}`;
const [A, B, C] = [digest("a"), digest("b"), digest("c")];

describeEachEngine("registry index", (t) => {
  let index: RegistryIndex;
  let deps: Pick<ServiceDeps, "store" | "ids" | "clock">;
  let org: string;
  let team: string;
  let nested: string;

  beforeAll(async () => {
    deps = { store: t.store(), ids, clock: { now: () => 1_000 } };
    index = createRegistryIndex(deps);
    org = (await createOrganization(deps as ServiceDeps, { name: "acme", description: "" }, () => "f".repeat(40))).uid;
    team = (await createChildGroup(deps as ServiceDeps, org, { name: "backend-team", description: "" })).uid;
    nested = (await createChildGroup(deps as ServiceDeps, team, { name: "db", description: "" })).uid;
    await createChildGroup(deps as ServiceDeps, org, { name: "with space", description: "" });
  });

  /** The live tags of a repository path, as name → digest. */
  async function liveTags(path: string): Promise<Record<string, string>> {
    const repoUid = (await index.resolve(path))?.repoUid;
    if (repoUid === undefined) return {};
    const tags = await t.store().tags.list(
      { uidp: { childrenOf: repoUid } },
      {
        order: [
          { field: "name", desc: false },
          { field: "uid", desc: false },
        ],
        offset: 0,
        limit: 100,
      },
    );
    return Object.fromEntries(tags.map((tag) => [tag.name, tag.digest]));
  }

  describe("resolve", () => {
    it.each([
      ["acme/nginx", () => ({ groupUid: org, repoName: "nginx", unbound: [{ path: "acme", groupUid: org }] })],
      [
        "acme/backend-team/nginx",
        () => ({
          groupUid: team,
          repoName: "nginx",
          unbound: [
            { path: "acme", groupUid: org },
            { path: "acme/backend-team", groupUid: team },
          ],
        }),
      ],
      [
        "acme/backend-team/db/postgres",
        () => ({
          groupUid: nested,
          repoName: "postgres",
          unbound: [
            { path: "acme", groupUid: org },
            { path: "acme/backend-team", groupUid: team },
            { path: "acme/backend-team/db", groupUid: nested },
          ],
        }),
      ],
    ])("walks %s from the organization down, naming the group paths a claim would bind", async (path, want) => {
      expect(await index.resolve(path)).toEqual({ ...want(), orgUid: org });
    });

    it.each([
      ["one segment", "acme"],
      ["an unknown organization", "nobody/nginx"],
      ["an unknown group", "acme/frontend/nginx"],
      ["a repo name outside the Docker grammar", "acme/Nginx"],
      ["a repo name ending in a separator", "acme/nginx-"],
      ["a repo name too long", `acme/${"a".repeat(129)}`],
      ["a group name no registry client can send", "acme/with space/nginx"],
      ["an empty segment", "acme//nginx"],
      ["a trailing slash", "acme/backend-team/"],
    ])("is null for %s", async (_, path) => {
      expect(await index.resolve(path)).toBeNull();
    });

    it("names the repo once it exists", async () => {
      await index.pushed({ repository: "acme/backend-team/known", digest: A, time: 10 });
      const at = await index.resolve("acme/backend-team/known");
      expect(at?.repoUid).toMatch(new RegExp(`^${team}/[0-9a-f]{16}$`));
      expect(await t.store().repos.get(at?.repoUid ?? "")).toMatchObject({
        name: "known",
        parentUid: team,
        description: "",
        createTime: 10,
      });
    });
  });

  describe("pushes and deletes", () => {
    it("creates the repo and its tag on first push, keeps create time and moves update time", async () => {
      await index.pushed({ repository: "acme/app", tag: "latest", digest: A, time: 100 });
      const repoUid = (await index.resolve("acme/app"))?.repoUid ?? "";
      const [tag] = await t
        .store()
        .tags.list({ uidp: { childrenOf: repoUid } }, { order: [{ field: "uid", desc: false }], offset: 0, limit: 10 });
      expect(tag).toMatchObject({ name: "latest", digest: A, createTime: 100, updateTime: 100 });
      expect(tag?.uid).toMatch(new RegExp(`^${repoUid}/[0-9a-f]{16}$`));
      await index.pushed({ repository: "acme/app", tag: "latest", digest: B, time: 200 });
      expect(await t.store().tags.get(tag?.uid ?? "")).toMatchObject({ digest: B, createTime: 100, updateTime: 200 });
      expect(await t.store().repos.get(repoUid)).toMatchObject({ createTime: 100, updateTime: 200 });
    });

    it("ignores a duplicate delivery", async () => {
      const push: PushEvent = { repository: "acme/dup", tag: "v1", digest: A, time: 100 };
      await index.pushed(push);
      const before = await rawRows(t, "select * from tags order by uid");
      await index.pushed(push);
      await index.pushed({ ...push });
      expect(await rawRows(t, "select * from tags order by uid")).toEqual(before);
      expect(await liveTags("acme/dup")).toEqual({ v1: A });
    });

    it("keeps the later push when an earlier one arrives after it", async () => {
      await index.pushed({ repository: "acme/order", tag: "latest", digest: B, time: 200 });
      await index.pushed({ repository: "acme/order", tag: "latest", digest: A, time: 100 });
      expect(await liveTags("acme/order")).toEqual({ latest: B });
    });

    it("keeps a deleted tag deleted against a late older push, and brings it back with a newer one", async () => {
      await index.pushed({ repository: "acme/late", tag: "latest", digest: A, time: 100 });
      await index.deleted({ repository: "acme/late", tag: "latest", time: 300 });
      expect(await liveTags("acme/late")).toEqual({});
      await index.pushed({ repository: "acme/late", tag: "latest", digest: B, time: 200 });
      expect(await liveTags("acme/late")).toEqual({});
      await index.pushed({ repository: "acme/late", tag: "latest", digest: C, time: 400 });
      expect(await liveTags("acme/late")).toEqual({ latest: C });
      const repoUid = (await index.resolve("acme/late"))?.repoUid ?? "";
      const [tag] = await t
        .store()
        .tags.list({ uidp: { childrenOf: repoUid } }, { order: [{ field: "uid", desc: false }], offset: 0, limit: 10 });
      expect(tag).toMatchObject({ createTime: 400, updateTime: 400 });
    });

    it("deletes by digest every tag pointing at the manifest that is not newer than the delete", async () => {
      const repository = "acme/backend-team/bydigest";
      await index.pushed({ repository, tag: "v1", digest: A, time: 100 });
      await index.pushed({ repository, tag: "stable", digest: A, time: 110 });
      await index.pushed({ repository, tag: "v2", digest: B, time: 120 });
      await index.pushed({ repository, tag: "next", digest: A, time: 500 });
      await index.deleted({ repository, digest: A, time: 300 });
      expect(await liveTags(repository)).toEqual({ v2: B, next: A });
    });

    it("does not bring back a tag whose manifest delete arrived before its push", async () => {
      const repository = "acme/early-delete";
      await index.pushed({ repository, tag: "keep", digest: B, time: 50 });
      await index.deleted({ repository, digest: A, time: 300 });
      await index.pushed({ repository, tag: "v1", digest: A, time: 100 });
      expect(await liveTags(repository)).toEqual({ keep: B });
      await index.pushed({ repository, tag: "v1", digest: A, time: 400 });
      expect(await liveTags(repository)).toEqual({ keep: B, v1: A });
    });

    it("does not bring back a tag whose delete arrived before its push", async () => {
      const repository = "acme/early-tag-delete";
      await index.pushed({ repository, digest: A, time: 10 });
      await index.deleted({ repository, tag: "v1", time: 300 });
      await index.pushed({ repository, tag: "v1", digest: A, time: 100 });
      expect(await liveTags(repository)).toEqual({});
    });

    it("makes the repo on a push by digest, with no tag", async () => {
      await index.pushed({ repository: "acme/digest-only", digest: A, time: 10 });
      expect((await index.resolve("acme/digest-only"))?.repoUid).toBeDefined();
      expect(await liveTags("acme/digest-only")).toEqual({});
    });

    it("ignores events for paths that do not resolve, and malformed tags and digests", async () => {
      const count = async () => (await rawRows(t, "select count(*) as n from repos"))[0]?.n;
      const before = await count();
      await index.pushed({ repository: "acme/nowhere/nginx", tag: "latest", digest: A, time: 1 });
      await index.pushed({ repository: "nobody/nginx", tag: "latest", digest: A, time: 1 });
      await index.pushed({ repository: "acme/bad-tag", tag: "-bad", digest: A, time: 1 });
      await index.pushed({ repository: "acme/bad-digest", tag: "latest", digest: "nope", time: 1 });
      await index.deleted({ repository: "acme/nowhere/nginx", digest: A, time: 1 });
      await index.deleted({ repository: "acme/never-pushed", tag: "latest", time: 1 });
      expect(await count()).toEqual(before);
    });

    it("ends with exactly one repo and one tag after concurrent first pushes", async () => {
      const pushes = Array.from({ length: 8 }, (_, i) =>
        index.pushed({ repository: "acme/backend-team/race", tag: "latest", digest: i % 2 ? B : A, time: 1_000 + (i % 3) }),
      );
      await Promise.all(pushes);
      const rows = await rawRows(t, `select uid from repos where parent_uid = '${team}' and name = 'race'`);
      expect(rows).toHaveLength(1);
      // Time 1002 was pushed by i = 2 (A) and i = 5 (B): the greater digest wins the tie.
      expect(await liveTags("acme/backend-team/race")).toEqual({ latest: B });
    });

    it("creates the repo anew when it was deleted through v1 meanwhile", async () => {
      await index.pushed({ repository: "acme/recreated", tag: "latest", digest: A, time: 10 });
      const first = (await index.resolve("acme/recreated"))?.repoUid ?? "";
      await t.store().repos.delete(first);
      await index.pushed({ repository: "acme/recreated", tag: "latest", digest: A, time: 20 });
      const second = (await index.resolve("acme/recreated"))?.repoUid;
      expect(second).toBeDefined();
      expect(second).not.toBe(first);
      expect(await liveTags("acme/recreated")).toEqual({ latest: A });
    });
  });

  describe("any delivery order", () => {
    type Ev = { kind: "push"; tag: string; digest: string; time: number } | { kind: "delete"; tag?: string; digest?: string; time: number };
    const event = fc.oneof(
      fc.record({
        kind: fc.constant("push" as const),
        tag: fc.constantFrom("a", "b"),
        digest: fc.constantFrom(A, B, C),
        time: fc.integer({ min: 1, max: 6 }),
      }),
      fc.record({ kind: fc.constant("delete" as const), tag: fc.constantFrom("a", "b"), time: fc.integer({ min: 1, max: 6 }) }),
      fc.record({ kind: fc.constant("delete" as const), digest: fc.constantFrom(A, B, C), time: fc.integer({ min: 1, max: 6 }) }),
    );
    let run = 0;

    async function deliver(repository: string, events: readonly Ev[]): Promise<Record<string, string>> {
      for (const e of events) {
        if (e.kind === "push") await index.pushed({ repository, tag: e.tag, digest: e.digest, time: e.time });
        else
          await index.deleted({
            repository,
            time: e.time,
            ...(e.tag !== undefined ? { tag: e.tag } : { digest: e.digest as string }),
          } as DeleteEvent);
      }
      return liveTags(repository);
    }

    it("ends in the state of delivery in time order, whatever the order and the repeats", async () => {
      await fc.assert(
        fc.asyncProperty(
          fc
            .array(event, { minLength: 1, maxLength: 6 })
            .chain((events) =>
              fc.tuple(fc.constant(events), fc.shuffledSubarray([...events, ...events], { minLength: events.length * 2 })),
            ),
          async ([events, shuffled]) => {
            run++;
            // Every repo begins with a push, as a registry's repository does.
            const first: Ev = { kind: "push", tag: "base", digest: C, time: 0 };
            const inOrder = [first, ...[...events].sort((x, y) => x.time - y.time)];
            const want = await deliver(`acme/ordered-${run}`, inOrder);
            const got = await deliver(`acme/shuffled-${run}`, [first, ...shuffled]);
            expect(got).toEqual(want);
          },
        ),
        { numRuns: t.engine === "sqlite" ? 100 : 40 },
      );
    }, 120_000);
  });

  describe("bound paths", () => {
    it("resolves a bound path to its group whatever the names say now, and never to a newcomer", async () => {
      const orgb = (await createOrganization(deps as ServiceDeps, { name: "orgb", description: "" }, () => "e".repeat(40))).uid;
      const bteam = (await createChildGroup(deps as ServiceDeps, orgb, { name: "bteam", description: "" })).uid;
      await index.pushed({ repository: "orgb/bteam/app", tag: "v1", digest: A, time: 10 });
      // A rename that raced the first push, and a newcomer around the checks: the attack.
      await t.store().groups.update(orgb, { name: "orgb-renamed" }, 20);
      const intruder = "d".repeat(40);
      await t.store().groups.insert({ uid: intruder, parentUid: null, name: "orgb", description: "", createTime: 20, updateTime: 20 });
      await t.store().groups.insert({
        uid: `${intruder}/${"0".repeat(16)}`,
        parentUid: intruder,
        name: "bteam",
        description: "",
        createTime: 20,
        updateTime: 20,
      });
      expect(await index.resolve("orgb/bteam/app")).toMatchObject({
        groupUid: bteam,
        orgUid: orgb,
        repoUid: expect.any(String),
        unbound: [],
      });
      expect(await index.resolve("orgb/bteam/fresh")).toMatchObject({ groupUid: bteam, unbound: [] });
      // Below a bound prefix, and the owner's new names: bound elsewhere, so nobody's.
      expect(await index.resolve("orgb/app")).toMatchObject({ groupUid: orgb });
      expect(await index.resolve("orgb-renamed/bteam/app")).toBeNull();
      expect(await index.resolve("orgb-renamed/app")).toBeNull();
    });

    it("resolves the path of a deleted group to nothing, and skips its late events", async () => {
      const gone = (await createChildGroup(deps as ServiceDeps, org, { name: "gone", description: "" })).uid;
      await index.pushed({ repository: "acme/gone/app", tag: "v1", digest: A, time: 10 });
      const repoUid = (await index.resolve("acme/gone/app"))?.repoUid as string;
      expect(await t.store().repos.delete(repoUid)).toBe(true);
      expect(await t.store().groups.delete(gone)).toBe(true);
      await t
        .store()
        .groups.insert({ uid: `${org}/${"0".repeat(16)}`, parentUid: org, name: "gone", description: "", createTime: 20, updateTime: 20 });
      expect(await index.resolve("acme/gone/app")).toBeNull();
      await index.pushed({ repository: "acme/gone/app", tag: "v2", digest: B, time: 30 });
      expect(await t.store().repos.find(`${org}/${"0".repeat(16)}`, "app")).toBeUndefined();
    });
  });
});
