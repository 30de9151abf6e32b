/**
 * The CLI's HTTP calls: JSON answers, errors read from the server's google.rpc.Status, and
 * failures to connect said plainly. Nothing here prints a token.
 */

import { statusText } from "../api/rpc-error.js";

/** A JSON object as the server answers it. */
export type JsonObject = Record<string, unknown>;

/** How long one call may take. */
const TIMEOUT_MS = 30_000;

/**
 * The server answered with an error; code is the google.rpc code when it sent one, oauthError the
 * OAuth `error` (RFC 6749 5.2) when it sent one.
 */
export class ServerError extends Error {
  override readonly name = "ServerError";
  readonly status: number;
  readonly code: number | undefined;
  readonly oauthError: string | undefined;

  constructor(status: number, code: number | undefined, message: string, oauthError?: string) {
    super(message);
    this.status = status;
    this.code = code;
    this.oauthError = oauthError;
  }
}

/** The server could not be reached at all. */
export class UnreachableError extends Error {
  override readonly name = "UnreachableError";
}

/** Calls url and parses its JSON answer; ServerError for an error answer, UnreachableError when nothing answers. */
export async function callJson(url: string, init: RequestInit = {}): Promise<JsonObject> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(TIMEOUT_MS) });
    text = await res.text();
  } catch (e) {
    const cause = (e as Error & { cause?: { code?: string; message?: string } }).cause;
    throw new UnreachableError(`cannot reach ${new URL(url).origin}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  const object = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as JsonObject) : undefined;
  if (res.ok && object !== undefined) return object;
  if (res.ok) throw new ServerError(res.status, undefined, `${new URL(url).pathname} answered something other than JSON`);
  const code = typeof object?.code === "number" ? object.code : undefined;
  const message = typeof object?.message === "string" ? object.message : `HTTP ${res.status}`;
  const oauthError = typeof object?.error === "string" ? object.error : undefined;
  throw new ServerError(res.status, code, code === undefined ? message : `${message} (${statusText(code)})`, oauthError);
}

/** POSTs a form to url; the JSON answer. */
export function postForm(url: string, form: Record<string, string>): Promise<JsonObject> {
  return callJson(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: new URLSearchParams(form),
  });
}

/** GETs url with a bearer token; the JSON answer. */
export function getWithToken(url: string, token: string): Promise<JsonObject> {
  return callJson(url, { headers: { authorization: `Bearer ${token}`, accept: "application/json" } });
}
