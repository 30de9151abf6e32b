/**
 * Hostile calls for every RPC of the service descriptors: Connect (JSON and binary over
 * HTTP/1.1) and gRPC (HTTP/2, length-prefixed frames of random or protobuf-shaped bytes, frames
 * that lie about their length or compression).
 */
import type { DescMethod } from "@bufbuild/protobuf";
import fc from "fast-check";
import { anyJson, badUtf8, brokenJson, deepJson } from "./hostile-values.js";
import { messageValue } from "./message-values.js";
import { authorizationArb, type CaseContext, type HttpCase } from "./rest-cases.js";

/** One gRPC call over HTTP/2. */
export interface GrpcCase {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  target: string;
}

/** The request path of a method, as every RPC transport names it. */
export function rpcPath(method: DescMethod): string {
  return `/${method.parent.typeName}/${method.name}`;
}

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n >>> 0;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** Bytes that look like protobuf: fields with random numbers and wire types, lengths that may lie. */
const protobufish: fc.Arbitrary<Buffer> = fc
  .array(
    fc.record({
      field: fc.integer({ min: 1, max: 20 }),
      wire: fc.constantFrom(0, 1, 2, 2, 2, 3, 4, 5, 6, 7),
      payload: fc.uint8Array({ maxLength: 24 }),
      lie: fc.integer({ min: -3, max: 1_000_000 }),
    }),
    { maxLength: 6 },
  )
  .map((fields) => {
    const bytes: number[] = [];
    for (const f of fields) {
      bytes.push(...varint((f.field << 3) | f.wire));
      if (f.wire === 0) bytes.push(...varint(f.payload.length * 1_000_003));
      else if (f.wire === 2) bytes.push(...varint(f.lie < 0 ? f.payload.length : f.lie % 3 === 0 ? f.lie : f.payload.length), ...f.payload);
      else bytes.push(...f.payload.slice(0, f.wire === 1 ? 8 : 4));
    }
    return Buffer.from(bytes);
  });

/** A gRPC message frame around payload; sometimes with a false length or compressed flag. */
function frame(payload: Buffer, kind: string): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(kind === "compressed" ? 1 : kind === "bad-flag" ? 0x80 : 0, 0);
  const length =
    kind === "long"
      ? payload.length + 100
      : kind === "short" && payload.length > 0
        ? payload.length - 1
        : kind === "huge"
          ? 0x7fffffff
          : payload.length;
  head.writeUInt32BE(length >>> 0, 1);
  if (kind === "truncated-header") return head.subarray(0, 3);
  if (kind === "two") return Buffer.concat([head, payload, head, payload]);
  return Buffer.concat([head, payload]);
}

/** A hostile gRPC call of method. */
export function grpcCaseArb(method: DescMethod, c: CaseContext): fc.Arbitrary<GrpcCase> {
  return fc
    .record({
      payload: fc.oneof(
        protobufish,
        fc.uint8Array({ maxLength: 200 }).map((b) => Buffer.from(b)),
        fc.constant(Buffer.alloc(0)),
      ),
      kind: fc.constantFrom("ok", "ok", "ok", "ok", "compressed", "bad-flag", "long", "short", "huge", "truncated-header", "two"),
      auth: authorizationArb(c),
      contentType: fc.constantFrom(
        "application/grpc",
        "application/grpc",
        "application/grpc+proto",
        "application/grpc+json",
        "application/grpc-web",
        "application/grpc; x",
        "text/plain",
      ),
      encoding: fc.constantFrom(undefined, undefined, "gzip", "br", "snappy"),
      timeout: fc.constantFrom(undefined, undefined, "1n", "1S", "99999999H", "bogus"),
    })
    .map(({ payload, kind, auth, contentType, encoding, timeout }) => {
      const headers: Record<string, string> = { "content-type": contentType, te: "trailers" };
      if (typeof auth === "string") headers.authorization = auth;
      if (encoding !== undefined) headers["grpc-encoding"] = encoding;
      if (timeout !== undefined) headers["grpc-timeout"] = timeout;
      return { path: rpcPath(method), headers, body: frame(payload, kind), target: `grpc ${rpcPath(method)}` };
    });
}

/** A hostile Connect unary call of method over HTTP/1.1: JSON shaped like the request, or bytes. */
export function connectCaseArb(method: DescMethod, c: CaseContext): fc.Arbitrary<HttpCase> {
  const json = (a: fc.Arbitrary<unknown>) => a.map((v) => Buffer.from(JSON.stringify(v) ?? "null"));
  const body = fc.oneof(
    { weight: 6, arbitrary: json(messageValue(method.input, c.known)).map((b) => ["application/json", b] as const) },
    { weight: 1, arbitrary: json(anyJson).map((b) => ["application/json", b] as const) },
    { weight: 1, arbitrary: brokenJson.map((s) => ["application/json", Buffer.from(s)] as const) },
    { weight: 1, arbitrary: badUtf8.map((b) => ["application/json", b] as const) },
    { weight: 1, arbitrary: deepJson.map((s) => ["application/json", Buffer.from(s)] as const) },
    { weight: 3, arbitrary: protobufish.map((b) => ["application/proto", b] as const) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom("text/plain", "application/connect+json", "application/xml", ""), fc.uint8Array({ maxLength: 50 }))
        .map(([t, b]) => [t, Buffer.from(b)] as const),
    },
  );
  return fc
    .record({
      body,
      auth: authorizationArb(c),
      version: fc.constantFrom(undefined, "1", "1", "2"),
      method: fc.constantFrom("POST", "POST", "POST", "GET", "PUT"),
    })
    .map(({ body: [contentType, bytes], auth, version, method: httpMethod }) => {
      const headers: Record<string, string | string[]> = { "content-type": contentType };
      if (auth !== undefined) headers.authorization = auth;
      if (version !== undefined) headers["connect-protocol-version"] = version;
      return { method: httpMethod, path: rpcPath(method), headers, body: bytes, target: `connect ${rpcPath(method)}` };
    });
}
