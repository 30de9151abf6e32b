/**
 * Small HTTP helpers shared by the handlers: bounded body reading and JSON answers.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import { invalidArgument } from "../../domain/errors.js";
import { NUL_REFUSED } from "./nul-refusal.js";

/** A request of either HTTP version. */
export type AnyRequest = IncomingMessage | Http2ServerRequest;
/** A response of either HTTP version. */
export type AnyResponse = ServerResponse | Http2ServerResponse;

/**
 * Throws INVALID_ARGUMENT naming the first parameter whose name or value holds U+0000, which
 * PostgreSQL cannot store or compare (docs/api.md, "Text"): the endpoints outside the API's
 * invoker (login, token exchange, registry token) refuse it as the API does.
 */
export function refuseNulParams(params: URLSearchParams): URLSearchParams {
  for (const [name, value] of params) {
    if (name.includes("\0") || value.includes("\0")) throw invalidArgument(name.replaceAll("\0", "\\0"), NUL_REFUSED);
  }
  return params;
}

/** A request target's path and its query string (without the "?"; "" when there is none). */
export function splitTarget(req: AnyRequest): { path: string; query: string } {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return q < 0 ? { path: url, query: "" } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

/** The request's query parameters. */
export function queryOf(req: AnyRequest): URLSearchParams {
  return new URLSearchParams(splitTarget(req).query);
}

/** A request header's value (the first, when sent more than once). */
export function header(req: AnyRequest, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The token of an `Authorization: Bearer <token>` header, or undefined when there is none. */
export function bearerToken(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value === undefined ? undefined : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(value)?.[1];
}

/** Whether the request's bearer token is secret, compared in constant time (over digests, so lengths do not leak either). */
export function bearerIs(req: AnyRequest, secret: string): boolean {
  const token = bearerToken(req.headers.authorization);
  if (token === undefined) return false;
  const digest = (s: string) => createHash("sha256").update(s).digest();
  return timingSafeEqual(digest(token), digest(secret));
}

const NO_BODY = Buffer.alloc(0);

/**
 * Reads the whole body, refusing more than limit bytes (INVALID_ARGUMENT naming `body`). An
 * HTTP/1 request that declares no body (neither Content-Length nor Transfer-Encoding, or a
 * Content-Length of 0: RFC 9112, 6.3) has none, and its stream is left unread: iterating an empty
 * stream was about 7 % of an authenticated GET's CPU (bench/findings.md, S1). node:http discards it
 * when the response ends.
 */
export async function readBody(req: AnyRequest, limit: number): Promise<Buffer> {
  const length = req.headers["content-length"];
  if (req.httpVersionMajor === 1 && req.headers["transfer-encoding"] === undefined && (length === undefined || length === "0")) {
    return NO_BODY;
  }
  const declared = Number(length ?? -1);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, size);
}

function tooLarge(limit: number) {
  return invalidArgument("body", `the request body is larger than ${limit} bytes`);
}

/** Answers with a JSON body. */
export function writeJson(res: AnyResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  const r = res as ServerResponse;
  r.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(text)),
    "cache-control": "no-store",
    ...headers,
  });
  r.end(text);
}

/** Answers with plain text. */
export function writeText(res: AnyResponse, status: number, body: string, contentType: string): void {
  const r = res as ServerResponse;
  r.writeHead(status, { "content-type": contentType, "content-length": String(Buffer.byteLength(body)) });
  r.end(body);
}
