/**
 * The invariants every answer must keep, whatever was sent: no 5xx but a deliberate 503 (an
 * UNAVAILABLE that says the store or an identity provider cannot be reached), every
 * REST error a google.rpc.Status whose code maps to the HTTP status (DESIGN 1.6) with exactly one
 * ErrorInfo naming the code, and every gRPC answer a valid grpc-status (never 2, 13 or 15) whose
 * details, when sent, agree with it.
 */
import { fromBinary } from "@bufbuild/protobuf";
import { Code, codeName } from "../../../src/domain/errors.js";
import { StatusSchema } from "../../../src/gen/google/rpc/status_pb.js";
import { HTTP_STATUS } from "../../../src/server/errors-to-wire.js";
import { codeFromString, codeToHttpStatus } from "@connectrpc/connect/protocol-connect";
import type { GrpcAnswer, HttpAnswer } from "./send.js";

/** Codes that mean the server failed, not the request. */
const SERVER_FAULTS = new Set<Code>([Code.UNKNOWN, Code.INTERNAL, Code.DATA_LOSS]);

/** Problems with an answer, empty when it keeps every invariant. */
export type Problems = string[];

/**
 * The UNAVAILABLE answers Arbor gives on purpose: its store cannot be reached (down, or too busy
 * to answer within its timeouts: an outage or an overload) or an identity provider cannot be (an
 * upstream outage). "The server is shutting down" is deliberate too, but nothing shuts the
 * server down during a campaign, so there it is a fault like any other UNAVAILABLE.
 */
const DELIBERATE_UNAVAILABLE =
  /^Unavailable: (the store cannot be reached|the identity provider cannot be reached; try again later|the identity provider's token endpoint answered \d+; try again later)$/;

/** Problems with an UNAVAILABLE answer (a 503, or gRPC status 14) given its message. */
export function checkUnavailable(message: string | undefined): Problems {
  if (message !== undefined && DELIBERATE_UNAVAILABLE.test(message)) return [];
  return [`UNAVAILABLE that is no overload or outage answer: ${JSON.stringify(message ?? null).slice(0, 200)}`];
}

/**
 * The message of an error body in any of the server's formats: a google.rpc.Status or Connect
 * error (`message`), the registry token endpoint's (`errors[0].message`), or a login page (`<p>`).
 */
export function errorMessage(body: Buffer): string | undefined {
  const text = body.toString("utf8");
  try {
    const json = JSON.parse(text) as { message?: unknown; errors?: { message?: unknown }[] };
    const message = json.message ?? json.errors?.[0]?.message;
    return typeof message === "string" ? message : undefined;
  } catch {
    const paragraph = /<p>([^<]*)<\/p>/.exec(text)?.[1];
    return paragraph?.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n)));
  }
}

/** Checks a REST or fixed-endpoint answer; `statusBodies` false for endpoints with their own error format (OAuth). */
export function checkHttp(a: HttpAnswer, statusBodies: boolean): Problems {
  const status = a.status ?? 0;
  const problems: Problems = [];
  if (status >= 500 && status !== 503) problems.push(`HTTP ${status}`);
  // A Status body's 503 is checked with its code below; other formats here, by their message.
  if (status === 503 && !statusBodies) problems.push(...checkUnavailable(errorMessage(a.body)));
  if (!statusBodies || status < 400) return problems;
  // Node's own parser answers headers it will not read (431, 400 on a malformed request) before any handler runs.
  if (a.headers["content-type"] === undefined && a.body.length === 0 && (status === 431 || status === 400 || status === 413))
    return problems;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(a.body.toString("utf8")) as Record<string, unknown>;
  } catch {
    return [...problems, `HTTP ${status} with a body that is not JSON: ${a.body.subarray(0, 200).toString()}`];
  }
  return [...problems, ...checkStatusJson(status, body)];
}

/** Checks a google.rpc.Status JSON body against the HTTP status it came with. */
export function checkStatusJson(status: number, body: Record<string, unknown>): Problems {
  const problems: Problems = [];
  const code = body.code;
  if (typeof code !== "number" || !Number.isInteger(code) || code < 1 || code > 16)
    return [`HTTP ${status} without a valid code: ${JSON.stringify(body).slice(0, 300)}`];
  if (SERVER_FAULTS.has(code as Code)) problems.push(`code ${codeName(code as Code)}: ${String(body.message)}`);
  if (code === Code.UNAVAILABLE) problems.push(...checkUnavailable(typeof body.message === "string" ? body.message : undefined));
  // 405 carries UNIMPLEMENTED (a known path under another method), 415 INVALID_ARGUMENT (a body
  // that is not declared JSON); every other status is the code's.
  const own = (status === 405 && code === Code.UNIMPLEMENTED) || (status === 415 && code === Code.INVALID_ARGUMENT);
  const expected = own ? status : HTTP_STATUS[code as Code];
  if (expected !== status) problems.push(`HTTP ${status} for code ${codeName(code as Code)} (expected ${expected})`);
  if (typeof body.message !== "string" || body.message === "") problems.push("no message");
  const details = body.details;
  if (!Array.isArray(details)) return [...problems, "no details array"];
  const infos = details.filter((d: Record<string, unknown>) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo") as Record<
    string,
    unknown
  >[];
  if (infos.length !== 1) problems.push(`${infos.length} ErrorInfo details`);
  else if (infos[0]?.reason !== codeName(code as Code))
    problems.push(`ErrorInfo reason ${String(infos[0]?.reason)} for code ${codeName(code as Code)}`);
  if (typeof body.message === "string" && /\bat [\w.<>]+ \(|SQLITE_|syntax error|relation "|node_modules/.test(body.message))
    problems.push(`internals in the message: ${body.message}`);
  return problems;
}

/**
 * Checks a Connect answer: an error is Connect's error JSON whose details hold one ErrorInfo, at
 * the HTTP status Connect gives its code. 405 and 415 without a body are the protocol's own
 * answers to a request that is not a Connect call at all.
 */
export function checkConnect(a: HttpAnswer): Problems {
  const status = a.status ?? 0;
  if (status === 200) return [];
  if ((status === 405 || status === 415) && a.body.length === 0) return [];
  const problems: Problems = status >= 500 && status !== 503 ? [`HTTP ${status}`] : [];
  let body: { code?: string; message?: string; details?: { type?: string }[] };
  try {
    body = JSON.parse(a.body.toString("utf8")) as typeof body;
  } catch {
    return [...problems, `HTTP ${status} with a body that is not JSON`];
  }
  const code = codeFromString(body.code ?? "");
  if (code === undefined) return [...problems, `no valid code: ${JSON.stringify(body).slice(0, 300)}`];
  if (SERVER_FAULTS.has(code as Code)) problems.push(`code ${body.code}: ${String(body.message)}`);
  if ((code as number) === Code.UNAVAILABLE) problems.push(...checkUnavailable(body.message));
  if (codeToHttpStatus(code) !== status) problems.push(`HTTP ${status} for ${body.code}`);
  if ((body.details ?? []).filter((d) => d.type === "google.rpc.ErrorInfo").length !== 1)
    problems.push(`no single ErrorInfo: ${JSON.stringify(body).slice(0, 300)}`);
  return problems;
}

/** The trailers of a gRPC-Web body (its last frame, flagged 0x80), merged into headers. */
function withWebTrailers(a: GrpcAnswer): GrpcAnswer["headers"] {
  const headers = { ...a.headers };
  let i = 0;
  while (i + 5 <= a.body.length) {
    const flag = a.body.readUInt8(i);
    const length = a.body.readUInt32BE(i + 1);
    if (flag & 0x80) {
      for (const line of a.body
        .subarray(i + 5, i + 5 + length)
        .toString("latin1")
        .split("\r\n")) {
        const colon = line.indexOf(":");
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
    }
    i += 5 + length;
  }
  return headers;
}

/** Checks a gRPC (or gRPC-Web) answer. */
export function checkGrpc(answer: GrpcAnswer, contentType: string): Problems {
  const problems: Problems = [];
  const grpcish = contentType.startsWith("application/grpc");
  const a = contentType.startsWith("application/grpc-web") ? { ...answer, headers: withWebTrailers(answer) } : answer;
  if (a.status >= 500 && a.status !== 503) problems.push(`HTTP ${a.status}`);
  const raw = a.headers["grpc-status"];
  if (!grpcish || a.status !== 200) {
    // Not a gRPC request (or refused before gRPC began): an HTTP refusal, never a server error.
    if (a.status !== 200 && a.status < 400) problems.push(`HTTP ${a.status} for a refused call`);
    if (a.status === 503) problems.push(...checkUnavailable(errorMessage(a.body)));
    return problems;
  }
  const code = Number(raw);
  if (raw === undefined || !Number.isInteger(code) || code < 0 || code > 16) return [...problems, `grpc-status ${String(raw)}`];
  const message = percentDecoded(String(a.headers["grpc-message"] ?? ""));
  if (SERVER_FAULTS.has(code as Code)) problems.push(`grpc-status ${codeName(code as Code)}: ${message}`);
  if (code === Code.UNAVAILABLE) problems.push(...checkUnavailable(message));
  const details = a.headers["grpc-status-details-bin"];
  if (typeof details === "string") {
    try {
      const s = fromBinary(StatusSchema, Buffer.from(details, "base64"));
      if (s.code !== code) problems.push(`grpc-status-details-bin code ${s.code} for grpc-status ${code}`);
      if (s.details.filter((d) => d.typeUrl.endsWith("google.rpc.ErrorInfo")).length !== 1)
        problems.push("details without exactly one ErrorInfo");
    } catch (e) {
      problems.push(`grpc-status-details-bin does not decode: ${(e as Error).message}`);
    }
  } else if (code !== 0) {
    problems.push(`grpc-status ${codeName(code as Code)} without details`);
  }
  return problems;
}

/** A grpc-message as sent before percent-encoding; as it came when it is not valid encoding. */
function percentDecoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
