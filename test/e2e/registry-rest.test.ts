/**
 * Repos and tags over REST on every engine: the spec's repos list, every list parameter, Get,
 * visibility by role binding, the v1 surface with its capabilities, and the spec's error for
 * deleting a group that holds repos. Repos and tags come from the registry index, as the
 * registry's notifications would make them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { createRegistryIndex, type RegistryIndex } from "../../src/services/registry/registry-index.js";
import { engines } from "../support/engines.js";
import { detailOf, restClient, violatedField, type JsonResponse, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const D = (c: string) => `sha256:${c.repeat(64)}`;
const NAMES = ["alpine", "busybox", "caddy", "debian", "envoy", "fluentd", "golang", "haproxy", "istio", "jenkins", "kafka", "loki"];

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`registry over REST [${engine.name}]`, () => {
    let t: TestServer;
    let api: RestClient;
    let index: RegistryIndex;
    let adminToken: string;
    let org: string;
    let team: string;
    let ops: string;
    const repos: Record<string, string> = {};

    /** PUT, which only the v1 surface uses. */
    async function put(path: string, body: unknown, token = adminToken): Promise<JsonResponse> {
      const res = await t.fetch(path, {
        method: "PUT",
        token,
        body: JSON.stringify(body),
        headers: { "content-type": "application/json" },
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    }

    /** A token of a new identity in group holding the built-in role. */
    async function tokenAs(group: string, role: string, name: string): Promise<string> {
      const identity = await api.post(`/iam/v2beta1/identities/${group}`, {
        name,
        claimMatch: { issuer: "https://issuer.example", subject: name },
      });
      await api.post(`/iam/v2beta1/roleBindings/${group}`, { identityUid: identity.body.uid, roleUid: builtinRoleUid(role) });
      return (await t.server.tokens.issue(identity.body.uid, t.url)).token;
    }

    beforeAll(async () => {
      t = await startTestServer(engine);
      const o = await t.organization("acme");
      org = o.org.uid;
      adminToken = o.token;
      api = restClient(t, o.token);
      team = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "backend-team" })).body.uid;
      ops = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "ops" })).body.uid;
      index = createRegistryIndex(t.server.deps);
      // Eight repos in the team, four in the organization itself; each with tags.
      for (const [i, name] of NAMES.entries()) {
        const repository = i < 8 ? `acme/backend-team/${name}` : `acme/${name}`;
        await index.pushed({ repository, tag: "latest", digest: D("a"), time: Date.UTC(2026, 0, 1 + i) });
        await index.pushed({ repository, tag: `v${i}`, digest: D("b"), time: Date.UTC(2026, 1, 1 + i) });
        repos[name] = (await index.resolve(repository))?.repoUid ?? "";
      }
      await index.pushed({ repository: "acme/ops/tooling", tag: "latest", digest: D("c"), time: Date.UTC(2026, 2, 1) });
    });
    afterAll(() => t?.close());

    describe("v2beta1 repos", () => {
      it("answers the spec's query with the list envelope", async () => {
        const { status, body } = await api.get(`/registry/v2beta1/repos?uidp.descendants_of=${org}&page_size=3`);
        expect(status).toBe(200);
        expect(Object.keys(body).sort()).toEqual(["nextPageToken", "repos", "skipped", "totalCount"]);
        expect(body.totalCount).toBe("13");
        expect(body.skipped).toBe(0);
        expect(body.repos.map((r: { name: string }) => r.name)).toEqual(["alpine", "busybox", "caddy"]);
        const [alpine] = body.repos;
        expect(Object.keys(alpine).sort()).toEqual(["createTime", "description", "name", "uid", "updateTime"]);
        expect(alpine).toMatchObject({ uid: repos.alpine, name: "alpine", description: "", createTime: "2026-01-01T00:00:00.000Z" });
        expect(alpine.updateTime).toBe("2026-02-01T00:00:00.000Z");
        expect(alpine.uid).toMatch(new RegExp(`^${team}/[0-9a-f]{16}$`));
      });

      it("walks pages with nextPageToken in every order, with no repeats or gaps", async () => {
        const all = [...NAMES, "tooling"];
        for (const [order, want] of [
          ["name", [...all].sort()],
          ["name desc", [...all].sort().reverse()],
          ["create_time desc", ["tooling", ...[...NAMES].reverse()]],
          ["updated_at", [...NAMES, "tooling"]],
        ] as const) {
          const seen: string[] = [];
          let token = "";
          do {
            const q =
              `uidp.descendants_of=${org}&page_size=4&order_by=${encodeURIComponent(order)}` +
              `${token && `&page_token=${encodeURIComponent(token)}`}`;
            const { status, body } = await api.get(`/registry/v2beta1/repos?${q}`);
            expect(status).toBe(200);
            expect(body.totalCount).toBe("13");
            seen.push(...body.repos.map((r: { name: string }) => r.name));
            token = body.nextPageToken ?? "";
          } while (token !== "");
          expect(seen, order).toEqual(want);
        }
      });

      it("skips, filters by exact name, and by uidp children_of and ids", async () => {
        const skipped = (await api.get(`/registry/v2beta1/repos?uidp.descendants_of=${org}&page_size=5&skip=10`)).body;
        expect(skipped).toMatchObject({ skipped: 10, totalCount: "13" });
        expect(skipped.repos.map((r: { name: string }) => r.name)).toEqual(["kafka", "loki", "tooling"]);
        expect(skipped.nextPageToken).toBeUndefined();
        const named = (await api.get(`/registry/v2beta1/repos?uidp.descendants_of=${org}&name=envoy`)).body;
        expect(named.repos.map((r: { uid: string }) => r.uid)).toEqual([repos.envoy]);
        expect((await api.get(`/registry/v2beta1/repos?name=envo`)).body.totalCount).toBe("0");
        const inOrg = (await api.get(`/registry/v2beta1/repos?uidp.children_of=${org}`)).body;
        expect(inOrg.repos.map((r: { name: string }) => r.name)).toEqual(["istio", "jenkins", "kafka", "loki"]);
        const byIds = (await api.get(`/registry/v2beta1/repos?uidp.ids=${repos.caddy}&uidp.ids=${repos.loki}`)).body;
        expect(byIds.repos.map((r: { name: string }) => r.name)).toEqual(["caddy", "loki"]);
      });

      it.each([
        ["order_by=size", "order_by"],
        ["page_size=-1", "page_size"],
        ["skip=-2", "skip"],
        ["uidp.descendants_of=nope", "uidp.descendants_of"],
        ["page_token=forged", "page_token"],
      ])("refuses %s as INVALID_ARGUMENT naming the field", async (query, field) => {
        const { status, body } = await api.get(`/registry/v2beta1/repos?${query}`);
        expect(status).toBe(400);
        expect(body.code).toBe(3);
        expect(violatedField(body)).toBe(field);
        expect(detailOf(body, "google.rpc.ErrorInfo")).toMatchObject({ reason: "INVALID_ARGUMENT", domain: "registry.localhost" });
      });

      it("refuses a page token issued for other filters", async () => {
        const first = (await api.get(`/registry/v2beta1/repos?uidp.descendants_of=${org}&page_size=2`)).body;
        const { status, body } = await api.get(
          `/registry/v2beta1/repos?uidp.children_of=${org}&page_size=2&page_token=${first.nextPageToken}`,
        );
        expect(status).toBe(400);
        expect(violatedField(body)).toBe("page_token");
      });

      it("gets a repo by uid; a missing one is NOT_FOUND, a malformed uid INVALID_ARGUMENT", async () => {
        const { status, body } = await api.get(`/registry/v2beta1/repos/${repos.golang}`);
        expect(status).toBe(200);
        expect(body).toMatchObject({ uid: repos.golang, name: "golang", description: "" });
        expect(body.createTime).toMatch(TIME);
        const missing = await api.get(`/registry/v2beta1/repos/${team}/0000000000000000`);
        expect(missing.status).toBe(404);
        expect(missing.body.message).toBe(`Not found: repo ${team}/0000000000000000`);
        expect((await api.get(`/registry/v2beta1/repos/not-a-uid`)).status).toBe(400);
      });
    });

    describe("v2beta1 tags", () => {
      it("lists a repo's tags with uidp.children_of, in name order, with the envelope", async () => {
        const { status, body } = await api.get(`/registry/v2beta1/tags?uidp.children_of=${repos.caddy}`);
        expect(status).toBe(200);
        expect(Object.keys(body).sort()).toEqual(["skipped", "tags", "totalCount"]);
        expect(body.totalCount).toBe("2");
        expect(body.tags.map((x: { name: string }) => x.name)).toEqual(["latest", "v2"]);
        const [latest] = body.tags;
        expect(Object.keys(latest).sort()).toEqual(["createTime", "digest", "name", "uid", "updateTime"]);
        expect(latest).toMatchObject({ digest: D("a"), createTime: "2026-01-03T00:00:00.000Z", updateTime: "2026-01-03T00:00:00.000Z" });
        expect(latest.uid).toMatch(new RegExp(`^${repos.caddy}/[0-9a-f]{16}$`));
        expect((await api.get(`/registry/v2beta1/tags/${latest.uid}`)).body).toEqual(latest);
      });

      it("filters by name and digest, pages, skips and orders", async () => {
        const latest = (
          await api.get(`/registry/v2beta1/tags?uidp.descendants_of=${team}&name=latest&page_size=3&order_by=create_time%20desc`)
        ).body;
        expect(latest.totalCount).toBe("8");
        expect(latest.tags.map((x: { uid: string }) => x.uid.slice(0, x.uid.lastIndexOf("/")))).toEqual([
          repos.haproxy,
          repos.golang,
          repos.fluentd,
        ]);
        const next = (
          await api.get(
            `/registry/v2beta1/tags?uidp.descendants_of=${team}&name=latest&page_size=3&order_by=create_time%20desc` +
              `&page_token=${latest.nextPageToken}`,
          )
        ).body;
        expect(next.tags.map((x: { uid: string }) => x.uid.slice(0, x.uid.lastIndexOf("/")))).toEqual([
          repos.envoy,
          repos.debian,
          repos.caddy,
        ]);
        const byDigest = (await api.get(`/registry/v2beta1/tags?uidp.descendants_of=${org}&digest=${D("c")}`)).body;
        expect(byDigest.tags.map((x: { name: string }) => x.name)).toEqual(["latest"]);
        const skipped = (await api.get(`/registry/v2beta1/tags?uidp.descendants_of=${org}&skip=24`)).body;
        expect(skipped).toMatchObject({ totalCount: "25", skipped: 24 });
        expect(skipped.tags).toHaveLength(1);
      });

      it("forgets a deleted tag: gone from lists and Get", async () => {
        const { body } = await api.get(`/registry/v2beta1/tags?uidp.children_of=${repos.loki}&name=v11`);
        const uid = body.tags[0].uid;
        await index.deleted({ repository: "acme/loki", tag: "v11", time: Date.UTC(2026, 5, 1) });
        expect(
          (await api.get(`/registry/v2beta1/tags?uidp.children_of=${repos.loki}`)).body.tags.map((x: { name: string }) => x.name),
        ).toEqual(["latest"]);
        const gone = await api.get(`/registry/v2beta1/tags/${uid}`);
        expect(gone.status).toBe(404);
        expect(gone.body.message).toBe(`Not found: tag ${uid}`);
        expect((await api.get(`/registry/v2beta1/repos/${repos.loki}`)).body.updateTime).toBe("2026-06-01T00:00:00.000Z");
      });
    });

    describe("visibility", () => {
      it("shows a registry.pull holder of one group only that group's repos and tags", async () => {
        const pull = restClient(t, await tokenAs(ops, "registry.pull", "puller"));
        const listed = (await pull.get(`/registry/v2beta1/repos?uidp.descendants_of=${org}`)).body;
        expect(listed).toMatchObject({ totalCount: "1" });
        expect(listed.repos.map((r: { name: string }) => r.name)).toEqual(["tooling"]);
        expect((await pull.get(`/registry/v2beta1/tags?uidp.descendants_of=${org}`)).body.totalCount).toBe("1");
        expect((await pull.get(`/registry/v2beta1/repos/${repos.alpine}`)).status).toBe(403);
        expect((await pull.get(`/registry/v1/repos`)).body.items.map((r: { name: string }) => r.name)).toEqual(["tooling"]);
      });

      it("shows a stranger nothing", async () => {
        const stranger = restClient(t, await t.strangerToken());
        expect((await stranger.get(`/registry/v2beta1/repos`)).body).toEqual({ repos: [], totalCount: "0", skipped: 0 });
        expect((await stranger.get(`/registry/v2beta1/tags`)).body).toEqual({ tags: [], totalCount: "0", skipped: 0 });
        expect((await stranger.get(`/registry/v2beta1/repos/${repos.alpine}`)).status).toBe(403);
      });
    });

    describe("v1", () => {
      it("lists with items and id, filtered by uidp, name and id", async () => {
        const { status, body } = await api.get(`/registry/v1/repos?uidp.children_of=${org}&name=kafka`);
        expect(status).toBe(200);
        expect(body).toEqual({ items: [{ id: repos.kafka, name: "kafka", description: "" }] });
        expect((await api.get(`/registry/v1/repos?id=${repos.caddy}`)).body.items.map((r: { name: string }) => r.name)).toEqual(["caddy"]);
        expect((await api.get(`/registry/v1/repos?uidp.descendants_of=${org}`)).body.items).toHaveLength(13);
      });

      it("creates, replaces and deletes a repo", async () => {
        const created = await api.post(`/registry/v1/repos/${ops}`, { name: "my-app", description: "the app" });
        expect(created.status).toBe(200);
        expect(created.body).toEqual({
          id: expect.stringMatching(new RegExp(`^${ops}/[0-9a-f]{16}$`)),
          name: "my-app",
          description: "the app",
        });
        const id = created.body.id as string;
        expect((await api.get(`/registry/v2beta1/repos/${id}`)).body).toMatchObject({ name: "my-app", description: "the app" });
        expect((await index.resolve("acme/ops/my-app"))?.repoUid).toBe(id);

        const replaced = await put(`/registry/v1/repos/${id}`, { name: "my-app", description: "new words" });
        expect(replaced).toEqual({ status: 200, body: { id, name: "my-app", description: "new words" } });
        const cleared = await put(`/registry/v1/repos/${id}`, { name: "my-app" });
        expect(cleared.body.description).toBe("");

        const again = await api.post(`/registry/v1/repos/${ops}`, { name: "my-app", description: "updated by create" });
        expect(again.body).toEqual({ id, name: "my-app", description: "updated by create" });
        const prevented = await api.post(`/registry/v1/repos/${ops}?prevent_existing=true`, { name: "my-app" });
        expect(prevented.status).toBe(409);
        expect(prevented.body.code).toBe(6);

        const deleted = await api.del(`/registry/v1/repos/${id}`);
        expect(deleted).toEqual({ status: 200, body: {} });
        expect((await api.get(`/registry/v2beta1/repos/${id}`)).status).toBe(404);
        expect((await api.del(`/registry/v1/repos/${id}`)).status).toBe(404);
      });

      it("updates an existing repo on create only for a caller who may update it", async () => {
        // A group of its own, so the other tests' lists of ops stay as they are.
        const group = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "guarded-team" })).body.uid as string;
        const id = (await api.post(`/registry/v1/repos/${group}`, { name: "guarded", description: "as set" })).body.id as string;
        const holding = async (name: string, capabilities: string[]) => {
          const role = await api.post(`/iam/v2beta1/roles/${group}`, { name, capabilities });
          expect(role.status, JSON.stringify(role.body)).toBe(200);
          const identity = await api.post(`/iam/v2beta1/identities/${group}`, {
            name,
            claimMatch: { issuer: "https://issuer.example", subject: name },
          });
          await api.post(`/iam/v2beta1/roleBindings/${group}`, { identityUid: identity.body.uid, roleUid: role.body.uid });
          return restClient(t, (await t.server.tokens.issue(identity.body.uid, t.url)).token);
        };
        const creator = await holding("repo-creator", ["CAP_REPO_CREATE"]);
        const refused = await creator.post(`/registry/v1/repos/${group}`, { name: "guarded", description: "overwritten" });
        expect(refused.status, JSON.stringify(refused.body)).toBe(403);
        expect(refused.body.message).toContain("repo.update");
        expect((await api.get(`/registry/v2beta1/repos/${id}`)).body.description).toBe("as set");
        // A new name is still the creator's to make.
        expect((await creator.post(`/registry/v1/repos/${group}`, { name: "fresh" })).status).toBe(200);

        const updater = await holding("repo-updater", ["CAP_REPO_CREATE", "CAP_REPO_UPDATE"]);
        const updated = await updater.post(`/registry/v1/repos/${group}`, { name: "guarded", description: "updated" });
        expect(updated.body).toEqual({ id, name: "guarded", description: "updated" });
      });

      it("deletes a repo with its tags", async () => {
        await index.pushed({ repository: "acme/ops/short-lived", tag: "latest", digest: D("d"), time: 1 });
        const id = (await index.resolve("acme/ops/short-lived"))?.repoUid ?? "";
        const tagUid = (await api.get(`/registry/v2beta1/tags?uidp.children_of=${id}`)).body.tags[0].uid;
        expect((await api.del(`/registry/v1/repos/${id}`)).status).toBe(200);
        expect((await api.get(`/registry/v2beta1/tags/${tagUid}`)).status).toBe(404);
      });

      it.each([
        ["a name outside the Docker grammar", { name: "My_App" }, "name"],
        ["a name ending in a separator", { name: "app-" }, "name"],
        ["no name", { description: "x" }, "name"],
        ["a name too long", { name: "a".repeat(129) }, "name"],
        ["a description too long", { name: "ok", description: "x".repeat(513) }, "description"],
      ])("refuses %s", async (_, body, field) => {
        const res = await api.post(`/registry/v1/repos/${ops}`, body);
        expect(res.status).toBe(400);
        expect(violatedField(res.body)).toBe(field);
      });

      it("refuses a rename, and answers NOT_FOUND for a missing repo or group", async () => {
        const rename = await put(`/registry/v1/repos/${repos.alpine}`, { name: "alpine2" });
        expect(rename.status).toBe(400);
        expect(violatedField(rename.body)).toBe("name");
        expect((await put(`/registry/v1/repos/${team}/0000000000000000`, { name: "x" })).status).toBe(404);
        const orphan = await api.post(`/registry/v1/repos/${org}/0000000000000000`, { name: "x" });
        expect(orphan.status).toBe(404);
        expect(orphan.body.message).toBe(`Not found: group ${org}/0000000000000000`);
      });

      it("needs repo.create, repo.update and repo.delete: a viewer may only list", async () => {
        const viewerToken = await tokenAs(ops, "viewer", "v1-viewer");
        const viewer = restClient(t, viewerToken);
        expect((await viewer.get(`/registry/v1/repos?uidp.children_of=${ops}`)).body.items.map((r: { name: string }) => r.name)).toEqual([
          "tooling",
        ]);
        const tooling = (await index.resolve("acme/ops/tooling"))?.repoUid ?? "";
        for (const res of [
          await viewer.post(`/registry/v1/repos/${ops}`, { name: "nope" }),
          await put(`/registry/v1/repos/${tooling}`, { name: "tooling", description: "x" }, viewerToken),
          await viewer.del(`/registry/v1/repos/${tooling}`),
        ]) {
          expect(res.status).toBe(403);
          expect(res.body.code).toBe(7);
        }
      });
    });

    it("refuses to delete a group holding repos with the spec's precondition error, naming the identities in the way too", async () => {
      const { status, body } = await api.del(`/iam/v2beta1/groups/${ops}`);
      expect(status).toBe(400);
      // The group also holds identities the tests made there: each kind in the way is a violation of its own.
      expect(body).toEqual({
        code: 9,
        message: "Precondition failed: cannot delete group with child repos and child identities",
        details: [
          { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "FAILED_PRECONDITION", domain: "iam.localhost" },
          {
            "@type": "type.googleapis.com/google.rpc.PreconditionFailure",
            violations: [
              { type: "RESOURCE_NOT_EMPTY", subject: ops, description: "cannot delete group with child repos" },
              { type: "RESOURCE_NOT_EMPTY", subject: ops, description: "cannot delete group with child identities" },
            ],
          },
        ],
      });
      for (const r of (await api.get(`/registry/v1/repos?uidp.children_of=${ops}`)).body.items) await api.del(`/registry/v1/repos/${r.id}`);
      // With its repos gone, what is in the way is the identities the tests made there.
      expect((await api.del(`/iam/v2beta1/groups/${ops}`)).body.message).toBe(
        "Precondition failed: cannot delete group with child identities",
      );
    });
  });
}
