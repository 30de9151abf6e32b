/**
 * Identities over gRPC with @grpc/grpc-js as the independent client, loading the .proto contract
 * itself (not Arbor's generated code), and decoding grpc-status-details-bin.
 */
import * as grpc from "@grpc/grpc-js";
import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BadRequestSchema, ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../src/gen/google/rpc/status_pb.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { call, failure, loadProtos } from "../support/grpc.js";

const pkg = loadProtos(["arbor/iam/v2beta1/identities.proto"]);

const GITHUB = "https://token.actions.githubusercontent.com";
for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`identities over gRPC (@grpc/grpc-js) [${engine.name}]`, () => {
    let t: TestServer;
    let token: string;
    let org: string;
    let client: grpc.Client;

    beforeAll(async () => {
      t = await startTestServer(engine);
      const created = await t.organization("grpc-identities");
      ({ token } = created);
      org = created.org.uid;
      client = new pkg.arbor.iam.v2beta1.IdentitiesService(`127.0.0.1:${t.server.port}`, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      client?.close();
      await t?.close();
    });

    it("creates, gets, lists in pages and updates the populated members", async () => {
      const ci = await call(
        client,
        "createIdentity",
        {
          parent: org,
          identity: { name: "ci", claimMatch: { issuer: GITHUB, subjectPattern: "repo:acme/.*", claims: { repository_owner: "acme" } } },
        },
        token,
      );
      expect(ci.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
      expect(ci.relationship).toBe("claimMatch");
      expect(ci.claimMatch).toMatchObject({
        issuer: GITHUB,
        subjectPattern: "repo:acme/.*",
        iss: "issuer",
        sub: "subjectPattern",
        claims: { repository_owner: "acme" },
      });
      expect(ci.lastSeenTime).toBeNull();
      expect(Number(ci.createTime.seconds)).toBeGreaterThan(0);
      for (const name of ["b", "a"]) {
        await call(client, "createIdentity", { parent: org, identity: { name, claimMatch: { issuer: GITHUB, subject: name } } }, token);
      }

      const got = await call(client, "getIdentity", { uid: ci.uid }, token);
      expect(got).toEqual(ci);

      const page1 = await call(client, "listIdentities", { uidp: { childrenOf: org }, pageSize: 2 }, token);
      expect(page1.identities.map((i: { name: string }) => i.name)).toEqual(["a", "b"]);
      expect(page1.totalCount).toBe("3");
      const page2 = await call(client, "listIdentities", { uidp: { childrenOf: org }, pageSize: 2, pageToken: page1.nextPageToken }, token);
      expect(page2.identities.map((i: { name: string }) => i.name)).toEqual(["ci"]);

      // Without a mask, the populated members change and the others stay.
      const updated = await call(client, "updateIdentity", { identity: { uid: ci.uid, claimMatch: { subject: "repo:acme/app" } } }, token);
      expect(updated.claimMatch).toMatchObject({
        issuer: GITHUB,
        subject: "repo:acme/app",
        sub: "subject",
        claims: { repository_owner: "acme" },
      });
      expect(updated.name).toBe("ci");
    });

    it.each([
      [
        ".*",
        "claimMatch.subjectPattern",
        "must start with a literal of two parts each ended by ':' or '/' (like repo:acme/), " +
          "in every alternative, so it pins the subject's prefix",
      ],
      ["(?!x$).*", "claimMatch.subjectPattern", "is not a valid RE2 regular expression: invalid or unsupported Perl syntax: `(?!`"],
    ])(
      "sends INVALID_ARGUMENT with ErrorInfo and BadRequest naming the pattern field for %s",
      async (subjectPattern, field, description) => {
        const err = await failure(
          call(client, "createIdentity", { parent: org, identity: { name: "all", claimMatch: { issuer: GITHUB, subjectPattern } } }, token),
        );
        expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
        expect(err.details).toBe(`Invalid argument: ${field}: ${description}`);
        const status = fromBinary(StatusSchema, err.metadata.get("grpc-status-details-bin")[0] as Buffer);
        expect(status.code).toBe(3);
        expect(anyUnpack(status.details[0]!, ErrorInfoSchema)).toMatchObject({ reason: "INVALID_ARGUMENT", domain: "iam.localhost" });
        expect(anyUnpack(status.details[1]!, BadRequestSchema)?.fieldViolations[0]).toMatchObject({ field, description });
      },
    );
  });
}
