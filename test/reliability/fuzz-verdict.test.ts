/**
 * The fuzzer's verdict on UNAVAILABLE answers (test/support/fuzz/verdict.ts): a 503, or gRPC
 * status 14, passes only as a deliberate overload or outage answer, in every format the server
 * answers with.
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../src/gen/google/rpc/status_pb.js";
import { checkConnect, checkGrpc, checkHttp } from "../support/fuzz/verdict.js";

const STORE = "Unavailable: the store cannot be reached";
const PROVIDER = "Unavailable: the identity provider's token endpoint answered 500; try again later";
const STRAY = ["Unavailable: the server is shutting down", "Unavailable: something else broke"];

const json = (value: unknown) => ({
  status: 503,
  headers: { "content-type": "application/json" },
  body: Buffer.from(JSON.stringify(value)),
});
const status = (message: string) =>
  json({
    code: 14,
    message,
    details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "UNAVAILABLE", domain: "iam.arbor.test" }],
  });
const connect = (message: string) => json({ code: "unavailable", message, details: [{ type: "google.rpc.ErrorInfo", value: "" }] });
const page = (message: string) => ({
  status: 503,
  headers: { "content-type": "text/html; charset=utf-8" },
  body: Buffer.from(`<!doctype html><body><h1>Login failed</h1>\n<p>${message.replace(/'/g, "&#39;")}</p></body>`),
});
function grpc(message: string) {
  const details = create(StatusSchema, {
    code: 14,
    message,
    details: [anyPack(ErrorInfoSchema, create(ErrorInfoSchema, { reason: "UNAVAILABLE" }))],
  });
  return {
    status: 200,
    headers: {
      "content-type": "application/grpc",
      "grpc-status": "14",
      "grpc-message": encodeURIComponent(message),
      "grpc-status-details-bin": Buffer.from(toBinary(StatusSchema, details)).toString("base64"),
    },
    body: Buffer.alloc(0),
  };
}

const unavailable = (problems: string[]) => problems.filter((p) => p.startsWith("UNAVAILABLE"));

describe("the fuzzer's verdict on UNAVAILABLE", () => {
  it("passes the store's and an identity provider's outage answers, in every format", () => {
    expect(checkHttp(status(STORE), true)).toEqual([]);
    expect(checkConnect(connect(STORE))).toEqual([]);
    expect(checkGrpc(grpc(STORE), "application/grpc")).toEqual([]);
    expect(checkHttp(page(PROVIDER), false)).toEqual([]);
    expect(checkHttp(json({ errors: [{ code: "UNAVAILABLE", message: STORE }] }), false)).toEqual([]);
  });

  it.each(STRAY)("fails any other UNAVAILABLE: %s", (message) => {
    expect(unavailable(checkHttp(status(message), true))).toHaveLength(1);
    expect(unavailable(checkConnect(connect(message)))).toHaveLength(1);
    expect(unavailable(checkGrpc(grpc(message), "application/grpc"))).toHaveLength(1);
    expect(unavailable(checkHttp(page(message), false))).toHaveLength(1);
  });

  it("fails a 503 that gives no reason", () => {
    expect(unavailable(checkHttp({ status: 503, headers: {}, body: Buffer.alloc(0) }, false))).toHaveLength(1);
    expect(unavailable(checkGrpc({ status: 503, headers: {}, body: Buffer.from("busy") }, "application/grpc"))).toHaveLength(1);
  });
});
