/**
 * A client's deadline can lie further off than Node's timers can wait (2^31 - 1 ms, about 24.8
 * days): gRPC's `grpc-timeout` takes up to 8 digits of hours, Connect's `connect-timeout-ms` up to
 * 10 digits of milliseconds. Handed to a timer, such a deadline overflows to 1 ms and the call
 * fails with DEADLINE_EXCEEDED at once (grpc-js sends a 30-day deadline that way). A deadline that
 * far off is as good as none, so its header is dropped before the call is served.
 */
import type { IncomingHttpHeaders } from "node:http";

/** The longest a Node timer waits, in milliseconds. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

const GRPC_UNIT_MS: Readonly<Record<string, number>> = { H: 3_600_000, M: 60_000, S: 1_000, m: 1, u: 1e-3, n: 1e-6 };

/** Removes grpc-timeout and connect-timeout-ms from headers when they lie beyond MAX_TIMER_MS. */
export function dropFarDeadline(headers: IncomingHttpHeaders): void {
  const grpc = /^(\d{1,8})([HMSmun])$/.exec(String(headers["grpc-timeout"] ?? ""));
  if (grpc !== null && Number(grpc[1]) * (GRPC_UNIT_MS[grpc[2] as string] as number) > MAX_TIMER_MS) delete headers["grpc-timeout"];
  const connect = /^\d{1,10}$/.exec(String(headers["connect-timeout-ms"] ?? ""));
  if (connect !== null && Number(connect[0]) > MAX_TIMER_MS) delete headers["connect-timeout-ms"];
}
