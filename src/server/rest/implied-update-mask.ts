/**
 * The update mask a PATCH without one implies, as grpc-gateway derives it: the fields present in
 * the JSON body, so that the fields sent change and the others keep their values (DESIGN 1.5).
 */
import { getOption, type DescField, type DescMessage, type JsonObject } from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import { FieldBehavior, field_behavior } from "../../gen/google/api/field_behavior_pb.js";
import { findField } from "./field-path.js";
import { isJsonObject } from "./is-json-object.js";

/**
 * The proto-name paths of the keys of a body already accepted for schema, in body order. A nested
 * message's keys become dotted paths (`claim_match.issuer`); maps, lists, well-known types, null
 * and an empty object count as one path each, since they replace the field as a whole. (Unlike
 * grpc-gateway, which drops an empty object, `{"claimMatch": {}}` names `claim_match`: the
 * caller sent it.) Fields the server sets (OUTPUT_ONLY, IDENTIFIER) are left out: AIP-203 has
 * them ignored in input, so a client may PATCH back the resource it read.
 */
export function impliedUpdateMask(schema: DescMessage, body: JsonObject): string[] {
  const paths: string[] = [];
  collect(schema, body, "", paths);
  return paths;
}

function collect(schema: DescMessage, json: JsonObject, prefix: string, paths: string[]): void {
  for (const [key, value] of Object.entries(json)) {
    const field = findField(schema, key);
    if (field === undefined) throw new Error(`${key} is not a field of ${schema.typeName}; validate the body first`);
    if (serverSet(field)) continue;
    const path = prefix + field.name;
    const nested = field.fieldKind === "message" && !hasCustomJsonRepresentation(field.message);
    if (nested && isJsonObject(value) && Object.keys(value).length > 0) collect(field.message, value, `${path}.`, paths);
    else paths.push(path);
  }
}

function serverSet(field: DescField): boolean {
  const behaviors = getOption(field, field_behavior);
  return behaviors.includes(FieldBehavior.OUTPUT_ONLY) || behaviors.includes(FieldBehavior.IDENTIFIER);
}
