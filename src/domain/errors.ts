/**
 * Errors as typed values. Domain, store and service code throw ApiError; only server/ turns one
 * into a google.rpc.Status on the wire (see server/errors-to-wire.ts).
 */
import { reasonSentence, type ReasonParams, type UnauthenticatedReason } from "./unauthenticated-reasons.js";

/** The gRPC status codes Arbor answers with (google.rpc.Code). */
export const Code = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** One of the codes above. */
export type Code = (typeof Code)[keyof typeof Code];

/** The name of a code, as ErrorInfo.reason carries it. */
export type CodeName = keyof typeof Code;

/** A field that failed validation (google.rpc.BadRequest.FieldViolation). */
export interface FieldViolation {
  field: string;
  description: string;
}

/** A precondition that failed (google.rpc.PreconditionFailure.Violation). */
export interface PreconditionViolation {
  type: string;
  subject: string;
  description: string;
}

/** The resource an error is about (google.rpc.ResourceInfo). */
export interface ResourceInfo {
  resourceType: string;
  resourceName: string;
}

/** Everything an ApiError carries besides its code and message. */
export interface ApiErrorDetails {
  fieldViolations?: FieldViolation[];
  preconditionViolations?: PreconditionViolation[];
  resource?: ResourceInfo;
  metadata?: Record<string, string>;
  retryDelayMs?: number;
}

/** An error meant for the caller: a code, a message in the house form, and typed details. */
export class ApiError extends Error {
  override readonly name = "ApiError";
  readonly code: Code;
  readonly details: ApiErrorDetails;

  constructor(code: Code, message: string, details: ApiErrorDetails = {}, options?: ErrorOptions) {
    super(message, options);
    this.code = code;
    this.details = details;
  }
}

/** Tells whether a value is an ApiError. */
export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** The name of a code (`INVALID_ARGUMENT` for 3). */
export function codeName(code: Code): CodeName {
  for (const [name, value] of Object.entries(Code)) {
    if (value === code) return name as CodeName;
  }
  throw new RangeError(`not a status code: ${code}`);
}

/** `Invalid argument: <field>: <description>` with a BadRequest naming the field. */
export function invalidArgument(field: string, description: string): ApiError {
  return new ApiError(Code.INVALID_ARGUMENT, `Invalid argument: ${field}: ${description}`, {
    fieldViolations: [{ field, description }],
  });
}

/** `Precondition failed: <description>` with a PreconditionFailure of the given type. */
export function failedPrecondition(type: string, subject: string, description: string): ApiError {
  return failedPreconditions(description, [{ type, subject, description }]);
}

/** `Precondition failed: <description>`, description summing up several violations, each its own entry. */
export function failedPreconditions(description: string, violations: PreconditionViolation[]): ApiError {
  return new ApiError(Code.FAILED_PRECONDITION, `Precondition failed: ${description}`, { preconditionViolations: violations });
}

/** `Not found: <resource> <uid>` with a ResourceInfo. */
export function notFound(resourceType: string, uid: string): ApiError {
  return new ApiError(Code.NOT_FOUND, `Not found: ${resourceType} ${uid}`, {
    resource: { resourceType, resourceName: uid },
  });
}

/** `Already exists: <what>`. */
export function alreadyExists(what: string, resource?: ResourceInfo): ApiError {
  return new ApiError(Code.ALREADY_EXISTS, `Already exists: ${what}`, resource ? { resource } : {});
}

/** `Permission denied: <what>`. */
export function permissionDenied(what: string): ApiError {
  return new ApiError(Code.PERMISSION_DENIED, `Permission denied: ${what}`);
}

/**
 * An UNAUTHENTICATED error: `Unauthenticated: <why>`, where why is the sentence of its reason
 * code. Code that must tell refusals apart reads reason; code that shows the sentence elsewhere (a
 * WWW-Authenticate challenge, a log line, an exchange check) reads why, never the message.
 */
export class UnauthenticatedError extends ApiError {
  readonly reason: UnauthenticatedReason;
  readonly why: string;

  constructor(reason: UnauthenticatedReason, why: string, options?: ErrorOptions) {
    super(Code.UNAUTHENTICATED, `Unauthenticated: ${why}`, {}, options);
    this.reason = reason;
    this.why = why;
  }
}

/** `Unauthenticated: <the reason's sentence>`. */
export function unauthenticated<R extends UnauthenticatedReason>(reason: R, ...params: ReasonParams<R>): UnauthenticatedError {
  return new UnauthenticatedError(reason, reasonSentence(reason, ...params));
}

/** `Unavailable: <why>`, for a store that cannot be reached. */
export function unavailable(why: string, cause?: unknown): ApiError {
  return new ApiError(Code.UNAVAILABLE, `Unavailable: ${why}`, {}, { cause });
}

/** `Internal error`, revealing nothing; the cause is kept for the log only. */
export function internal(cause?: unknown): ApiError {
  return new ApiError(Code.INTERNAL, "Internal error", {}, { cause });
}
