/**
 * Advisories over gRPC with @grpc/grpc-js as the independent client, loading the .proto contract
 * itself: list with filters and pages, get, and the errors with their status details.
 */
import * as grpc from "@grpc/grpc-js";
import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { ErrorInfoSchema, ResourceInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../src/gen/google/rpc/status_pb.js";
import { engines } from "../support/engines.js";
import { FEED_IDS, importPaths, OSV } from "../support/osv.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { call, failure, loadProtos } from "../support/grpc.js";

const pkg = loadProtos(["arbor/vulnerabilities/v2beta1/advisories.proto"], { enums: String });

/** When the feed is imported. */
const IMPORTED = Date.UTC(2026, 2, 27, 13, 55, 0, 423);

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`advisories over gRPC (@grpc/grpc-js) [${engine.name}]`, () => {
    let t: TestServer;
    let viewer: string;
    let client: grpc.Client;

    beforeAll(async () => {
      t = await startTestServer(engine);
      const { org, token } = await t.organization("grpc-advisories");
      const post = async (path: string, body: unknown) =>
        ((await (await t.fetch(path, { method: "POST", token, body: JSON.stringify(body) })).json()) as { uid: string }).uid;
      const identity = await post(`/iam/v2beta1/identities/${org.uid}`, {
        name: "viewer",
        claimMatch: { issuer: "https://issuer.example", subject: "v" },
      });
      await post(`/iam/v2beta1/roleBindings/${org.uid}`, { identityUid: identity, roleUid: builtinRoleUid("viewer") });
      viewer = (await t.server.tokens.issue(identity, t.url)).token;
      await importPaths(t.server.store, [OSV.feed], undefined, { now: () => IMPORTED });
      client = new pkg.arbor.vulnerabilities.v2beta1.AdvisoriesService(`127.0.0.1:${t.server.port}`, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      client?.close();
      await t?.close();
    });

    it("lists with filters and pages", async () => {
      const page1 = await call(client, "listAdvisories", { pageSize: 2, ecosystem: "PyPI" }, viewer);
      expect(page1.advisories.map((a: { uid: string }) => a.uid)).toEqual(["GHSA-8qvm-5x2c-j2w7", "GHSA-h5c8-rqwp-cp95"]);
      expect(page1.totalCount).toBe("3");
      const page2 = await call(client, "listAdvisories", { pageSize: 2, ecosystem: "PyPI", pageToken: page1.nextPageToken }, viewer);
      expect(page2.advisories.map((a: { uid: string }) => a.uid)).toEqual(["PYSEC-2021-108"]);
      expect(page2.nextPageToken ?? "").toBe("");
      const all = await call(client, "listAdvisories", { pageSize: 200 }, viewer);
      expect(all.advisories.map((a: { uid: string }) => a.uid)).toEqual(FEED_IDS);
    });

    it("filters by aliases, ids and modified_since as messages carry them", async () => {
      const byAlias = await call(client, "listAdvisories", { aliases: ["CVE-2022-27664"] }, viewer);
      expect(byAlias.advisories.map((a: { uid: string }) => a.uid)).toEqual(["GO-2022-0969"]);
      const since = await call(
        client,
        "listAdvisories",
        { advisoryIds: ["GO-2022-0969", "DLA-3530-1"], modifiedSince: { seconds: 1_700_000_000 } },
        viewer,
      );
      expect(since.advisories.map((a: { uid: string }) => a.uid)).toEqual(["GO-2022-0969"]);
    });

    it("gets an advisory, with enums and oneof events as the contract defines them", async () => {
      const go = await call(client, "getAdvisory", { uid: "GO-2022-0969" }, viewer);
      expect(go).toMatchObject({ uid: "GO-2022-0969", advisoryId: "GO-2022-0969", aliases: ["CVE-2022-27664", "GHSA-69cg-p879-7622"] });
      expect(go.affected[0]).toMatchObject({ ecosystem: "Go", name: "stdlib" });
      expect(go.affected[0].ranges[0]).toMatchObject({ type: "TYPE_SEMVER" });
      expect(go.affected[0].ranges[0].events.map((e: { event: string }) => e.event)).toEqual([
        "introduced",
        "fixed",
        "introduced",
        "fixed",
      ]);
      expect(go.affected[0].ranges[0].events[1].fixed).toBe("1.18.6");
      expect(go.references[1]).toEqual({ type: "TYPE_REPORT", url: "https://go.dev/issue/54658" });
      expect(go.modifiedTime).toEqual({ seconds: String(Date.UTC(2024, 4, 20, 16, 3, 47) / 1000), nanos: 0 });
      expect(go.createTime).toEqual({ seconds: String(Math.floor(IMPORTED / 1000)), nanos: 423_000_000 });
      const suse = await call(client, "getAdvisory", { uid: "SUSE-SU-2024:0001-1" }, viewer);
      expect(suse.summary).toBe("Security update for openssl-3");
    });

    it("sends NOT_FOUND with ResourceInfo, PERMISSION_DENIED and UNAUTHENTICATED in the vulnerabilities domain", async () => {
      const missing = await failure(call(client, "getAdvisory", { uid: "GHSA-0000-0000-0000" }, viewer));
      expect(missing.code).toBe(grpc.status.NOT_FOUND);
      expect(missing.details).toBe("Not found: advisory GHSA-0000-0000-0000");
      const status = fromBinary(StatusSchema, missing.metadata.get("grpc-status-details-bin")[0] as Buffer);
      expect(anyUnpack(status.details[0]!, ErrorInfoSchema)).toMatchObject({ reason: "NOT_FOUND", domain: "vulnerabilities.localhost" });
      expect(anyUnpack(status.details[1]!, ResourceInfoSchema)).toMatchObject({
        resourceType: "advisory",
        resourceName: "GHSA-0000-0000-0000",
      });

      const denied = await failure(call(client, "listAdvisories", {}, await t.strangerToken()));
      expect(denied.code).toBe(grpc.status.PERMISSION_DENIED);
      expect(denied.details).toBe("Permission denied: the caller lacks advisories.list on any group");
      const anonymous = await failure(call(client, "getAdvisory", { uid: "GO-2022-0969" }));
      expect(anonymous.code).toBe(grpc.status.UNAUTHENTICATED);
    });
  });
}
