/**
 * Groups over gRPC with @grpc/grpc-js as the independent client, loading the .proto contract
 * itself (not Arbor's generated code), and decoding grpc-status-details-bin.
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
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { call, failure, loadProtos, statusOf } from "../support/grpc.js";

const pkg = loadProtos(["arbor/iam/v2beta1/groups.proto", "arbor/ping/v2beta1/ping.proto"]);

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`groups over gRPC (@grpc/grpc-js) [${engine.name}]`, () => {
    let t: TestServer;
    let token: string;
    let client: grpc.Client;
    let ping: grpc.Client;

    beforeAll(async () => {
      t = await startTestServer(engine);
      ({ token } = await t.organization("grpc-org"));
      const address = `127.0.0.1:${t.server.port}`;
      client = new pkg.arbor.iam.v2beta1.GroupsService(address, grpc.credentials.createInsecure());
      ping = new pkg.arbor.ping.v2beta1.PingService(address, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      client?.close();
      ping?.close();
      await t?.close();
    });

    it("takes a deadline further off than a timer can wait (about 24.8 days) as no deadline", async () => {
      // grpc-js sends a 30-day deadline as grpc-timeout in hours; a server that hands it to a
      // timer as milliseconds overflows it: Node warns and waits 1 ms, so any call slower than
      // that fails with DEADLINE_EXCEEDED. The server runs in this process: its warnings are ours.
      const warnings: Error[] = [];
      const onWarning = (w: Error) => warnings.push(w);
      process.on("warning", onWarning);
      for (const days of [30, 365 * 10]) {
        const deadline = new Date(Date.now() + days * 86_400_000);
        const res = await new Promise<any>((resolve, reject) =>
          (ping as any).ping({}, new grpc.Metadata(), { deadline }, (err: grpc.ServiceError | null, r: any) =>
            err ? reject(err) : resolve(r),
          ),
        );
        expect(res).toEqual({ response: "pong" });
      }
      const connect = await fetch(`${t.url}/arbor.ping.v2beta1.PingService/Ping`, {
        method: "POST",
        headers: { "content-type": "application/json", "connect-protocol-version": "1", "connect-timeout-ms": "9999999999" },
        body: "{}",
      });
      expect(connect.status).toBe(200);
      await new Promise((r) => setImmediate(r));
      process.off("warning", onWarning);
      expect(warnings.map((w) => w.name)).not.toContain("TimeoutOverflowWarning");
    });

    it("pings without credentials", async () => {
      expect(await call(ping, "ping", {})).toEqual({ response: "pong" });
    });

    it("creates, gets, lists in pages, updates and deletes", async () => {
      const org = await call(client, "createGroup", { parent: "", group: { name: "acme", description: "d" } }, token);
      expect(org.uid).toMatch(/^[0-9a-f]{40}$/);
      expect(org.verified).toBe(false);
      expect(Number(org.createTime.seconds)).toBeGreaterThan(0);
      const kids = [];
      for (const name of ["c", "a", "b"]) kids.push(await call(client, "createGroup", { parent: org.uid, group: { name } }, token));
      const got = await call(client, "getGroup", { uid: kids[0].uid }, token);
      expect(got.name).toBe("c");

      const page1 = await call(client, "listGroups", { uidp: { childrenOf: org.uid }, pageSize: 2 }, token);
      expect(page1.groups.map((g: { name: string }) => g.name)).toEqual(["a", "b"]);
      expect(page1.totalCount).toBe("3");
      const page2 = await call(client, "listGroups", { uidp: { childrenOf: org.uid }, pageSize: 2, pageToken: page1.nextPageToken }, token);
      expect(page2.groups.map((g: { name: string }) => g.name)).toEqual(["c"]);
      expect(page2.nextPageToken ?? "").toBe("");

      const updated = await call(
        client,
        "updateGroup",
        { group: { uid: kids[1].uid, name: "ignored", description: "new" }, updateMask: { paths: ["description"] } },
        token,
      );
      expect(updated).toMatchObject({ name: "a", description: "new" });
      const populated = await call(client, "updateGroup", { group: { uid: kids[1].uid, name: "aa" } }, token);
      expect(populated).toMatchObject({ name: "aa", description: "new" });

      expect(await call(client, "deleteGroup", { uid: kids[2].uid }, token)).toEqual({});
    });

    it("sends INVALID_ARGUMENT with ErrorInfo and BadRequest, and a readable message", async () => {
      const org = await call(client, "createGroup", { parent: "", group: { name: "errors-org" } }, token);
      const err = await failure(call(client, "createGroup", { parent: org.uid, group: { name: "Bad/Name" } }, token));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(err.details).toBe('Invalid argument: name: name must match "^[a-z0-9 ._-]{1,}$"');
      const status = statusOf(err);
      expect(status.code).toBe(3);
      expect(anyUnpack(status.details[0]!, ErrorInfoSchema)).toMatchObject({ reason: "INVALID_ARGUMENT", domain: "iam.localhost" });
      expect(anyUnpack(status.details[1]!, BadRequestSchema)?.fieldViolations[0]).toMatchObject({ field: "name" });
    });

    it("sends FAILED_PRECONDITION with RESOURCE_NOT_EMPTY", async () => {
      const org = await call(client, "createGroup", { parent: "", group: { name: "full-org" } }, token);
      await call(client, "createGroup", { parent: org.uid, group: { name: "child" } }, token);
      const err = await failure(call(client, "deleteGroup", { uid: org.uid }, token));
      expect(err.code).toBe(grpc.status.FAILED_PRECONDITION);
      expect(err.details).toBe("Precondition failed: cannot delete group with child groups");
      const violation = anyUnpack(statusOf(err).details[1]!, PreconditionFailureSchema)?.violations[0];
      expect(violation).toMatchObject({ type: "RESOURCE_NOT_EMPTY", description: "cannot delete group with child groups" });
    });

    it("sends NOT_FOUND with ResourceInfo, UNAUTHENTICATED and PERMISSION_DENIED", async () => {
      const { org } = await t.organization("not-found-org");
      const missing = `${org.uid}/0000000000000000`;
      const foreign = await failure(call(client, "getGroup", { uid: missing }, token));
      expect(foreign.code).toBe(grpc.status.PERMISSION_DENIED);
      const { token: own } = await t.organization("own-org");
      const ownOrg = (await call(client, "listGroups", { uidp: { inRoot: true }, name: "own-org" }, own)).groups[0];
      const gone = await failure(call(client, "getGroup", { uid: `${ownOrg.uid}/0000000000000000` }, own));
      expect(gone.code).toBe(grpc.status.NOT_FOUND);
      expect(anyUnpack(statusOf(gone).details[1]!, ResourceInfoSchema)).toMatchObject({ resourceType: "group" });
      const anonymous = await failure(call(client, "getGroup", { uid: ownOrg.uid }));
      expect(anonymous.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(anonymous.details).toMatch(/^Unauthenticated: /);
    });
  });
}
