/**
 * Requests the Connect runtime refuses before Arbor's invoker runs (found by the fuzzer): each is
 * still a google.rpc.Status with its ErrorInfo, and bytes that do not decode are the caller's
 * INVALID_ARGUMENT, not INTERNAL, on gRPC, gRPC-Web and Connect alike.
 */
import { fromBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatusSchema } from "../../src/gen/google/rpc/status_pb.js";
import { engines } from "../support/engines.js";
import { createSender, type Sender } from "../support/fuzz/send.js";
import { startTestServer, type TestServer } from "../support/server.js";

const GET_GROUP = "/arbor.iam.v2beta1.GroupsService/GetGroup";
/** Field 1 (uid), length-delimited, claiming 5 bytes of which 1 follows. */
const TRUNCATED = Buffer.from([0x0a, 0x05, 0x61]);

function frame(payload: Buffer, flag = 0): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flag, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** The trailers of a gRPC-Web body's trailer frame. */
function webTrailers(body: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let i = 0;
  while (i + 5 <= body.length) {
    const length = body.readUInt32BE(i + 1);
    if (body.readUInt8(i) & 0x80) {
      for (const line of body
        .subarray(i + 5, i + 5 + length)
        .toString("latin1")
        .split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) out[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
      }
    }
    i += 5 + length;
  }
  return out;
}

function detailsOf(bin: string): { code: number; types: string[] } {
  const status = fromBinary(StatusSchema, Buffer.from(bin, "base64"));
  return { code: status.code, types: status.details.map((d) => d.typeUrl.split("/")[1] ?? "") };
}

const engine = engines[0];

describe.skipIf(engine === undefined)("refusals of the Connect runtime", () => {
  let t: TestServer;
  let sender: Sender;
  let token: string;
  beforeAll(async () => {
    t = await startTestServer(engine!);
    ({ token } = await t.organization("refusals"));
    sender = createSender(t.url, 2);
  });
  afterAll(async () => {
    sender?.close();
    await t?.close();
  });

  it("answers gRPC bytes that do not decode with INVALID_ARGUMENT and its details", async () => {
    const a = await sender.grpc({
      path: GET_GROUP,
      headers: { "content-type": "application/grpc", te: "trailers", authorization: `Bearer ${token}` },
      body: frame(TRUNCATED),
      target: "",
    });
    expect({ status: a.status, code: a.headers["grpc-status"] }).toEqual({ status: 200, code: "3" });
    expect(decodeURIComponent(String(a.headers["grpc-message"]))).toMatch(
      /^Invalid argument: body: the request message cannot be decoded \(premature EOF\)$/,
    );
    expect(detailsOf(String(a.headers["grpc-status-details-bin"]))).toEqual({
      code: 3,
      types: ["google.rpc.ErrorInfo", "google.rpc.BadRequest"],
    });
  });

  it("gives a gRPC frame flagged compressed without an encoding its details too", async () => {
    const a = await sender.grpc({
      path: GET_GROUP,
      headers: { "content-type": "application/grpc", te: "trailers" },
      body: frame(Buffer.from([0x0a, 0x00]), 1),
      target: "",
    });
    expect(a.headers["grpc-status"]).toBe("3");
    expect(detailsOf(String(a.headers["grpc-status-details-bin"])).types[0]).toBe("google.rpc.ErrorInfo");
  });

  it("completes the trailer frame of gRPC-Web", async () => {
    const a = await sender.grpc({
      path: GET_GROUP,
      headers: { "content-type": "application/grpc-web+proto", authorization: `Bearer ${token}` },
      body: frame(TRUNCATED),
      target: "",
    });
    const trailers = webTrailers(a.body);
    expect(trailers["grpc-status"]).toBe("3");
    expect(detailsOf(trailers["grpc-status-details-bin"] ?? "")).toEqual({
      code: 3,
      types: ["google.rpc.ErrorInfo", "google.rpc.BadRequest"],
    });
  });

  it("gives Connect's JSON error for a body that is not JSON an ErrorInfo", async () => {
    const a = await sender.http({
      method: "POST",
      path: GET_GROUP,
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: Buffer.from("{uid:"),
      target: "",
    });
    const body = JSON.parse(a.body.toString()) as { code: string; details: { type: string; debug?: Record<string, unknown> }[] };
    expect({ status: a.status, code: body.code, types: body.details.map((d) => d.type) }).toEqual({
      status: 400,
      code: "invalid_argument",
      types: ["google.rpc.ErrorInfo"],
    });
    expect(body.details[0]?.debug).toMatchObject({ reason: "INVALID_ARGUMENT", domain: "iam.localhost" });
  });

  it("leaves Arbor's own errors as they are", async () => {
    const a = await sender.grpc({
      path: GET_GROUP,
      headers: { "content-type": "application/grpc", te: "trailers" },
      body: frame(Buffer.alloc(0)),
      target: "",
    });
    expect(a.headers["grpc-status"]).toBe("16");
    expect(detailsOf(String(a.headers["grpc-status-details-bin"]))).toEqual({ code: 16, types: ["google.rpc.ErrorInfo"] });
  });
});
