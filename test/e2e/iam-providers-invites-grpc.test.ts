/**
 * Identity providers, account associations and group invites over gRPC with @grpc/grpc-js as the
 * independent client, loading the .proto contract itself: create, get and list of each, and an
 * error of each with its details decoded from grpc-status-details-bin.
 */
import * as grpc from "@grpc/grpc-js";
import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { BadRequestSchema, ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../src/gen/google/rpc/status_pb.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { call, failure, loadProtos } from "../support/grpc.js";

const protos = ["identity_providers", "account_associations", "group_invites", "groups"].map((p) => `arbor/iam/v2beta1/${p}.proto`);
const pkg = loadProtos(protos, { enums: String });
const VIEWER = builtinRoleUid("viewer");

/** The code, the ErrorInfo reason and the first BadRequest field of a failed call. */
function detailsOf(err: grpc.ServiceError) {
  const status = fromBinary(StatusSchema, err.metadata.get("grpc-status-details-bin")[0] as Buffer);
  const info = status.details.map((d) => anyUnpack(d, ErrorInfoSchema)).find((d) => d !== undefined);
  const bad = status.details.map((d) => anyUnpack(d, BadRequestSchema)).find((d) => d !== undefined);
  return { code: err.code, statusCode: status.code, reason: info?.reason, domain: info?.domain, field: bad?.fieldViolations[0]?.field };
}

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(
    `identity providers, account associations and group invites over gRPC (@grpc/grpc-js) [${engine.name}]`,
    () => {
      let t: TestServer;
      let token: string;
      let org: string;
      let team: string;
      let idps: grpc.Client;
      let assocs: grpc.Client;
      let invites: grpc.Client;

      beforeAll(async () => {
        t = await startTestServer(engine);
        const made = await t.organization("grpc-iam");
        token = made.token;
        org = made.org.uid;
        const address = `127.0.0.1:${t.server.port}`;
        const insecure = grpc.credentials.createInsecure();
        const groups = new pkg.arbor.iam.v2beta1.GroupsService(address, insecure);
        team = (await call(groups, "createGroup", { parent: org, group: { name: "team" } }, token)).uid;
        groups.close();
        idps = new pkg.arbor.iam.v2beta1.IdentityProvidersService(address, insecure);
        assocs = new pkg.arbor.iam.v2beta1.AccountAssociationsService(address, insecure);
        invites = new pkg.arbor.iam.v2beta1.GroupInvitesService(address, insecure);
      });
      afterAll(async () => {
        for (const c of [idps, assocs, invites]) c?.close();
        await t?.close();
      });

      it("creates, gets and lists identity providers, never sending the secret back", async () => {
        const sent = {
          name: "okta",
          defaultRole: VIEWER,
          oidc: { issuer: "https://okta.example.com", clientId: "arbor", clientSecret: "grpc-s3cret" },
        };
        const p = await call(idps, "createIdentityProvider", { parent: team, identityProvider: sent }, token);
        expect(p.uid).toMatch(new RegExp(`^${team}/[0-9a-f]{16}$`));
        expect(p.configuration).toBe("oidc");
        expect(p.oidc).toMatchObject({ issuer: "https://okta.example.com", clientId: "arbor" });
        expect(p.oidc.clientSecret ?? "").toBe("");
        const got = await call(idps, "getIdentityProvider", { uid: p.uid }, token);
        expect(got).toEqual(p);
        const listed = await call(idps, "listIdentityProviders", { uidp: { descendantsOf: org } }, token);
        expect(listed.identityProviders.map((x: { uid: string }) => x.uid)).toEqual([p.uid]);
        expect(listed.totalCount).toBe("1");
        expect(JSON.stringify([p, got, listed])).not.toContain("grpc-s3cret");
        // Without a mask, an update that does not send the secret keeps it; one that sends it, even empty, sets it.
        await call(
          idps,
          "updateIdentityProvider",
          { identityProvider: { uid: p.uid, description: "d", oidc: { groupsClaim: "groups" } } },
          token,
        );
        expect((await t.server.store.identityProviders.get(p.uid))?.oidc.clientSecret).toBe("grpc-s3cret");
        await call(idps, "updateIdentityProvider", { identityProvider: { uid: p.uid, oidc: { clientSecret: "" } } }, token);
        expect((await t.server.store.identityProviders.get(p.uid))?.oidc.clientSecret).toBe("");
      });

      it("refuses an identity provider's http issuer with INVALID_ARGUMENT naming oidc.issuer", async () => {
        const err = await failure(
          call(
            idps,
            "createIdentityProvider",
            {
              parent: team,
              identityProvider: { name: "bad", defaultRole: VIEWER, oidc: { issuer: "http://x.example.com", clientId: "c" } },
            },
            token,
          ),
        );
        expect(detailsOf(err)).toEqual({
          code: grpc.status.INVALID_ARGUMENT,
          statusCode: 3,
          reason: "INVALID_ARGUMENT",
          domain: "iam.localhost",
          field: "oidc.issuer",
        });
        expect(err.details).toMatch(/^Invalid argument: oidc\.issuer: /);
      });

      it("refuses a new issuer without the client secret with INVALID_ARGUMENT naming oidc.clientSecret", async () => {
        const sent = {
          name: "moving",
          defaultRole: VIEWER,
          oidc: { issuer: "https://moving.example.com", clientId: "arbor", clientSecret: "grpc-moving-s3cret" },
        };
        const p = await call(idps, "createIdentityProvider", { parent: team, identityProvider: sent }, token);
        const moved = { uid: p.uid, oidc: { issuer: "https://attacker.example.net", clientId: "arbor" } };
        for (const updateMask of [undefined, { paths: ["oidc.issuer"] }, { paths: ["oidc"] }]) {
          const err = await failure(call(idps, "updateIdentityProvider", { identityProvider: moved, updateMask }, token));
          expect(detailsOf(err)).toEqual({
            code: grpc.status.INVALID_ARGUMENT,
            statusCode: 3,
            reason: "INVALID_ARGUMENT",
            domain: "iam.localhost",
            field: "oidc.clientSecret",
          });
          expect(err.details).toBe("Invalid argument: oidc.clientSecret: the client secret must be sent again when the issuer changes");
        }
        expect((await t.server.store.identityProviders.get(p.uid))?.oidc).toMatchObject({
          issuer: "https://moving.example.com",
          clientSecret: "grpc-moving-s3cret",
        });
        await call(
          idps,
          "updateIdentityProvider",
          { identityProvider: { uid: p.uid, oidc: { ...moved.oidc, clientSecret: "grpc-new-s3cret" } } },
          token,
        );
        expect((await t.server.store.identityProviders.get(p.uid))?.oidc).toMatchObject({
          issuer: "https://attacker.example.net",
          clientSecret: "grpc-new-s3cret",
        });
      });

      it("creates, gets and lists account associations, int64 installation ids as strings", async () => {
        const sent = {
          name: "accounts",
          amazon: { account: "123456789012" },
          github: { installations: [{ installationId: "9007199254740993" }] },
        };
        const a = await call(assocs, "createAccountAssociation", { parent: team, accountAssociation: sent }, token);
        expect(a).toMatchObject({ uid: team, name: "accounts", amazon: { account: "123456789012" } });
        expect(a.github.installations[0].installationId).toBe("9007199254740993");
        expect(a.google).toBeNull();
        expect(await call(assocs, "getAccountAssociation", { uid: team }, token)).toEqual(a);
        const listed = await call(assocs, "listAccountAssociations", { uidp: { descendantsOf: org } }, token);
        expect(listed.accountAssociations).toEqual([a]);
        expect(listed.totalCount).toBe("1");
      });

      it("refuses a second association of a group with ALREADY_EXISTS, and a bad account with its field", async () => {
        const dup = await failure(
          call(
            assocs,
            "createAccountAssociation",
            { parent: team, accountAssociation: { name: "again", amazon: { account: "123456789012" } } },
            token,
          ),
        );
        expect(detailsOf(dup)).toMatchObject({ code: grpc.status.ALREADY_EXISTS, reason: "ALREADY_EXISTS" });
        const bad = await failure(
          call(assocs, "createAccountAssociation", { parent: org, accountAssociation: { name: "bad", amazon: { account: "12" } } }, token),
        );
        expect(detailsOf(bad)).toMatchObject({ code: grpc.status.INVALID_ARGUMENT, reason: "INVALID_ARGUMENT", field: "amazon.account" });
      });

      it("creates, gets and lists group invites, the code in the create response only", async () => {
        const i = await call(
          invites,
          "createGroupInvite",
          { parent: team, groupInvite: { roleUid: VIEWER, ttl: { seconds: "3600" }, singleUse: true } },
          token,
        );
        expect(i.code).toMatch(/^arbinv_/);
        expect(i.keyId).toMatch(/^[0-9a-f]{16}$/);
        expect(i.role).toMatchObject({ uid: VIEWER, name: "viewer" });
        expect(i.role.capabilities).toContain("CAP_IAM_GROUPS_LIST");
        expect(Number(i.expirationTime.seconds) - Number(i.createTime.seconds)).toBe(3600);
        expect(i.ttl).toBeNull();
        const got = await call(invites, "getGroupInvite", { uid: i.uid }, token);
        expect(got.code).toBeUndefined();
        expect(got._code).toBeUndefined();
        const { code: _code, _code: _present, ...shown } = i;
        expect(got).toEqual(shown);
        const listed = await call(invites, "listGroupInvites", { keyId: i.keyId }, token);
        expect(listed.groupInvites.map((x: { uid: string }) => x.uid)).toEqual([i.uid]);
        expect(JSON.stringify(listed)).not.toContain(i.code);
      });

      it("refuses an invite without a ttl with INVALID_ARGUMENT naming ttl", async () => {
        const err = await failure(call(invites, "createGroupInvite", { parent: team, groupInvite: { roleUid: VIEWER } }, token));
        expect(detailsOf(err)).toEqual({
          code: grpc.status.INVALID_ARGUMENT,
          statusCode: 3,
          reason: "INVALID_ARGUMENT",
          domain: "iam.localhost",
          field: "ttl",
        });
      });
    },
  );
}
