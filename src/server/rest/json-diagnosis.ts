/**
 * Why protobuf-es refused a JSON value for a message: the first offending field, as a path in
 * JSON names relative to the body (`claimMatch.issuer`, `ids[2]`, `resourceLimits["x"]`), and
 * what it must be. Run only after fromJson failed, so it may be thorough rather than fast.
 *
 * Paths are relative to the body because the body is the resource: a PATCH of a group reports
 * `name`, not `group.name`, matching the paths of the update mask.
 */
import { fromJson, ScalarType, type DescField, type DescMessage, type DescOneof, type JsonValue } from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import type { FieldViolation } from "../../domain/errors.js";
import { findField } from "./field-path.js";
import { isJsonObject } from "./is-json-object.js";
import { parseScalarText, valueRequirement, valueTypeOf } from "./text-value.js";

/** The first field of json that fromJson cannot take for schema, or undefined when none is found. */
export function diagnoseJson(schema: DescMessage, json: JsonValue): FieldViolation | undefined {
  return checkMessage(schema, json, "");
}

function checkMessage(schema: DescMessage, json: JsonValue, path: string): FieldViolation | undefined {
  if (hasCustomJsonRepresentation(schema)) {
    return accepts(schema, json) ? undefined : violation(path, valueRequirement({ kind: "message", desc: schema }, textOf(json)));
  }
  if (!isJsonObject(json)) return violation(path, "must be an object");
  const seen = new Set<DescField>();
  const oneofs = new Map<DescOneof, DescField>();
  for (const [key, value] of Object.entries(json)) {
    const field = findField(schema, key);
    if (field === undefined) return violation(join(path, key), "unknown field");
    const at = join(path, field.jsonName);
    if (seen.has(field)) return violation(at, "is given twice, by its proto name and its JSON name");
    seen.add(field);
    // As in fromJson, a null scalar does not select its oneof member.
    if (field.oneof !== undefined && !(field.fieldKind === "scalar" && value === null)) {
      const other = oneofs.get(field.oneof);
      if (other !== undefined) return violation(at, `cannot be set together with ${other.jsonName}`);
      oneofs.set(field.oneof, field);
    }
    const found = value === null ? undefined : checkField(schema, field, value, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

function checkField(schema: DescMessage, field: DescField, value: JsonValue, at: string): FieldViolation | undefined {
  switch (field.fieldKind) {
    case "message":
      return checkMessage(field.message, value, at);
    case "list": {
      if (!Array.isArray(value)) return violation(at, "must be an array");
      for (let i = 0; i < value.length; i++) {
        const found = checkItem(schema, field, value[i] ?? null, `${at}[${i}]`, [value[i] ?? null]);
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case "map": {
      if (!isJsonObject(value)) return violation(at, "must be an object");
      for (const [key, item] of Object.entries(value)) {
        const itemAt = `${at}[${JSON.stringify(key)}]`;
        if (field.mapKey !== ScalarType.STRING && parseScalarText(field.mapKey, key) === undefined) {
          return violation(itemAt, `has a key that ${valueRequirement({ kind: "scalar", scalar: field.mapKey })}`);
        }
        const found = checkItem(schema, field, item, itemAt, { [key]: item });
        if (found !== undefined) return found;
      }
      return undefined;
    }
    case "enum":
    case "scalar":
      return accepts(schema, { [field.name]: value }) ? undefined : violation(at, valueRequirement(valueTypeOf(field), textOf(value)));
  }
}

/** Checks one item of a list or value of a map; `wrapped` is the item as the field's JSON holds it alone. */
function checkItem(schema: DescMessage, field: DescField, item: JsonValue, at: string, wrapped: JsonValue): FieldViolation | undefined {
  const type = valueTypeOf(field);
  if (item === null && !(type.kind === "message" && type.desc.typeName === "google.protobuf.Value")) {
    return violation(at, "must not be null");
  }
  if (type.kind === "message") return checkMessage(type.desc, item, at);
  return accepts(schema, { [field.name]: wrapped }) ? undefined : violation(at, valueRequirement(type, textOf(item)));
}

/** Asks fromJson itself, so that what is reported is exactly what it refuses. */
function accepts(schema: DescMessage, json: JsonValue): boolean {
  try {
    fromJson(schema, json);
    return true;
  } catch {
    return false;
  }
}

function textOf(json: JsonValue): string | undefined {
  return typeof json === "string" ? json : typeof json === "number" ? String(json) : undefined;
}

function join(path: string, name: string): string {
  return path === "" ? name : `${path}.${name}`;
}

function violation(field: string, description: string): FieldViolation {
  return { field, description };
}
