/**
 * What the access log records of one request: the transport handler makes one per request, each
 * stage of the pipeline (the invoker, the OAuth, STS and registry endpoints, reflection) fills in
 * what it learns, and the handler writes it when the response ends (http-handler.ts, `finish`).
 */
import { Code } from "../../domain/errors.js";

export interface RequestLog {
  /** What was asked for: `METHOD /path` of a fixed endpoint, `unmatched`, or the RPC's route. */
  route?: string;
  /** The RPC's full name, for calls. */
  rpc?: string;
  /** The authenticated identity's uid. */
  caller?: string;
  /** The client's address, as the transport saw it (rate limits are kept per address). */
  address?: string;
  /** Set once this request was counted against its address's rate limit (REST counts it on arrival). */
  addressCounted?: boolean;
  /** The outcome as a gRPC code (0 for success). */
  code?: number;
  /** Why a credential was refused: the failed check (a fixed text, never any part of a token). */
  reason?: string;
  /** The cause of an INTERNAL error: logged, never shown to the client. */
  error?: unknown;
}

/** Records a failure's code and, for INTERNAL, its cause (the error itself when it names none). */
export function recordFailure(log: RequestLog, failure: { code: number; cause?: unknown }): void {
  log.code = failure.code;
  if (failure.code === Code.INTERNAL) log.error = failure.cause ?? failure;
}
