/**
 * gRPC, gRPC-Web and Connect for every service, through @connectrpc/connect's router, each RPC
 * going through the same invoker as REST; plus gRPC server reflection, which describes them.
 */
import type { DescMethod, Message } from "@bufbuild/protobuf";
import { createConnectRouter, createContextKey, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";
import type { ServiceBinding } from "../../services/service-impl.js";
import type { Invoker } from "../invoker.js";
import { registerReflection } from "./reflection/reflection-service.js";
import { errorDomainFor, toApiError, toConnectError } from "../errors-to-wire.js";
import { recordFailure, type RequestLog } from "../http/request-log.js";

/** Carries the access-log record of a request into the Connect handler. */
export const callRecordKey = createContextKey<RequestLog>({});

/** What a request may be compressed with, and an answer (when large) for a client that accepts it. */
export const ACCEPT_COMPRESSION = [compressionGzip, compressionBrotli];

/** The smallest answer worth compressing for a client that accepts it (a full page of 200 resources is about this size). */
export const COMPRESS_MIN_BYTES = 64 * 1024;

export interface ConnectHandlersOptions {
  services: readonly ServiceBinding[];
  invoker: Invoker;
  /** The suffix of error domains. */
  domain: string;
  /** The largest request message accepted, in bytes. */
  readMaxBytes: number;
}

/** The Connect handlers, by request path (`/<package.Service>/<Method>`). */
export function createConnectHandlers(options: ConnectHandlersOptions): Map<string, UniversalHandler> {
  const router: ConnectRouter = createConnectRouter({
    readMaxBytes: options.readMaxBytes,
    acceptCompression: ACCEPT_COMPRESSION,
    // Compressed requests are always accepted, but answers are compressed only when large: for
    // API-sized messages gzip cost more CPU than the bytes it saved (a profile of S6 in
    // docs/benchmarks.md), and gRPC's own servers do not compress unless told to.
    compressMinBytes: COMPRESS_MIN_BYTES,
    jsonOptions: { ignoreUnknownFields: false },
  });
  for (const binding of options.services) {
    const impl: Record<string, (req: Message, ctx: HandlerContext) => Promise<Message>> = {};
    for (const method of binding.service.methods) {
      impl[method.localName] = (req, ctx) => call(options, method, req, ctx);
    }
    router.service(binding.service, impl as never);
  }
  // Reflection bypasses the invoker on purpose: it serves only the public contract (the same
  // content as proto/ and /openapi.json), never data, and generic tools call it without a token.
  const described = options.services.map((b) => b.service);
  registerReflection(router, described, (ctx) => ctx.values.get(callRecordKey));
  return new Map(router.handlers.map((h) => [h.requestPath, h]));
}

function call(options: ConnectHandlersOptions, method: DescMethod, request: Message, ctx: HandlerContext): Promise<Message> {
  return invokeRpc(
    options,
    method,
    request,
    ctx.requestHeader.get("authorization") ?? undefined,
    ctx.signal,
    ctx.values.get(callRecordKey),
  );
}

/**
 * One RPC through the invoker, as Connect and the gRPC unary path (grpc-unary.ts) both make it:
 * the record gets its code, and a failure is thrown as the ConnectError that goes on the wire.
 */
export async function invokeRpc(
  options: Pick<ConnectHandlersOptions, "invoker" | "domain">,
  method: DescMethod,
  request: Message,
  authorization: string | undefined,
  signal: AbortSignal,
  record: RequestLog,
): Promise<Message> {
  try {
    const response = await options.invoker.invoke({ method, request, authorization, signal, record });
    record.code = 0;
    return response;
  } catch (e) {
    const err = toApiError(e);
    recordFailure(record, err);
    // A refused exchange carries its failed check as a text cause, for the access log.
    if (typeof err.cause === "string") record.reason = err.cause;
    throw toConnectError(err, errorDomainFor(method.parent.typeName, options.domain));
  }
}
