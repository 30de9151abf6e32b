/**
 * gRPC's unary calls in binary protobuf are answered by Arbor's own path (grpc-unary.ts) unless
 * their message comes compressed, which Connect's gRPC handler answers. Each call here is sent both
 * ways to the real server, and the two answers must be the same: the headers, the message, the
 * trailers with their status details, byte for byte where bytes are compared.
 */
import http2 from "node:http2";
import { gunzipSync, gzipSync } from "node:zlib";
import { create, fromBinary, toBinary, toJson, type DescMessage, type MessageShape } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CreateGroupRequestSchema,
  GetGroupRequestSchema,
  GroupSchema,
  ListGroupsRequestSchema,
  ListGroupsResponseSchema,
} from "../../src/gen/arbor/iam/v2beta1/groups_pb.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const SERVICE = "/arbor.iam.v2beta1.GroupsService";

interface Answer {
  status: number;
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  /** The message's bytes, taken out of their frame (and unzipped when the frame says so). */
  message: Buffer | undefined;
  /** The frame's compressed flag. */
  compressed: boolean | undefined;
}

function frame(payload: Uint8Array, flag: number): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flag, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

const engine = engines[0];

describe.skipIf(engine === undefined)("gRPC unary calls, by Arbor's path and by Connect's", () => {
  let t: TestServer;
  let session: http2.ClientHttp2Session;
  let org: string;
  let token: string;
  beforeAll(async () => {
    t = await startTestServer(engine!);
    const o = await t.organization("grpc-unary");
    org = o.org.uid;
    token = o.token;
    session = http2.connect(t.url);
  });
  afterAll(async () => {
    session?.close();
    await t?.close();
  });

  function send(path: string, headers: http2.OutgoingHttpHeaders, body: Buffer): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const stream = session.request({ ":method": "POST", ":path": `${SERVICE}/${path}`, te: "trailers", ...headers });
      const answer: Answer = { status: 0, headers: {}, trailers: {}, message: undefined, compressed: undefined };
      const chunks: Buffer[] = [];
      stream.on("response", (h) => {
        answer.status = Number(h[":status"]);
        answer.headers = h;
      });
      stream.on("trailers", (tr) => (answer.trailers = tr));
      stream.on("data", (d: Buffer) => chunks.push(d));
      stream.once("error", reject);
      stream.once("close", () => {
        const bytes = Buffer.concat(chunks);
        if (bytes.length > 0) {
          answer.compressed = bytes.readUInt8(0) === 1;
          const payload = bytes.subarray(5, 5 + bytes.readUInt32BE(1));
          answer.message = answer.compressed ? gunzipSync(payload) : payload;
        }
        resolve(answer);
      });
      stream.end(body);
    });
  }

  /** The call sent as it is (Arbor's path) and gzipped (Connect's), with the answers side by side. */
  async function bothWays<I extends DescMessage>(
    path: string,
    schema: I,
    request: MessageShape<I>,
    withToken = true,
    extra: http2.OutgoingHttpHeaders = { "grpc-accept-encoding": "gzip" },
  ) {
    const bytes = toBinary(schema, request);
    const headers = { "content-type": "application/grpc", ...extra, ...(withToken ? { authorization: `Bearer ${token}` } : {}) };
    const own = await send(path, headers, frame(bytes, 0));
    const connect = await send(path, { ...headers, "grpc-encoding": "gzip" }, frame(gzipSync(bytes), 1));
    return { own, connect };
  }

  /** What must be equal of two answers; the message as JSON, through its schema. */
  function comparable(a: Answer, output: DescMessage) {
    return {
      status: a.status,
      type: a.headers["content-type"],
      encoding: a.headers["grpc-encoding"],
      headerStatus: a.headers["grpc-status"],
      trailers: {
        status: a.trailers["grpc-status"],
        message: a.trailers["grpc-message"],
        details: a.trailers["grpc-status-details-bin"],
      },
      compressed: a.compressed,
      message: a.message === undefined ? undefined : toJson(output, fromBinary(output, a.message)),
    };
  }

  it("answers a read the same", async () => {
    const { own, connect } = await bothWays("GetGroup", GetGroupRequestSchema, create(GetGroupRequestSchema, { uid: org }));
    expect(comparable(own, GroupSchema)).toEqual(comparable(connect, GroupSchema));
    expect(own.trailers["grpc-status"]).toBe("0");
    expect(fromBinary(GroupSchema, own.message ?? Buffer.alloc(0)).uid).toBe(org);
  });

  it("reads a repeated header as Connect does, its values joined", async () => {
    const request = create(GetGroupRequestSchema, { uid: org });
    const { own, connect } = await bothWays("GetGroup", GetGroupRequestSchema, request, true, {
      "grpc-accept-encoding": ["identity", "gzip"],
    });
    expect(comparable(own, GroupSchema)).toEqual(comparable(connect, GroupSchema));
    expect(own.headers["grpc-encoding"]).toBe("gzip");
  });

  const getGroup = (uid: (org: string) => string) => (o: string) => create(GetGroupRequestSchema, { uid: uid(o) });
  it.each([
    ["a group that is not there", "GetGroup", getGroup((o) => `${o}/${"0".repeat(16)}`), true, "5"],
    ["a group outside the caller's reach", "GetGroup", getGroup(() => "0".repeat(40)), true, "7"],
    ["a call without a token", "GetGroup", getGroup((o) => o), false, "16"],
    [
      "a name that is refused, its message holding % and non-ASCII",
      "CreateGroup",
      (o: string) => create(CreateGroupRequestSchema, { parent: o, group: { name: "100% «refused»" } }),
      true,
      "3",
    ],
  ] as const)("refuses %s the same", async (_name, path, request, withToken, code) => {
    const message = request(org);
    const schema = path === "GetGroup" ? GetGroupRequestSchema : CreateGroupRequestSchema;
    const { own, connect } = await bothWays(path, schema as DescMessage, message, withToken);
    expect(comparable(own, GroupSchema)).toEqual(comparable(connect, GroupSchema));
    expect(own.trailers["grpc-status"]).toBe(code);
    expect(own.trailers["grpc-status-details-bin"]).toBeTruthy();
  });

  it("answers a large page the same, compressed for a client that accepts it", async () => {
    for (let i = 0; i < 160; i++) {
      const res = await t.fetch(`/iam/v2beta1/groups/${org}`, {
        method: "POST",
        token,
        body: JSON.stringify({ name: `child-${i}`, description: "d".repeat(512) }),
      });
      expect(res.status).toBe(200);
    }
    const request = create(ListGroupsRequestSchema, { uidp: { childrenOf: org }, pageSize: 200 });
    const { own, connect } = await bothWays("ListGroups", ListGroupsRequestSchema, request);
    expect(comparable(own, ListGroupsResponseSchema)).toEqual(comparable(connect, ListGroupsResponseSchema));
    expect(own.compressed).toBe(true);
    expect(fromBinary(ListGroupsResponseSchema, own.message ?? Buffer.alloc(0)).groups).toHaveLength(160);
  });

  it("logs a call the same either way", async () => {
    const before = t.logs.length;
    await bothWays("GetGroup", GetGroupRequestSchema, create(GetGroupRequestSchema, { uid: `${org}/${"0".repeat(16)}` }));
    const lines = t.logs.slice(before).filter((l) => l.rpc === "arbor.iam.v2beta1.GroupsService/GetGroup");
    expect(lines).toHaveLength(2);
    const [a, b] = lines.map(({ transport, code, rpc, caller, status }) => ({ transport, code, rpc, caller, status }));
    expect(a).toEqual(b);
    expect(a).toMatchObject({ transport: "grpc", code: 5 });
  });
});
