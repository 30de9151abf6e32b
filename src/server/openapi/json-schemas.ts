/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of protobuf messages in the proto3 JSON mapping,
 * exactly as Arbor writes and reads it (server/rest/json.ts): lowerCamelCase names, 64-bit
 * integers as strings, enums by name, well-known types in their JSON forms.
 */
import { getOption, ScalarType, type DescEnum, type DescField, type DescMessage, type JsonObject } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { FieldBehavior, field_behavior } from "../../gen/google/api/field_behavior_pb.js";
import { protoDoc } from "./proto-docs.js";

/** How the messages of one family of schemas are written. */
export interface SchemaFlavor {
  /** Appended to the type name to name the component (`""` or `.Input`). */
  readonly suffix: string;
  /** Whether fields always present on the wire (implicit presence: scalars, enums, lists, maps) are `required`. */
  readonly requireImplicit: boolean;
  /** Whether other properties are refused (`additionalProperties: false`). */
  readonly closed: boolean;
  /** Whether the schema describes what a client sends: 64-bit integers may then be JSON numbers too. */
  readonly input: boolean;
}

/** Responses: what the REST transcoder writes, every implicit field included (DESIGN 1.3). */
export const RESPONSE_FLAVOR: SchemaFlavor = { suffix: "", requireImplicit: true, closed: true, input: false };

/** Request bodies: every field optional, and proto names accepted besides the JSON names. */
export const REQUEST_FLAVOR: SchemaFlavor = { suffix: ".Input", requireImplicit: false, closed: false, input: true };

/** The component schemas, filled as messages and enums are referenced. */
export type Components = Record<string, JsonObject>;

/** A `$ref` to the schema of a message in the flavor, adding it (and what it uses) to components. */
export function messageRef(components: Components, desc: DescMessage, flavor: SchemaFlavor): JsonObject {
  const special = wellKnownSchema(desc, flavor);
  if (special !== undefined) return special;
  const name = desc.typeName + flavor.suffix;
  if (!(name in components)) {
    components[name] = {}; // reserved first, so a recursive type refers to itself instead of looping
    components[name] = messageSchema(components, desc, flavor);
  }
  return { $ref: `#/components/schemas/${name}` };
}

/** A `$ref` to the schema of an enum: its value names. */
export function enumRef(components: Components, desc: DescEnum): JsonObject {
  if (desc.typeName === "google.protobuf.NullValue") return { type: "null" };
  components[desc.typeName] ??= { type: "string", enum: desc.values.map((v) => v.name) };
  return { $ref: `#/components/schemas/${desc.typeName}` };
}

/** The schema of one scalar value in JSON. */
export function scalarSchema(scalar: ScalarType, input: boolean): JsonObject {
  switch (scalar) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return { anyOf: [{ type: "number" }, { type: "string", enum: ["NaN", "Infinity", "-Infinity"] }] };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return sixtyFour("int64", "^-?[0-9]+$", input);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return sixtyFour("uint64", "^[0-9]+$", input);
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", format: "uint32", minimum: 0, maximum: 2 ** 32 - 1 };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
    default:
      return { type: "integer", format: "int32", minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };
  }
}

/** 64-bit integers are JSON strings (JavaScript numbers lose digits); readers take numbers too. */
function sixtyFour(format: string, pattern: string, input: boolean): JsonObject {
  if (input) return { anyOf: [{ type: "string", format, pattern }, { type: "integer" }] };
  return { type: "string", format, pattern };
}

/** The schema of a field's value (a list or map of them for repeated and map fields). */
export function fieldSchema(components: Components, field: DescField, flavor: SchemaFlavor): JsonObject {
  switch (field.fieldKind) {
    case "list":
      return { type: "array", items: itemSchema(components, field, flavor) };
    case "map":
      return { type: "object", additionalProperties: itemSchema(components, field, flavor), ...mapKeys(field.mapKey) };
    case "enum":
    case "message":
    case "scalar":
      return itemSchema(components, field, flavor);
  }
}

function itemSchema(components: Components, field: DescField, flavor: SchemaFlavor): JsonObject {
  if (field.message) return messageRef(components, field.message, flavor);
  if (field.enum) return enumRef(components, field.enum);
  return scalarSchema(field.scalar as ScalarType, flavor.input);
}

function mapKeys(key: ScalarType): JsonObject {
  if (key === ScalarType.STRING) return {};
  if (key === ScalarType.BOOL) return { propertyNames: { enum: ["true", "false"] } };
  return { propertyNames: { pattern: "^-?[0-9]+$" } };
}

function messageSchema(components: Components, desc: DescMessage, flavor: SchemaFlavor): JsonObject {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const field of desc.fields) {
    const schema = fieldSchema(components, field, flavor);
    const behaviors = getOption(field, field_behavior);
    if (behaviors.includes(FieldBehavior.OUTPUT_ONLY)) schema.readOnly = true;
    if (behaviors.includes(FieldBehavior.INPUT_ONLY)) schema.writeOnly = true;
    const doc = [protoDoc(`${desc.typeName}.${field.name}`), schema.description].filter((d) => d !== undefined);
    if (doc.length > 0) schema.description = doc.join(" ");
    properties[field.jsonName] = schema;
    if (flavor.requireImplicit && field.presence === FeatureSet_FieldPresence.IMPLICIT) required.push(field.jsonName);
  }
  const out: JsonObject = { type: "object", title: desc.name, properties };
  const doc = protoDoc(desc.typeName);
  if (doc !== undefined) out.description = doc;
  if (required.length > 0) out.required = required;
  if (flavor.closed) out.additionalProperties = false;
  const exclusive = desc.oneofs.filter((o) => o.fields.length > 1);
  if (exclusive.length > 0) {
    // A oneof member present rules out the others.
    const dependent: JsonObject = {};
    for (const o of exclusive) {
      for (const f of o.fields) {
        dependent[f.jsonName] = { properties: Object.fromEntries(o.fields.filter((g) => g !== f).map((g) => [g.jsonName, false])) };
      }
    }
    out.dependentSchemas = dependent;
    const oneofs = exclusive.map((o) => `At most one of ${o.fields.map((f) => `\`${f.jsonName}\``).join(", ")} (oneof ${o.name}).`);
    out.description = [doc, ...oneofs].filter((d) => d !== undefined).join("\n\n");
  }
  return out;
}

/** The well-known types with a JSON form of their own; undefined for ordinary messages. */
function wellKnownSchema(desc: DescMessage, flavor: SchemaFlavor): JsonObject | undefined {
  switch (desc.typeName) {
    case "google.protobuf.Timestamp":
      return {
        type: "string",
        format: "date-time",
        description: "RFC 3339, in UTC with milliseconds on output: `2026-03-27T13:55:00.423Z`.",
      };
    case "google.protobuf.Duration":
      return {
        type: "string",
        pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$",
        description: 'Seconds with an `s` suffix, such as `"3600s"` or `"1.5s"`.',
      };
    case "google.protobuf.FieldMask":
      return { type: "string", description: "Comma-separated field paths (camelCase or snake_case)." };
    case "google.protobuf.Struct":
      return { type: "object" };
    case "google.protobuf.Value":
      return {};
    case "google.protobuf.ListValue":
      return { type: "array" };
    case "google.protobuf.Any":
      return { type: "object", required: ["@type"], properties: { "@type": { type: "string" } } };
  }
  if (isWrapperDesc(desc)) return scalarSchema(desc.fields[0].scalar, flavor.input);
  return undefined;
}
