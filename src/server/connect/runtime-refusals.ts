/**
 * Refusals the Connect runtime answers by itself, before Arbor's invoker runs (a message that
 * does not decode, a broken frame, a bad grpc-timeout): made into Arbor's errors, each with its
 * ErrorInfo (DESIGN 1.6). The runtime calls undecodable protobuf bytes INTERNAL; they are the
 * caller's fault, so they become INVALID_ARGUMENT naming `body` (found by the fuzzer).
 */
import { toBinary } from "@bufbuild/protobuf";
import { encodeBinaryHeader } from "@connectrpc/connect";
import { codeFromString, codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import type { UniversalServerResponse } from "@connectrpc/connect/protocol";
import { ApiError, Code, invalidArgument } from "../../domain/errors.js";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { toConnectError, toStatus } from "../errors-to-wire.js";

/** What the runtime calls INTERNAL though the request is at fault: bytes that do not decode or decompress. */
const UNDECODABLE = /^(parse binary: |decompression failed|received compressed envelope)/;

/** The runtime's own error, as Arbor answers it. */
function asApiError(code: number, message: string): ApiError {
  if (code === Code.INTERNAL && UNDECODABLE.test(message)) {
    return invalidArgument("body", `the request message cannot be decoded (${message.replace(/^parse binary: /, "")})`);
  }
  return new ApiError(code as Code, message);
}

/** Completes the grpc-status of a set of headers or trailers in place; false when there is nothing to do. */
function completeGrpcStatus(headers: Headers, domain: string): boolean {
  const status = headers.get("grpc-status");
  if (status == null || status === "0" || headers.has("grpc-status-details-bin")) return false;
  const err = asApiError(Number(status), decodeURIComponent(headers.get("grpc-message") ?? ""));
  headers.set("grpc-status", String(err.code));
  headers.set("grpc-message", encodeURIComponent(err.message));
  headers.set("grpc-status-details-bin", encodeBinaryHeader(toBinary(StatusSchema, toStatus(err, domain))));
  return true;
}

/**
 * The response with a runtime refusal completed: gRPC and gRPC-Web get grpc-status-details-bin,
 * Connect gets an error JSON whose details hold the ErrorInfo. Answers Arbor wrote pass unchanged.
 */
export async function completeRuntimeRefusal(res: UniversalServerResponse, domain: string): Promise<UniversalServerResponse> {
  for (const headers of [res.header, res.trailer]) if (headers !== undefined && completeGrpcStatus(headers, domain)) return res;
  const type = res.header?.get("content-type") ?? "";
  if (res.body === undefined || res.header?.has("content-encoding")) return res;
  // gRPC-Web-text is base64 on the wire: its (rare) refusals are left as the runtime wrote them.
  if (type.startsWith("application/grpc-web") && !type.startsWith("application/grpc-web-text")) {
    return { ...res, body: single(await completeWebTrailer(res.body as AsyncIterable<Uint8Array>, domain)) };
  }
  if (res.status === 200 || type !== "application/json") return res;
  const bytes = await readAll(res.body as AsyncIterable<Uint8Array>);
  const body = parseObject(bytes);
  if (body?.code === undefined || body.details !== undefined) return { ...res, body: single(bytes) };
  const err = asApiError(codeFromString(body.code) ?? Code.UNKNOWN, body.message ?? "");
  const completed = errorToJsonBytes(toConnectError(err, domain), {});
  res.header?.set("content-length", String(completed.byteLength));
  return { ...res, status: codeToHttpStatus(err.code as number), body: single(completed) };
}

/**
 * gRPC-Web carries trailers in the body's last frame (flag 0x80). A unary answer is short, so it
 * is read whole; only a body that is the trailer frame alone (an error before any message) can
 * need completing.
 */
async function completeWebTrailer(body: AsyncIterable<Uint8Array>, domain: string): Promise<Uint8Array> {
  const bytes = await readAll(body);
  const flag = bytes[0] ?? 0;
  if (bytes.length < 5 || flag !== 0x80 || bytes.readUInt32BE(1) !== bytes.length - 5) return bytes;
  const trailer = new Headers();
  for (const line of bytes.subarray(5).toString("latin1").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) trailer.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  if (!completeGrpcStatus(trailer, domain)) return bytes;
  let text = "";
  trailer.forEach((value, key) => (text += `${key}: ${value}\r\n`));
  const data = Buffer.from(text, "latin1");
  const head = Buffer.alloc(5);
  head.writeUInt8(0x80, 0);
  head.writeUInt32BE(data.length, 1);
  return Buffer.concat([head, data]);
}

function parseObject(bytes: Buffer): { code?: string; message?: string; details?: unknown[] } | undefined {
  try {
    const value: unknown = JSON.parse(bytes.toString("utf8"));
    return typeof value === "object" && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

async function readAll(body: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* single(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}
