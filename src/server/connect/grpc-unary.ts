/**
 * gRPC's common call, a unary RPC in binary protobuf over HTTP/2, served without the general
 * machinery of @connectrpc/connect's router. That machinery streams every call through async
 * iterables, copies the headers into a WHATWG Headers, parses the URL, and aborts two
 * AbortControllers per call, each capturing an AbortError's stack: on S6's load the transport
 * took about half of the server's CPU (docs/benchmarks.md, S6).
 *
 * The path decides from the headers, reads the one message, and answers as Connect's gRPC
 * protocol does (the same headers, message and trailers, the same status details), through the
 * same invoker. Anything it does not handle itself goes to Connect with the bytes read so far:
 * another content type or HTTP version, a compressed or malformed message, a bad grpc-timeout,
 * an unknown grpc-encoding, a message over the size limit. So every refusal keeps the one
 * wording Connect gives it (and runtime-refusals.ts completes). test/e2e/grpc-unary.test.ts holds
 * the two paths to the same answers on the real server; test/server/grpc-unary.test.ts pins which
 * calls the path takes and that what it leaves reaches Connect intact.
 */
import { fromBinary, toBinary, type DescMethod, type Message } from "@bufbuild/protobuf";
import { Code as ConnectCode, ConnectError } from "@connectrpc/connect";
import { compressionNegotiate, type Compression } from "@connectrpc/connect/protocol";
import { parseTimeout, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { errorDomainFor, grpcMessageEncode, toApiError, toConnectError } from "../errors-to-wire.js";
import { recordFailure, type RequestLog } from "../http/request-log.js";
import type { Invoker } from "../invoker.js";
import { COMPRESS_MIN_BYTES, invokeRpc } from "./connect-handlers.js";

export interface GrpcUnaryOptions {
  invoker: Invoker;
  /** The suffix of error domains. */
  domain: string;
  /** The largest request message accepted, in bytes (Connect's readMaxBytes). */
  readMaxBytes: number;
  /** What answers may be compressed with, as the Connect router accepts. */
  acceptCompression: readonly Compression[];
}

/** What serve() did: answered the call, or read part of its body and left the call to Connect. */
export type GrpcUnaryOutcome = { served: true } | { served: false; body: AsyncIterable<Uint8Array> };

/** A call this path serves, decided from its headers alone. */
interface Eligible {
  method: DescMethod;
  timeoutMs: number | undefined;
  /** The compression answers are written with, when the client accepts one. */
  respondWith: Compression | undefined;
}

const GRPC_TYPES = new Set(["application/grpc", "application/grpc+proto"]);
/** Connect's default: no bound of its own on a client's deadline (far-deadline.ts drops those past a timer's reach). */
const MAX_TIMEOUT_MS = Number.MAX_SAFE_INTEGER;
/** A message's frame: a flag byte and a four-byte length. */
const FRAME_HEAD = 5;

export interface GrpcUnary {
  /**
   * The call's method when this path can serve it, judged from the request's headers; undefined
   * leaves the whole call to Connect.
   */
  eligible(
    method: DescMethod,
    req: { httpVersionMajor: number; method?: string; headers: Http2ServerRequest["headers"] },
  ): Eligible | undefined;
  /** Reads the message and answers the call, or hands the call back to Connect with the bytes read. */
  serve(call: Eligible, req: Http2ServerRequest, res: Http2ServerResponse, record: RequestLog): Promise<GrpcUnaryOutcome>;
}

export function createGrpcUnary(options: GrpcUnaryOptions): GrpcUnary {
  const accept = [...options.acceptCompression];
  return {
    eligible(method, req) {
      if (method.methodKind !== "unary" || req.httpVersionMajor !== 2 || req.method !== "POST") return undefined;
      const type = req.headers["content-type"];
      if (type === undefined || !GRPC_TYPES.has(type.toLowerCase())) return undefined;
      const timeout = parseTimeout(headerValue(req.headers["grpc-timeout"]), MAX_TIMEOUT_MS);
      if (timeout.error !== undefined) return undefined;
      const compression = compressionNegotiate(
        accept,
        headerValue(req.headers["grpc-encoding"]),
        headerValue(req.headers["grpc-accept-encoding"]),
        "grpc-accept-encoding",
      );
      if (compression.error !== undefined) return undefined;
      return { method, timeoutMs: timeout.timeoutMs, respondWith: compression.response ?? undefined };
    },

    async serve(call, req, res, record) {
      const read = await readMessage(req, options.readMaxBytes);
      if (read.message === undefined) return { served: false, body: read.body() };
      let request: Message;
      try {
        request = fromBinary(call.method.input, read.message);
      } catch {
        // Connect words the refusal (and runtime-refusals.ts makes it INVALID_ARGUMENT).
        return { served: false, body: read.body() };
      }
      await answer(options, call, request, req, res, record);
      return { served: true };
    },
  };
}

/** A header as WHATWG Headers (and so Connect) reads it: a repeated header's values joined, null when absent. */
function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return typeof value === "string" ? value : value.join(", ");
}

/**
 * The request's one uncompressed message, or (message undefined) the body for Connect: the bytes
 * read, then the rest of the stream. Stops reading as soon as the frame's head declares a
 * message over readMaxBytes (as Connect does), and after readMaxBytes and a frame's head in any
 * case: the rest is left to Connect, which refuses it.
 */
async function readMessage(
  req: Http2ServerRequest,
  readMaxBytes: number,
): Promise<{ message?: Uint8Array; body: () => AsyncIterable<Uint8Array> }> {
  const { chunks, length, complete } = await readFrame(req, readMaxBytes);
  if (!complete) return { body: () => replayThenRest(chunks, req) };
  const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length);
  // Made only for a call left to Connect: a served call never reads it.
  const body = () => replayThenRest(bytes.length > 0 ? [bytes] : [], undefined);
  // One frame, uncompressed, exactly filling the body; anything else is Connect's to refuse.
  if (bytes.length < FRAME_HEAD || bytes[0] !== 0 || bytes.readUInt32BE(1) !== bytes.length - FRAME_HEAD) return { body };
  return { message: bytes.subarray(FRAME_HEAD), body };
}

/**
 * The body's chunks until its end (complete), or until it is known to be over the limit: its
 * frame's head declares more than readMaxBytes, or more than readMaxBytes and a head have come.
 * Then the stream is left paused with the rest unread. Events rather than an async iterator:
 * the iterator cost more than the rest of the reading together (a CPU profile under S6's load).
 */
function readFrame(req: Http2ServerRequest, readMaxBytes: number): Promise<{ chunks: Buffer[]; length: number; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let headChecked = false;
    const settle = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      length += chunk.length;
      if (!headChecked && length >= FRAME_HEAD) {
        headChecked = true;
        const head = chunks.length === 1 ? chunk : Buffer.concat(chunks, length);
        if (head.readUInt32BE(1) <= readMaxBytes && length <= readMaxBytes + FRAME_HEAD) return;
      } else if (length <= readMaxBytes + FRAME_HEAD) {
        return;
      }
      req.pause();
      settle();
      resolve({ chunks, length, complete: false });
    };
    const onEnd = () => {
      settle();
      resolve({ chunks, length, complete: true });
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    // Closed before its end without an error: the client reset the stream.
    const onClose = () => onError(new ConnectError("the client closed the stream", ConnectCode.Canceled));
    req.on("data", onData);
    req.once("end", onEnd);
    req.once("error", onError);
    req.once("close", onClose);
  });
}

/** The chunks already read, then whatever rest still holds. */
async function* replayThenRest(read: readonly Buffer[], rest: AsyncIterable<Buffer> | undefined): AsyncIterable<Uint8Array> {
  yield* read;
  if (rest !== undefined) yield* rest;
}

/** Runs the call through the invoker and writes its answer as Connect's gRPC protocol does. */
async function answer(
  options: GrpcUnaryOptions,
  call: Eligible,
  request: Message,
  req: Http2ServerRequest,
  res: Http2ServerResponse,
  record: RequestLog,
): Promise<void> {
  // Aborted only when the call cannot finish: the client went away, or its deadline passed.
  const controller = new AbortController();
  const onClose = () => {
    if (!res.writableFinished) controller.abort(new ConnectError("the client closed the stream", ConnectCode.Canceled));
  };
  res.once("close", onClose);
  const timer =
    call.timeoutMs === undefined
      ? undefined
      : setTimeout(() => controller.abort(new ConnectError("the operation timed out", ConnectCode.DeadlineExceeded)), call.timeoutMs);
  const headers: { [name: string]: string } = { "content-type": "application/grpc+proto" };
  if (call.respondWith !== undefined) headers["grpc-encoding"] = call.respondWith.name;
  let body: Uint8Array | undefined;
  const trailers: { [name: string]: string } = {};
  try {
    const response = await invokeRpc(
      options,
      call.method,
      request,
      headerValue(req.headers.authorization) ?? undefined,
      controller.signal,
      record,
    );
    body = await frame(toBinary(call.method.output, response), call.respondWith);
    trailers["grpc-status"] = "0";
  } catch (e) {
    // The invoker's failures come as ConnectErrors (invokeRpc); anything else (encoding the
    // answer) failed after it: INTERNAL, with its ErrorInfo like every error Arbor answers.
    let err: ConnectError;
    if (e instanceof ConnectError) {
      err = e;
    } else {
      const failure = toApiError(e);
      recordFailure(record, failure);
      err = toConnectError(failure, errorDomainFor(call.method.parent.typeName, options.domain));
    }
    const status = new Headers();
    setTrailerStatus(status, err);
    status.forEach((value, name) => (trailers[name] = name === "grpc-message" ? grpcMessageEncode(value) : value));
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
  res.off("close", onClose);
  // The client went away meanwhile: nothing to answer (node:http2 would drop the writes anyway).
  if (res.stream.destroyed) return;
  res.writeHead(200, headers);
  res.addTrailers(trailers);
  if (body === undefined) res.end();
  else res.end(body);
}

/** A message framed for the wire, compressed when large enough and the client accepts it. */
async function frame(message: Uint8Array, compression: Compression | undefined): Promise<Uint8Array> {
  const compressed = compression !== undefined && message.byteLength >= COMPRESS_MIN_BYTES;
  const payload = compressed ? await compression.compress(message) : message;
  const framed = Buffer.allocUnsafe(FRAME_HEAD + payload.byteLength);
  framed[0] = compressed ? 1 : 0;
  framed.writeUInt32BE(payload.byteLength, 1);
  framed.set(payload, FRAME_HEAD);
  return framed;
}
