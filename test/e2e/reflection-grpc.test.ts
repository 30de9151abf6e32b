/**
 * gRPC server reflection with @grpc/grpc-js as the client, loading the upstream reflection.proto
 * itself: list the services, fetch files by name, symbol and extension, then call an RPC using
 * nothing but the descriptors reflection returned, as a generic tool would.
 */
import * as grpc from "@grpc/grpc-js";
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage, type DescService } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServices } from "../../src/services/routes.js";
import { engines } from "../support/engines.js";
import { loadProtos } from "../support/grpc.js";
import { startTestServer, type TestServer } from "../support/server.js";

const pkg = loadProtos(["grpc/reflection/v1/reflection.proto", "grpc/reflection/v1alpha/reflection.proto"], {
  longs: Number,
  defaults: false,
});
const engine = engines[0]!;

/** Sends requests on one reflection stream and collects every response. */
function reflect(client: grpc.Client, requests: object[]): Promise<any[]> {
  return new Promise((resolve, reject) => {
    const stream = (client as any).ServerReflectionInfo() as grpc.ClientDuplexStream<object, any>;
    const out: any[] = [];
    stream.on("data", (d) => out.push(d));
    stream.on("error", reject);
    stream.on("end", () => resolve(out));
    for (const r of requests) stream.write(r);
    stream.end();
  });
}

function filesOf(response: any): FileDescriptorProto[] {
  expect(response.errorResponse, JSON.stringify(response.errorResponse)).toBeUndefined();
  return (response.fileDescriptorResponse.fileDescriptorProto as Buffer[]).map((b) => fromBinary(FileDescriptorProtoSchema, b));
}

describe(`gRPC server reflection [${engine.name}]`, () => {
  let t: TestServer;
  let v1: grpc.Client;
  let v1alpha: grpc.Client;
  let address: string;

  beforeAll(async () => {
    t = await startTestServer(engine);
    address = `127.0.0.1:${t.server.port}`;
    v1 = new pkg.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure());
    v1alpha = new pkg.grpc.reflection.v1alpha.ServerReflection(address, grpc.credentials.createInsecure());
  });
  afterAll(async () => {
    v1?.close();
    v1alpha?.close();
    await t?.close();
  });

  it("lists every served service and both reflection services, without a token, on v1 and v1alpha", async () => {
    const served = createServices(t.server.deps).map((b) => b.service.typeName);
    const expected = [...served, "grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"].sort();
    for (const client of [v1, v1alpha]) {
      const [res] = await reflect(client, [{ host: "h", listServices: "" }]);
      expect(res.validHost).toBe("h");
      expect(res.originalRequest.listServices).toBe("");
      expect(res.listServicesResponse.service.map((s: { name: string }) => s.name).sort()).toEqual(expected);
    }
  });

  it("logs each reflection stream as one call that succeeded, with no caller", async () => {
    await reflect(v1, [{ listServices: "" }]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const line = t.logs.findLast((l) => l.rpc === "grpc.reflection.v1.ServerReflection/ServerReflectionInfo");
    expect(line).toMatchObject({ transport: "grpc", code: 0 });
    expect(line?.caller).toBeUndefined();
  });

  it("answers several requests on one stream, each echoed", async () => {
    const out = await reflect(v1, [{ fileContainingSymbol: "arbor.iam.v2beta1.GroupsService" }, { fileByFilename: "nope.proto" }]);
    expect(out).toHaveLength(2);
    expect(out[0].originalRequest.fileContainingSymbol).toBe("arbor.iam.v2beta1.GroupsService");
    expect(out[1].errorResponse).toEqual({ errorCode: grpc.status.NOT_FOUND, errorMessage: "file nope.proto not found" });
  });

  it.each([
    ["a service", "arbor.iam.v2beta1.GroupsService", "arbor/iam/v2beta1/groups.proto"],
    ["a method", "arbor.iam.v2beta1.GroupsService.ListGroups", "arbor/iam/v2beta1/groups.proto"],
    ["a message", "arbor.iam.v2beta1.Group", "arbor/iam/v2beta1/groups.proto"],
    ["a nested map entry", "arbor.iam.v2beta1.Group.ResourceLimitsEntry", "arbor/iam/v2beta1/groups.proto"],
    ["a field", "arbor.iam.v2beta1.Group.name", "arbor/iam/v2beta1/groups.proto"],
    ["an enum", "arbor.api.v1.Capability", "arbor/api/v1/authz.proto"],
    ["an enum value", "arbor.api.v1.CAP_IAM_GROUPS_LIST", "arbor/api/v1/authz.proto"],
    ["an extension", "arbor.api.v1.authz", "arbor/api/v1/authz.proto"],
    ["a well-known type", "google.protobuf.Timestamp", "google/protobuf/timestamp.proto"],
    ["a reflection service", "grpc.reflection.v1.ServerReflection", "grpc/reflection/v1/reflection.proto"],
  ])("finds the file declaring %s with its transitive imports", async (_what, symbol, file) => {
    const [res] = await reflect(v1, [{ fileContainingSymbol: symbol }]);
    const files = filesOf(res);
    expect(files[0]?.name).toBe(file);
    const names = new Set(files.map((f) => f.name));
    expect(names.size).toBe(files.length);
    for (const f of files) for (const dep of f.dependency) expect(names, `${f.name} imports ${dep}`).toContain(dep);
  });

  it("serves files by name, with google/api and google/protobuf imports", async () => {
    const [res] = await reflect(v1, [{ fileByFilename: "arbor/iam/v2beta1/groups.proto" }]);
    const names = filesOf(res).map((f) => f.name);
    expect(names).toEqual(
      expect.arrayContaining([
        "google/api/annotations.proto",
        "google/api/http.proto",
        "google/protobuf/descriptor.proto",
        "arbor/api/v1/authz.proto",
      ]),
    );
  });

  it("finds custom options by extension number, and lists extension numbers", async () => {
    const [byExt, numbers, unknownExt, unknownType] = await reflect(v1, [
      { fileContainingExtension: { containingType: "google.protobuf.MethodOptions", extensionNumber: 50101 } },
      { allExtensionNumbersOfType: "google.protobuf.MethodOptions" },
      { fileContainingExtension: { containingType: "google.protobuf.MethodOptions", extensionNumber: 7 } },
      { allExtensionNumbersOfType: "no.such.Type" },
    ]);
    expect(filesOf(byExt)[0]?.name).toBe("arbor/api/v1/authz.proto");
    expect(numbers.allExtensionNumbersResponse.baseTypeName).toBe("google.protobuf.MethodOptions");
    expect(numbers.allExtensionNumbersResponse.extensionNumber).toEqual(expect.arrayContaining([50101, 72295728]));
    expect(unknownExt.errorResponse.errorCode).toBe(grpc.status.NOT_FOUND);
    expect(unknownType.errorResponse).toEqual({ errorCode: grpc.status.NOT_FOUND, errorMessage: "type no.such.Type not found" });
  });

  it("answers unknown symbols with NOT_FOUND in-stream", async () => {
    const [res] = await reflect(v1alpha, [{ fileContainingSymbol: "arbor.iam.v2beta1.NoSuchThing" }]);
    expect(res.errorResponse).toEqual({ errorCode: grpc.status.NOT_FOUND, errorMessage: "symbol arbor.iam.v2beta1.NoSuchThing not found" });
  });

  it("gives a generic client all it needs to call an RPC", async () => {
    const { token } = await t.organization("reflected-org");
    const [res] = await reflect(v1alpha, [{ fileContainingSymbol: "arbor.iam.v2beta1.GroupsService" }]);
    const files = new Map(filesOf(res).map((f) => [f.name, f]));
    const registry = createFileRegistry(files.get("arbor/iam/v2beta1/groups.proto")!, (name) => files.get(name));
    const service = registry.getService("arbor.iam.v2beta1.GroupsService") as DescService;
    const method = service.methods.find((m) => m.name === "ListGroups")!;
    const client = new grpc.Client(address, grpc.credentials.createInsecure());
    try {
      const md = new grpc.Metadata();
      md.set("authorization", `Bearer ${token}`);
      const reply = await new Promise<any>((resolve, reject) =>
        client.makeUnaryRequest(
          `/${service.typeName}/${method.name}`,
          (m: any) => Buffer.from(toBinary(method.input as DescMessage, m)),
          (b: Buffer) => fromBinary(method.output as DescMessage, b),
          create(method.input as DescMessage, {}),
          md,
          (err, value) => (err ? reject(err) : resolve(value)),
        ),
      );
      expect(reply.groups.map((g: { name: string }) => g.name)).toEqual(["reflected-org"]);
      expect(reply.totalCount).toBe(1n);
    } finally {
      client.close();
    }
  });
});
