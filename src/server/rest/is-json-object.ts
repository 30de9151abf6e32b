/**
 * The one test for "a JSON object" (not null, not an array) that bodies, their diagnosis and the
 * implied update mask share.
 */
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";

/** Tells whether a JSON value is an object: not null, not an array. */
export function isJsonObject(json: JsonValue | undefined): json is JsonObject {
  return typeof json === "object" && json !== null && !Array.isArray(json);
}
