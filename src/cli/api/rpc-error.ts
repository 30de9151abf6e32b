/**
 * A failed call as the person at the terminal reads it: `arbor: <server message> (gRPC code N NAME)`
 * (the status code, named so that nobody takes it for the exit code, which is 1),
 * then the field and precondition violations the error's details carry, one per line.
 */
import { Code as ConnectCode, type ConnectError } from "@connectrpc/connect";
import { codeName, type Code } from "../../domain/errors.js";
import { BadRequestSchema, PreconditionFailureSchema } from "../../gen/google/rpc/error_details_pb.js";

/** The socket error code (ECONNREFUSED, ...) when the call failed for want of a connection. */
export function unreachableCause(e: ConnectError): string | undefined {
  const cause = (e.cause as { code?: unknown } | undefined)?.code;
  // Connect reports a refused connection as UNAVAILABLE with the socket's error as the cause.
  return e.code === ConnectCode.Unavailable && typeof cause === "string" && /^E[A-Z]+$/.test(cause) ? cause : undefined;
}

/** The lines to print on stderr for a ConnectError (without the trailing newline). */
export function rpcErrorText(e: ConnectError): string {
  const lines = [`arbor: ${e.rawMessage} (${statusText(e.code)})`];
  for (const bad of e.findDetails(BadRequestSchema)) {
    for (const v of bad.fieldViolations) lines.push(`  field ${v.field}: ${v.description}`);
  }
  for (const failure of e.findDetails(PreconditionFailureSchema)) {
    for (const v of failure.violations)
      lines.push(`  precondition ${v.type}${v.subject !== "" ? ` (${v.subject})` : ""}: ${v.description}`);
  }
  return lines.join("\n");
}

/** `gRPC code 5 NOT_FOUND`: how every error line of the CLI names a status code. */
export function statusText(code: number): string {
  return `gRPC code ${code} ${nameOf(code)}`;
}

function nameOf(code: number): string {
  try {
    return codeName(code as Code);
  } catch {
    return "UNKNOWN";
  }
}
