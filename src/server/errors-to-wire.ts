/**
 * The single mapping of errors to the wire (DESIGN 1.6). Every error on every transport is a
 * google.rpc.Status with exactly one ErrorInfo, plus the detail that fits its kind.
 */
import { create, createRegistry, toJson, type DescMessage, type JsonObject, type Message } from "@bufbuild/protobuf";
import { anyPack, durationFromMs } from "@bufbuild/protobuf/wkt";
import { ConnectError, type Code as ConnectCode } from "@connectrpc/connect";
import { ApiError, Code, codeName, internal, isApiError } from "../domain/errors.js";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  ResourceInfoSchema,
  RetryInfoSchema,
} from "../gen/google/rpc/error_details_pb.js";
import { StatusSchema, type Status } from "../gen/google/rpc/status_pb.js";

/** HTTP status for each code, as gRPC gateways map them. */
export const HTTP_STATUS: Readonly<Record<number, number>> = {
  [Code.CANCELLED]: 499,
  [Code.UNKNOWN]: 500,
  [Code.INVALID_ARGUMENT]: 400,
  [Code.DEADLINE_EXCEEDED]: 504,
  [Code.NOT_FOUND]: 404,
  [Code.ALREADY_EXISTS]: 409,
  [Code.PERMISSION_DENIED]: 403,
  [Code.RESOURCE_EXHAUSTED]: 429,
  [Code.FAILED_PRECONDITION]: 400,
  [Code.ABORTED]: 409,
  [Code.OUT_OF_RANGE]: 400,
  [Code.UNIMPLEMENTED]: 501,
  [Code.INTERNAL]: 500,
  [Code.UNAVAILABLE]: 503,
  [Code.DATA_LOSS]: 500,
  [Code.UNAUTHENTICATED]: 401,
};

/**
 * An error whose HTTP status is not the one its code maps to: a body of another media type is
 * INVALID_ARGUMENT like every bad input (code 3 on every transport), but REST answers it 415, the
 * status HTTP clients know to mean "send another Content-Type".
 */
export class HttpStatusError extends ApiError {
  readonly httpStatus: number;

  constructor(httpStatus: number, err: ApiError) {
    super(err.code, err.message, err.details, { cause: err.cause });
    this.httpStatus = httpStatus;
  }
}

/** The HTTP status of an error on REST: its own when it has one, else its code's. */
export function httpStatusOf(err: ApiError): number {
  return err instanceof HttpStatusError ? err.httpStatus : (HTTP_STATUS[err.code] ?? 500);
}

const detailRegistry = createRegistry(ErrorInfoSchema, BadRequestSchema, PreconditionFailureSchema, ResourceInfoSchema, RetryInfoSchema);

/**
 * Any thrown value as an ApiError: ApiErrors pass through, a ConnectError raised by the Connect
 * runtime keeps its code and message, and anything else is INTERNAL with nothing revealed.
 */
export function toApiError(e: unknown): ApiError {
  if (isApiError(e)) return e;
  if (e instanceof ConnectError) return new ApiError(e.code as number as Code, e.rawMessage, {}, { cause: e });
  return internal(e);
}

/** The error domain for an RPC's package or a route: `iam.<domain>`, `registry.<domain>`, ... */
export function errorDomainFor(typeNameOrPath: string, domain: string): string {
  const m = /(?:^arbor\.|^\/)(iam|registry|vulnerabilities)[./]/.exec(typeNameOrPath);
  return `${m?.[1] ?? "iam"}.${domain}`;
}

/** One detail: its type and its message. */
interface Detail {
  desc: DescMessage;
  value: Message;
}

/** The detail messages of an error, ErrorInfo first. */
function details(err: ApiError, domain: string): Detail[] {
  const d = err.details;
  const out: Detail[] = [
    { desc: ErrorInfoSchema, value: create(ErrorInfoSchema, { reason: codeName(err.code), domain, metadata: d.metadata ?? {} }) },
  ];
  if (d.fieldViolations?.length) {
    out.push({ desc: BadRequestSchema, value: create(BadRequestSchema, { fieldViolations: d.fieldViolations }) });
  }
  if (d.preconditionViolations?.length) {
    out.push({ desc: PreconditionFailureSchema, value: create(PreconditionFailureSchema, { violations: d.preconditionViolations }) });
  }
  if (d.resource) {
    out.push({ desc: ResourceInfoSchema, value: create(ResourceInfoSchema, d.resource) });
  }
  if (d.retryDelayMs !== undefined) {
    out.push({ desc: RetryInfoSchema, value: create(RetryInfoSchema, { retryDelay: durationFromMs(d.retryDelayMs) }) });
  }
  return out;
}

/** The google.rpc.Status of an error. */
export function toStatus(err: ApiError, domain: string): Status {
  const packed = details(err, domain).map((d) => anyPack(d.desc, d.value));
  return create(StatusSchema, { code: err.code, message: err.message, details: packed });
}

/** The JSON body REST answers with: `code`, `message`, `details[]` with `@type` (first, as people read it). */
export function statusJson(err: ApiError, domain: string): JsonObject {
  const json = toJson(StatusSchema, toStatus(err, domain), { registry: detailRegistry }) as JsonObject;
  const details = (json.details ?? []) as JsonObject[];
  return { ...json, details: details.map(({ "@type": type, ...rest }) => ({ "@type": type ?? null, ...rest })) };
}

/** The error as Connect raises it: gRPC puts the details in grpc-status-details-bin. */
export function toConnectError(err: ApiError, domain: string): ConnectError {
  return new ConnectError(err.message, err.code as number as ConnectCode, undefined, details(err, domain), err);
}

/**
 * Re-encodes a grpc-message value as the gRPC spec asks: only bytes outside printable ASCII and
 * `%` are percent-encoded. Connect encodes more (`/`, `:`), which @grpc/grpc-js then shows
 * verbatim.
 */
export function grpcMessageEncode(connectEncoded: string): string {
  let text: string;
  try {
    text = decodeURIComponent(connectEncoded);
  } catch {
    return connectEncoded;
  }
  let out = "";
  for (const byte of Buffer.from(text, "utf8")) {
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  return out;
}
