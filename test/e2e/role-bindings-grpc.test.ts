/**
 * Roles and role bindings over gRPC with @grpc/grpc-js as the independent client, loading the
 * .proto contract itself and decoding grpc-status-details-bin.
 */
import * as grpc from "@grpc/grpc-js";
import { fromBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_ROLES } from "../../src/domain/roles.js";
import { BadRequestSchema, ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../src/gen/google/rpc/status_pb.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { call, loadProtos } from "../support/grpc.js";

const pkg = loadProtos(["arbor/iam/v2beta1/roles.proto", "arbor/iam/v2beta1/role_bindings.proto"], { enums: String });

const viewer = BUILTIN_ROLES.get("viewer")!;
for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`roles and role bindings over gRPC (@grpc/grpc-js) [${engine.name}]`, () => {
    let t: TestServer;
    let token: string;
    let org: string;
    let roles: grpc.Client;
    let bindings: grpc.Client;

    beforeAll(async () => {
      t = await startTestServer(engine);
      const made = await t.organization("grpc-bindings");
      ({ token } = made);
      org = made.org.uid;
      const address = `127.0.0.1:${t.server.port}`;
      roles = new pkg.arbor.iam.v2beta1.RolesService(address, grpc.credentials.createInsecure());
      bindings = new pkg.arbor.iam.v2beta1.RoleBindingsService(address, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      roles?.close();
      bindings?.close();
      await t?.close();
    });

    it("creates a custom role, binds it and a built-in role, gets and lists the hydrated bindings", async () => {
      const role = await call(
        roles,
        "createRole",
        { parent: org, role: { name: "reader", capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_IAM_GROUPS_LIST"] } },
        token,
      );
      expect(role.capabilities).toEqual(["CAP_IAM_GROUPS_LIST"]);
      const person = "abcdef0123456789abcdef0123456789abcdef01";

      const created = await call(
        bindings,
        "createRoleBinding",
        { parent: org, roleBinding: { identityUid: person, roleUid: viewer.uid } },
        token,
      );
      expect(created.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
      expect(created.identity).toEqual({ uid: person, name: "", description: "", subject: "", issuer: "" });
      expect(created.group).toMatchObject({ uid: org, name: "grpc-bindings" });
      expect(created.role).toEqual({ uid: viewer.uid, name: "viewer", description: "Viewer Role (built-in)" });
      expect(created.identityUid).toBeUndefined();
      expect(created.roleUid).toBeUndefined();
      expect(Number(created.createTime.seconds)).toBeGreaterThan(0);
      const second = await call(
        bindings,
        "createRoleBinding",
        { parent: org, roleBinding: { identityUid: person, roleUid: role.uid } },
        token,
      );

      expect(await call(bindings, "getRoleBinding", { uid: created.uid }, token)).toEqual(created);
      const list = await call(bindings, "listRoleBindings", { identity: person, pageSize: 1 }, token);
      expect(list.roleBindings).toEqual([created]);
      expect(list.totalCount).toBe("2");
      const next = await call(bindings, "listRoleBindings", { identity: person, pageSize: 1, pageToken: list.nextPageToken }, token);
      expect(next.roleBindings.map((b: { uid: string }) => b.uid)).toEqual([second.uid]);
      expect(next.roleBindings[0].role).toEqual({ uid: role.uid, name: "reader", description: "" });
    });

    it("sends INVALID_ARGUMENT with ErrorInfo and a BadRequest naming roleUid", async () => {
      const err = await call(
        bindings,
        "createRoleBinding",
        { parent: org, roleBinding: { identityUid: `${org}/00000000000000aa` } },
        token,
      ).then(
        () => undefined,
        (e: grpc.ServiceError) => e,
      );
      expect(err?.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(err?.details).toBe("Invalid argument: roleUid: is required");
      const status = fromBinary(StatusSchema, err!.metadata.get("grpc-status-details-bin")[0] as Buffer);
      expect(anyUnpack(status.details[0]!, ErrorInfoSchema)).toMatchObject({ reason: "INVALID_ARGUMENT", domain: "iam.localhost" });
      expect(anyUnpack(status.details[1]!, BadRequestSchema)?.fieldViolations).toEqual([
        expect.objectContaining({ field: "roleUid", description: "is required" }),
      ]);
    });
  });
}
