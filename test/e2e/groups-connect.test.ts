/**
 * The same services over Connect (HTTP/1.1 and h2c) and gRPC-Web, with Connect's own clients,
 * and the error details Connect carries.
 */
import { createClient, ConnectError, Code, type Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GroupsService } from "../../src/gen/arbor/iam/v2beta1/groups_pb.js";
import { BadRequestSchema, ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`groups over Connect, gRPC-Web and gRPC (connect-node) [${engine.name}]`, () => {
    let t: TestServer;
    let token: string;
    let org: string;

    beforeAll(async () => {
      t = await startTestServer(engine);
      const o = await t.organization("connect-org");
      token = o.token;
      org = o.org.uid;
    });
    afterAll(() => t?.close());

    const transports: [string, () => Transport][] = [
      ["connect over HTTP/1.1", () => createConnectTransport({ baseUrl: t.url, httpVersion: "1.1" })],
      ["connect over h2c", () => createConnectTransport({ baseUrl: t.url, httpVersion: "2" })],
      ["gRPC-Web over HTTP/1.1", () => createGrpcWebTransport({ baseUrl: t.url, httpVersion: "1.1" })],
      ["gRPC over h2c", () => createGrpcTransport({ baseUrl: t.url })],
    ];

    it.each(transports)("%s: create, get and list", async (name, transport) => {
      const client = createClient(GroupsService, transport());
      const headers = { authorization: `Bearer ${token}` };
      const group = await client.createGroup({ parent: org, group: { name: name.replace(/[^a-z0-9 ]/g, "") } }, { headers });
      expect(group.uid.startsWith(`${org}/`)).toBe(true);
      expect((await client.getGroup({ uid: group.uid }, { headers })).name).toBe(group.name);
      const list = await client.listGroups({ uidp: { childrenOf: org }, name: group.name }, { headers });
      expect(list.totalCount).toBe(1n);
    });

    it.each(transports)("%s: errors carry ErrorInfo and BadRequest", async (_, transport) => {
      const client = createClient(GroupsService, transport());
      try {
        await client.createGroup({ parent: org, group: { name: "" } }, { headers: { authorization: `Bearer ${token}` } });
        expect.unreachable();
      } catch (e) {
        const err = ConnectError.from(e);
        expect(err.code).toBe(Code.InvalidArgument);
        expect(err.rawMessage).toBe('Invalid argument: name: name must match "^[a-z0-9 ._-]{1,}$"');
        expect(err.findDetails(ErrorInfoSchema)[0]).toMatchObject({ reason: "INVALID_ARGUMENT" });
        expect(err.findDetails(BadRequestSchema)[0]?.fieldViolations[0]?.field).toBe("name");
      }
    });

    it("refuses a Connect JSON body or GET message giving a key twice (protobuf-es's own check)", async () => {
      const connectError = async (res: Response) => {
        const body = (await res.json()) as { code: string; message: string };
        return { status: res.status, code: body.code, message: body.message };
      };
      // JSON.parse keeps the last key: unchecked, this would create a group named "ok".
      const post = await fetch(`${t.url}/arbor.iam.v2beta1.GroupsService/CreateGroup`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: `{"parent":"${org}","group":{"name":"BAD NAME","name":"ok"}}`,
      });
      expect(await connectError(post)).toMatchObject({
        status: 400,
        code: "invalid_argument",
        message: expect.stringContaining('duplicate object key "name"'),
      });
      const message = encodeURIComponent('{"uid":"a","token":"t","uid":"b"}');
      const get = await fetch(`${t.url}/arbor.iam.v2beta1.IdentitiesService/ExplainExchange?connect=v1&encoding=json&message=${message}`);
      expect(await connectError(get)).toMatchObject({
        status: 400,
        code: "invalid_argument",
        message: expect.stringContaining('duplicate object key "uid"'),
      });
    });

    it("refuses calls without a token with UNAUTHENTICATED", async () => {
      const client = createClient(GroupsService, createConnectTransport({ baseUrl: t.url, httpVersion: "1.1" }));
      await expect(client.getGroup({ uid: org })).rejects.toMatchObject({ code: Code.Unauthenticated });
    });
  });
}
