/**
 * The gRPC unary path (src/server/connect/grpc-unary.ts) on a real node:http2 server and client:
 * which calls it takes from their headers, what it answers, and that every call it leaves to
 * Connect reaches Connect with its body's bytes intact and in order. The invoker here is a
 * recording one, so each answer is known; test/e2e/grpc-unary.test.ts holds the path to Connect's
 * answers on the real server.
 */
import http2 from "node:http2";
import { gunzipSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import { create, fromBinary, toBinary, type Message } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError, Code, notFound } from "../../src/domain/errors.js";
import { GetGroupRequestSchema, GroupSchema, GroupsService, type GetGroupRequest } from "../../src/gen/arbor/iam/v2beta1/groups_pb.js";
import { ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../src/gen/google/rpc/status_pb.js";
import { ACCEPT_COMPRESSION } from "../../src/server/connect/connect-handlers.js";
import { createGrpcUnary, type GrpcUnary } from "../../src/server/connect/grpc-unary.js";
import type { RequestLog } from "../../src/server/http/request-log.js";
import type { Call } from "../../src/server/invoker.js";

const getGroup = GroupsService.method.getGroup;
const READ_MAX = 1024 * 1024;

function frame(payload: Uint8Array, flag = 0): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flag, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

const request = (uid: string) => Buffer.from(toBinary(GetGroupRequestSchema, create(GetGroupRequestSchema, { uid })));

/** What the server saw and did with one call. */
interface Seen {
  eligible: boolean;
  /** The bytes handed back to Connect, when the path did not serve the call. */
  handedBack?: Buffer;
  /** When the call was handed back (performance.now()). */
  handedBackAt?: number;
  record: RequestLog;
}

interface Answer {
  /** When the client's last write was done (performance.now()). */
  sentAt: number;
  status: number;
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
}

describe("the gRPC unary path", () => {
  let server: http2.Http2Server;
  let session: http2.ClientHttp2Session;
  let unary: GrpcUnary;
  const calls: Call[] = [];
  const seen: Seen[] = [];

  beforeAll(async () => {
    unary = createGrpcUnary({
      domain: "test.example",
      readMaxBytes: READ_MAX,
      acceptCompression: ACCEPT_COMPRESSION,
      invoker: {
        async invoke(call): Promise<Message> {
          calls.push(call);
          const { uid } = call.request as GetGroupRequest;
          if (uid === "missing") throw notFound("group", "missing");
          if (uid === "refused") throw new ApiError(Code.FAILED_PRECONDITION, "100% refused: the group «g» is not empty");
          if (uid === "broken") throw new TypeError("a bug");
          // A message field holding a string: the answer cannot be encoded.
          if (uid === "unencodable") return { ...create(GroupSchema, { uid }), createTime: "yesterday" } as unknown as Message;
          return create(GroupSchema, { uid, description: uid === "large" ? "d".repeat(70_000) : "small" });
        },
      },
    });
    server = http2.createServer((req, res) => {
      const record: RequestLog = {};
      const call = unary.eligible(getGroup, req);
      const s: Seen = { eligible: call !== undefined, record };
      seen.push(s);
      if (call === undefined) {
        res.writeHead(415);
        res.end();
        return;
      }
      void unary.serve(call, req, res, record).then(
        async (outcome) => {
          if (outcome.served) return;
          s.handedBackAt = performance.now();
          // Read on only a little later: a body the path stopped reading stays unread until then.
          await new Promise((resolve) => setTimeout(resolve, 100));
          const chunks: Buffer[] = [];
          for await (const chunk of outcome.body) chunks.push(Buffer.from(chunk));
          s.handedBack = Buffer.concat(chunks);
          res.writeHead(299);
          res.end();
        },
        () => res.destroy(),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    session?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** Sends body (its parts one after another, pauseMs apart) and reads the answer whole. */
  function send(headers: http2.OutgoingHttpHeaders, body: Buffer | Buffer[], pauseMs = 0): Promise<Answer & { seen: Seen }> {
    return new Promise((resolve, reject) => {
      const stream = session.request({ ":method": "POST", ":path": "/arbor.iam.v2beta1.GroupsService/GetGroup", ...headers });
      const answer: Answer = { sentAt: 0, status: 0, headers: {}, trailers: {}, body: Buffer.alloc(0) };
      const chunks: Buffer[] = [];
      stream.on("response", (h) => {
        answer.status = Number(h[":status"]);
        answer.headers = h;
      });
      stream.on("trailers", (t) => (answer.trailers = t));
      stream.on("data", (d: Buffer) => chunks.push(d));
      stream.once("error", reject);
      stream.once("close", () => resolve({ ...answer, body: Buffer.concat(chunks), seen: seen[seen.length - 1] as Seen }));
      const parts = Array.isArray(body) ? body : [body];
      const write = (i: number): void => {
        if (i === parts.length) {
          stream.end(() => (answer.sentAt = performance.now()));
          return;
        }
        stream.write(parts[i], () => (pauseMs > 0 ? setTimeout(write, pauseMs, i + 1) : setImmediate(write, i + 1)));
      };
      write(0);
    });
  }

  const grpc = { "content-type": "application/grpc", te: "trailers" };

  it.each([
    ["application/grpc", {}, true],
    ["application/grpc+proto", {}, true],
    ["Application/GRPC+Proto", {}, true],
    ["application/grpc+json", {}, false],
    ["application/grpc-web+proto", {}, false],
    ["application/proto", {}, false],
    ["application/grpc", { "grpc-timeout": "5S" }, true],
    ["application/grpc", { "grpc-timeout": "five seconds" }, false],
    ["application/grpc", { "grpc-encoding": "gzip" }, true],
    ["application/grpc", { "grpc-encoding": "snappy" }, false],
    ["application/grpc", { "grpc-accept-encoding": "snappy, gzip" }, true],
  ] as const)("takes %s with %j: %s", async (type, extra, taken) => {
    const a = await send({ ...grpc, "content-type": type, ...extra }, Buffer.alloc(0));
    expect(a.seen.eligible).toBe(taken);
  });

  it("takes only unary methods over HTTP/2 POSTs", () => {
    const headers = { "content-type": "application/grpc" };
    expect(unary.eligible(getGroup, { httpVersionMajor: 2, method: "POST", headers })).toBeDefined();
    expect(unary.eligible(getGroup, { httpVersionMajor: 1, method: "POST", headers })).toBeUndefined();
    expect(unary.eligible(getGroup, { httpVersionMajor: 2, method: "GET", headers })).toBeUndefined();
    const streaming = { ...getGroup, methodKind: "server_streaming" } as unknown as typeof getGroup;
    expect(unary.eligible(streaming, { httpVersionMajor: 2, method: "POST", headers })).toBeUndefined();
    expect(
      unary.eligible(getGroup, { httpVersionMajor: 2, method: "POST", headers: { ...headers, "grpc-timeout": "250m" } })?.timeoutMs,
    ).toBe(250);
  });

  it("answers a call with its message and status 0, handing the invoker the call's token and record", async () => {
    const a = await send({ ...grpc, authorization: "Bearer t0ken" }, frame(request("g1")));
    expect(a.seen.handedBack).toBeUndefined();
    expect({ status: a.status, type: a.headers["content-type"], encoding: a.headers["grpc-encoding"] }).toEqual({
      status: 200,
      type: "application/grpc+proto",
      encoding: undefined,
    });
    expect(a.trailers["grpc-status"]).toBe("0");
    expect(a.body.readUInt8(0)).toBe(0);
    expect(a.body.readUInt32BE(1)).toBe(a.body.length - 5);
    expect(fromBinary(GroupSchema, a.body.subarray(5))).toMatchObject({ uid: "g1", description: "small" });
    const call = calls[calls.length - 1] as Call;
    expect({ authorization: call.authorization, uid: (call.request as GetGroupRequest).uid, aborted: call.signal.aborted }).toEqual({
      authorization: "Bearer t0ken",
      uid: "g1",
      aborted: false,
    });
    expect(call.record).toBe(a.seen.record);
    expect(a.seen.record.code).toBe(0);
  });

  it("compresses only a large answer, and only for a client that accepts it", async () => {
    const accepting = { ...grpc, "grpc-accept-encoding": "gzip" };
    const small = await send(accepting, frame(request("g1")));
    expect({ encoding: small.headers["grpc-encoding"], flag: small.body.readUInt8(0) }).toEqual({ encoding: "gzip", flag: 0 });
    const large = await send(accepting, frame(request("large")));
    expect({ encoding: large.headers["grpc-encoding"], flag: large.body.readUInt8(0) }).toEqual({ encoding: "gzip", flag: 1 });
    expect(large.body.length).toBeLessThan(10_000);
    expect(fromBinary(GroupSchema, gunzipSync(large.body.subarray(5))).description).toHaveLength(70_000);
    const plain = await send(grpc, frame(request("large")));
    expect({ encoding: plain.headers["grpc-encoding"], flag: plain.body.readUInt8(0) }).toEqual({ encoding: undefined, flag: 0 });
    expect(fromBinary(GroupSchema, plain.body.subarray(5)).description).toHaveLength(70_000);
  });

  it("answers a failure in trailers: its code, its message encoded as gRPC asks, and its ErrorInfo", async () => {
    const missing = await send(grpc, frame(request("missing")));
    expect({ status: missing.status, body: missing.body.length, code: missing.trailers["grpc-status"] }).toEqual({
      status: 200,
      body: 0,
      code: "5",
    });
    const status = fromBinary(StatusSchema, Buffer.from(String(missing.trailers["grpc-status-details-bin"]), "base64"));
    expect(status.code).toBe(Code.NOT_FOUND);
    const info = status.details.find((d) => d.typeUrl.endsWith("google.rpc.ErrorInfo"));
    expect(fromBinary(ErrorInfoSchema, info?.value ?? new Uint8Array()).domain).toBe("iam.test.example");
    expect(missing.seen.record.code).toBe(Code.NOT_FOUND);

    const refused = await send(grpc, frame(request("refused")));
    expect(refused.trailers["grpc-status"]).toBe("9");
    // Printable ASCII stays as it is; `%` and the bytes of « and » are percent-encoded.
    expect(refused.trailers["grpc-message"]).toBe("100%25 refused: the group %C2%ABg%C2%BB is not empty");

    const broken = await send(grpc, frame(request("broken")));
    expect(broken.trailers["grpc-status"]).toBe("13");
    expect(broken.seen.record.code).toBe(Code.INTERNAL);

    // Failing after the invoker, in encoding the answer: INTERNAL too, with its status details.
    const unencodable = await send(grpc, frame(request("unencodable")));
    expect({ status: unencodable.trailers["grpc-status"], body: unencodable.body.length }).toEqual({ status: "13", body: 0 });
    expect(fromBinary(StatusSchema, Buffer.from(String(unencodable.trailers["grpc-status-details-bin"]), "base64")).code).toBe(
      Code.INTERNAL,
    );
    expect(unencodable.seen.record.code).toBe(Code.INTERNAL);
  });

  it.each([
    ["an empty body", Buffer.alloc(0)],
    ["a compressed frame", frame(request("g1"), 1)],
    ["two frames", Buffer.concat([frame(request("g1")), frame(request("g2"))])],
    ["a frame longer than the body", frame(request("g1")).subarray(0, 8)],
    ["bytes that do not decode", frame(Buffer.from([0x0a, 0x05, 0x61]))],
    ["a frame head alone", Buffer.from([0, 0, 0, 0])],
  ])("leaves %s to Connect with its bytes as sent", async (_name, body) => {
    const before = calls.length;
    const a = await send(grpc, body);
    expect(a.status).toBe(299);
    expect(a.seen.handedBack?.equals(body)).toBe(true);
    expect(calls.length).toBe(before);
  });

  it("leaves a body over the size limit to Connect after reading little more than the limit, the rest still to come in order", async () => {
    // 3 MiB in 64 KiB writes, each byte its offset's low byte: any loss, repeat or reordering shows.
    const total = 3 * 1024 * 1024;
    const bytes = Buffer.alloc(total);
    for (let i = 0; i < total; i++) bytes[i] = i & 0xff;
    const parts: Buffer[] = [];
    for (let i = 0; i < total; i += 64 * 1024) parts.push(bytes.subarray(i, i + 64 * 1024));
    const before = calls.length;
    const a = await send(grpc, parts);
    expect(a.status).toBe(299);
    expect(a.seen.handedBack?.length).toBe(total);
    expect(a.seen.handedBack?.equals(bytes)).toBe(true);
    expect(calls.length).toBe(before);
    // Handed back while the client was still sending: the path had stopped reading at the limit.
    expect(a.seen.handedBackAt).toBeLessThan(a.sentAt);
  });

  it("leaves a frame whose head declares more than the limit to Connect at once, without waiting for the rest", async () => {
    const head = Buffer.from([0, 0, 0, 0, 0]);
    head.writeUInt32BE(READ_MAX + 1, 1);
    const rest = Buffer.alloc(1000, 7);
    const a = await send(grpc, [head, rest], 300);
    expect(a.status).toBe(299);
    expect(a.seen.handedBack?.equals(Buffer.concat([head, rest]))).toBe(true);
    expect(a.seen.handedBackAt).toBeLessThan(a.sentAt - 200);
  });

  it("reads on through a frame whose head declares the limit exactly", async () => {
    const head = Buffer.from([0, 0, 0, 0, 0]);
    head.writeUInt32BE(READ_MAX, 1);
    const rest = Buffer.alloc(1000, 7);
    const a = await send(grpc, [head, rest], 300);
    expect(a.seen.handedBack?.equals(Buffer.concat([head, rest]))).toBe(true);
    // Handed back at the body's end, not 300 ms before it as above.
    expect(a.sentAt - (a.seen.handedBackAt ?? 0)).toBeLessThan(100);
  });

  it("survives a client that resets its stream before the message is whole", async () => {
    const before = calls.length;
    await new Promise<void>((resolve) => {
      const stream = session.request({ ":method": "POST", ":path": "/arbor.iam.v2beta1.GroupsService/GetGroup", ...grpc });
      stream.on("error", () => {});
      stream.write(frame(request("g1")).subarray(0, 6), () => {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        setTimeout(resolve, 50);
      });
    });
    expect(calls.length).toBe(before);
    const a = await send(grpc, frame(request("after")));
    expect(fromBinary(GroupSchema, a.body.subarray(5)).uid).toBe("after");
  });
});
