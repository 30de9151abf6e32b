/**
 * JSON request bodies: bytes to a JSON value, and a JSON value to a message, with every failure
 * an INVALID_ARGUMENT that names the field (relative to the body) and says what is wrong.
 */
import { fromJson, type DescMessage, type JsonValue, type MessageShape } from "@bufbuild/protobuf";
import { invalidArgument } from "../../domain/errors.js";
import { findDuplicateKey } from "./duplicate-keys.js";
import { isJsonObject } from "./is-json-object.js";
import { diagnoseJson } from "./json-diagnosis.js";

/** The deepest nesting of objects and arrays a body may have. */
export const MAX_BODY_DEPTH = 32;

// Stateless in one-shot mode (no `stream` option), so one instance serves every request.
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** Tells whether a body is absent, empty or only JSON whitespace. */
export function isBlankBody(body: Uint8Array | undefined): boolean {
  if (body === undefined) return true;
  for (const b of body) {
    if (b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) return false;
  }
  return true;
}

/** Tells whether a body is `{}`, with JSON whitespace around and inside it. */
export function isEmptyJsonObject(body: Uint8Array | undefined): boolean {
  return body !== undefined && /^[ \t\r\n]*\{[ \t\r\n]*\}[ \t\r\n]*$/.test(Buffer.from(body).toString("latin1"));
}

/**
 * The JSON value of a body, or undefined for a blank one. INVALID_ARGUMENT `body` when it is not
 * UTF-8, not JSON, or nests deeper than MAX_BODY_DEPTH, and naming the key when an object gives
 * one key twice.
 */
export function readJsonBody(body: Uint8Array | undefined): JsonValue | undefined {
  if (body === undefined || isBlankBody(body)) return undefined;
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw invalidArgument("body", "is not valid UTF-8");
  }
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
  } catch (e) {
    // V8's reason is short and names only positions and the caller's own text.
    throw invalidArgument("body", `malformed JSON: ${(e as Error).message.slice(0, 120)}`);
  }
  if (depthExceeds(json, MAX_BODY_DEPTH)) throw invalidArgument("body", `nests deeper than ${MAX_BODY_DEPTH} levels`);
  refuseDuplicateKeys(text);
  return json;
}

/** INVALID_ARGUMENT naming the first key an object of text gives twice (JSON.parse would keep the last). */
export function refuseDuplicateKeys(text: string): void {
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) throw invalidArgument(duplicate, "is given twice in the JSON object");
}

/**
 * The message a JSON body stands for. protobuf-es's fromJson converts (it takes proto and JSON
 * names, and refuses unknown fields); when it refuses, diagnoseJson finds the field to name, so
 * the happy path pays for one conversion only and no protobuf-es text reaches the caller.
 */
export function messageFromJsonBody<Desc extends DescMessage>(schema: Desc, json: JsonValue): MessageShape<Desc> {
  if (!isJsonObject(json)) throw invalidArgument("body", "must be a JSON object");
  try {
    return fromJson(schema, json);
  } catch {
    const violation = diagnoseJson(schema, json);
    throw invalidArgument(violation?.field || "body", violation?.description ?? "is not a valid request body");
  }
}

function depthExceeds(json: JsonValue, limit: number): boolean {
  if (typeof json !== "object" || json === null) return false;
  if (limit === 0) return true;
  const children = Array.isArray(json) ? json : Object.values(json);
  return children.some((child) => depthExceeds(child, limit - 1));
}
