/**
 * Repos and tags over gRPC with @grpc/grpc-js as the independent client, loading the .proto
 * contract itself: every list parameter, Get, the v1 surface, and errors with their details.
 */
import * as grpc from "@grpc/grpc-js";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  ResourceInfoSchema,
} from "../../src/gen/google/rpc/error_details_pb.js";
import { createRegistryIndex } from "../../src/services/registry/registry-index.js";
import { engines } from "../support/engines.js";
import { call, failure, loadProtos, statusOf } from "../support/grpc.js";
import { startTestServer, type TestServer } from "../support/server.js";

const pkg = loadProtos([
  "arbor/registry/v2beta1/repos.proto",
  "arbor/registry/v2beta1/tags.proto",
  "arbor/registry/v1/registry.proto",
  "arbor/iam/v2beta1/groups.proto",
]);
const D = (c: string) => `sha256:${c.repeat(64)}`;
for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`registry over gRPC (@grpc/grpc-js) [${engine.name}]`, () => {
    let t: TestServer;
    let token: string;
    let org: string;
    let repos: grpc.Client;
    let tags: grpc.Client;
    let v1: grpc.Client;
    let groups: grpc.Client;
    const uid: Record<string, string> = {};

    beforeAll(async () => {
      t = await startTestServer(engine);
      const o = await t.organization("grpc-registry");
      token = o.token;
      org = o.org.uid;
      const address = `127.0.0.1:${t.server.port}`;
      const credentials = grpc.credentials.createInsecure();
      repos = new pkg.arbor.registry.v2beta1.ReposService(address, credentials);
      tags = new pkg.arbor.registry.v2beta1.TagsService(address, credentials);
      v1 = new pkg.arbor.registry.v1.RegistryService(address, credentials);
      groups = new pkg.arbor.iam.v2beta1.GroupsService(address, credentials);
      const index = createRegistryIndex(t.server.deps);
      for (const [i, name] of ["nginx", "redis", "postgres", "memcached", "mysql"].entries()) {
        await index.pushed({ repository: `grpc-registry/${name}`, tag: "latest", digest: D(String(i)), time: 1_000 + i });
        await index.pushed({ repository: `grpc-registry/${name}`, tag: "stable", digest: D("f"), time: 2_000 + i });
        uid[name] = (await index.resolve(`grpc-registry/${name}`))?.repoUid ?? "";
      }
    });
    afterAll(async () => {
      for (const c of [repos, tags, v1, groups]) c?.close();
      await t?.close();
    });

    it("lists repos in pages with totalCount as a string, ordered, skipped and filtered", async () => {
      const page1 = await call(repos, "listRepos", { uidp: { descendantsOf: org }, pageSize: 2 }, token);
      expect(page1.repos.map((r: { name: string }) => r.name)).toEqual(["memcached", "mysql"]);
      expect(page1).toMatchObject({ totalCount: "5", skipped: 0 });
      const page2 = await call(repos, "listRepos", { uidp: { descendantsOf: org }, pageSize: 2, pageToken: page1.nextPageToken }, token);
      expect(page2.repos.map((r: { name: string }) => r.name)).toEqual(["nginx", "postgres"]);
      const desc = await call(repos, "listRepos", { uidp: { childrenOf: org }, orderBy: "create_time desc", skip: 1, pageSize: 2 }, token);
      expect(desc).toMatchObject({ skipped: 1, totalCount: "5" });
      expect(desc.repos.map((r: { name: string }) => r.name)).toEqual(["memcached", "postgres"]);
      const named = await call(repos, "listRepos", { name: "redis", uidp: { ids: [uid.redis, uid.nginx] } }, token);
      expect(named.repos.map((r: { uid: string }) => r.uid)).toEqual([uid.redis]);
    });

    it("gets a repo and a tag", async () => {
      const repo = await call(repos, "getRepo", { uid: uid.nginx }, token);
      expect(repo).toMatchObject({ uid: uid.nginx, name: "nginx", description: "" });
      expect(repo.createTime).toEqual({ seconds: "1", nanos: 0 });
      expect(repo.updateTime).toEqual({ seconds: "2", nanos: 0 });
      const listed = await call(tags, "listTags", { uidp: { childrenOf: uid.nginx }, orderBy: "name desc" }, token);
      expect(listed.tags.map((x: { name: string }) => x.name)).toEqual(["stable", "latest"]);
      expect(await call(tags, "getTag", { uid: listed.tags[0].uid }, token)).toEqual(listed.tags[0]);
      const byDigest = await call(tags, "listTags", { uidp: { descendantsOf: org }, digest: D("f"), name: "stable", pageSize: 10 }, token);
      expect(byDigest.totalCount).toBe("5");
    });

    it("serves the v1 list, create, update and delete", async () => {
      const created = await call(v1, "createRepo", { parentId: org, repo: { name: "extra", description: "d" } }, token);
      expect(created).toEqual({ id: expect.stringMatching(new RegExp(`^${org}/[0-9a-f]{16}$`)), name: "extra", description: "d" });
      expect(await call(v1, "updateRepo", { repo: { id: created.id, name: "extra", description: "e" } }, token)).toMatchObject({
        description: "e",
      });
      const listed = await call(v1, "listRepos", { uidp: { childrenOf: org }, name: "extra" }, token);
      expect(listed).toEqual({ items: [{ id: created.id, name: "extra", description: "e" }] });
      expect(await call(v1, "deleteRepo", { id: created.id }, token)).toEqual({});
      const gone = await failure(call(repos, "getRepo", { uid: created.id }, token));
      expect(gone.code).toBe(grpc.status.NOT_FOUND);
      expect(anyUnpack(statusOf(gone).details[1]!, ResourceInfoSchema)).toMatchObject({ resourceType: "repo", resourceName: created.id });
    });

    it("sends INVALID_ARGUMENT for a bad repo name with the registry's error domain", async () => {
      const err = await failure(call(v1, "createRepo", { parentId: org, repo: { name: "Bad" } }, token));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(err.details).toBe('Invalid argument: name: name must match "^[a-z0-9]+(?:(?:[._]|__|[-]*)[a-z0-9]+)*$"');
      const status = statusOf(err);
      expect(anyUnpack(status.details[0]!, ErrorInfoSchema)).toMatchObject({ reason: "INVALID_ARGUMENT", domain: "registry.localhost" });
      expect(anyUnpack(status.details[1]!, BadRequestSchema)?.fieldViolations[0]).toMatchObject({ field: "name" });
    });

    it("sends FAILED_PRECONDITION for deleting a group with child repos", async () => {
      const err = await failure(call(groups, "deleteGroup", { uid: org }, token));
      expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(err.details).toBe("Precondition failed: cannot delete group with child repos");
      expect(anyUnpack(statusOf(err).details[1]!, PreconditionFailureSchema)?.violations[0]).toMatchObject({
        type: "RESOURCE_NOT_EMPTY",
        description: "cannot delete group with child repos",
      });
    });

    it("denies a stranger Get and shows them empty lists", async () => {
      const stranger = await t.strangerToken();
      expect((await failure(call(repos, "getRepo", { uid: uid.nginx }, stranger))).code).toBe(grpc.status.PERMISSION_DENIED);
      expect((await failure(call(tags, "getTag", { uid: `${uid.nginx}/0000000000000000` }, stranger))).code).toBe(
        grpc.status.PERMISSION_DENIED,
      );
      expect(await call(repos, "listRepos", {}, stranger)).toMatchObject({ repos: [], totalCount: "0" });
      expect((await failure(call(repos, "listRepos", {}))).code).toBe(grpc.status.UNAUTHENTICATED);
    });
  });
}
