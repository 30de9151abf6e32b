/**
 * Field values written as text (path variables, query parameters, map keys), parsed strictly, and
 * the sentence that tells a caller what such a value must look like.
 */
import { create, fromJson, ScalarType, type DescEnum, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { toSnake } from "../../domain/field-mask.js";

/** The type of one value of a field: the field itself, or an item of a list, or a value of a map. */
export type ValueType =
  | { readonly kind: "scalar"; readonly scalar: ScalarType }
  | { readonly kind: "enum"; readonly desc: DescEnum }
  | { readonly kind: "message"; readonly desc: DescMessage };

/** The type of one value of field (for lists and maps, of one item). */
export function valueTypeOf(field: DescField): ValueType {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind === "map" ? field.mapKind : field.fieldKind;
  if (kind === "enum" && field.enum) return { kind, desc: field.enum };
  if (kind === "message" && field.message) return { kind, desc: field.message };
  if (field.scalar !== undefined) return { kind: "scalar", scalar: field.scalar };
  throw new Error(`unsupported field ${field.toString()}`);
}

/** Tells whether a value of the type can be written as text: scalars, enums and the well-known types with a string form. */
export function acceptsText(type: ValueType): boolean {
  return type.kind !== "message" || TEXT_MESSAGES.has(type.desc.typeName) || isWrapperDesc(type.desc);
}

/**
 * The value that text stands for, in the form reflect() takes (bigint for 64-bit integers, a
 * ReflectMessage for messages), or undefined when the text is not a valid value of the type.
 */
export function parseValueText(type: ValueType, text: string): unknown {
  switch (type.kind) {
    case "scalar":
      return parseScalarText(type.scalar, text);
    case "enum": {
      const byName = type.desc.values.find((v) => v.name === text);
      if (byName) return byName.number;
      const n = /^-?\d+$/.test(text) ? Number(text) : NaN;
      return type.desc.values.some((v) => v.number === n) ? n : undefined;
    }
    case "message": {
      const message = parseMessageText(type.desc, text);
      return message === undefined ? undefined : reflect(type.desc, message);
    }
  }
}

/**
 * What a value of the type must be, as an error description. Given the offending text, an
 * integer out of range is told apart from something that is no integer at all.
 */
export function valueRequirement(type: ValueType, text?: string): string {
  switch (type.kind) {
    case "scalar":
      return scalarRequirement(type.scalar, text);
    case "enum":
      return `must be one of ${type.desc.values.map((v) => v.name).join(", ")}`;
    case "message":
      if (isWrapperDesc(type.desc)) return scalarRequirement(type.desc.fields[0].scalar, text);
      return MESSAGE_REQUIREMENTS.get(type.desc.typeName) ?? "must be an object";
  }
}

/** The value of a scalar written as text, or undefined when the text is not one. */
export function parseScalarText(scalar: ScalarType, text: string): string | number | bigint | boolean | Uint8Array | undefined {
  switch (scalar) {
    case ScalarType.STRING:
      return text;
    case ScalarType.BOOL:
      return text === "true" || text === "1" ? true : text === "false" || text === "0" ? false : undefined;
    case ScalarType.BYTES:
      try {
        return base64Decode(text);
      } catch {
        return undefined;
      }
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT: {
      const special = SPECIAL_FLOATS.get(text);
      if (special !== undefined) return special;
      const n = DECIMAL.test(text) ? Number(text) : NaN;
      const max = scalar === ScalarType.FLOAT ? FLOAT32_MAX : Number.MAX_VALUE;
      return Number.isFinite(n) && Math.abs(n) <= max ? n : undefined;
    }
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
    default: {
      const range = INTEGER_RANGES.get(scalar);
      if (range === undefined || !(range[0] < 0n ? /^-?\d+$/ : /^\d+$/).test(text)) return undefined;
      const n = BigInt(text);
      if (n < range[0] || n > range[1]) return undefined;
      return range[1] > 0xffffffffn ? n : Number(n);
    }
  }
}

function scalarRequirement(scalar: ScalarType, text: string | undefined): string {
  switch (scalar) {
    case ScalarType.STRING:
      return "must be a string";
    case ScalarType.BOOL:
      return "must be true or false";
    case ScalarType.BYTES:
      return "must be base64";
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return "must be a number";
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
    default: {
      const range = INTEGER_RANGES.get(scalar);
      if (range !== undefined && text !== undefined && /^-?\d+$/.test(text)) {
        return `must be an integer from ${range[0]} to ${range[1]}`;
      }
      return "must be an integer";
    }
  }
}

function parseMessageText(desc: DescMessage, text: string): Message | undefined {
  if (desc.typeName === "google.protobuf.FieldMask") {
    // Paths may be camelCase or snake_case (DESIGN 1.5); the message holds proto names.
    const paths = text
      .split(",")
      .map((p) => toSnake(p.trim()))
      .filter((p) => p !== "");
    return create(desc, { paths });
  }
  if (isWrapperDesc(desc)) {
    const value = parseScalarText(desc.fields[0].scalar, text);
    return value === undefined ? undefined : create(desc, { value });
  }
  if (!TEXT_MESSAGES.has(desc.typeName)) return undefined;
  try {
    // Timestamp and Duration: their JSON form is a string, and fromJson checks it well.
    return fromJson(desc, text);
  } catch {
    return undefined;
  }
}

const TEXT_MESSAGES: ReadonlySet<string> = new Set(["google.protobuf.Timestamp", "google.protobuf.Duration", "google.protobuf.FieldMask"]);

const MESSAGE_REQUIREMENTS: ReadonlyMap<string, string> = new Map([
  ["google.protobuf.Timestamp", "must be an RFC 3339 timestamp such as 2026-03-27T13:55:00.423Z"],
  ["google.protobuf.Duration", 'must be a duration in seconds such as "1.5s"'],
  ["google.protobuf.FieldMask", "must be a comma-separated list of field paths"],
  ["google.protobuf.ListValue", "must be an array"],
  ["google.protobuf.Value", "must be a JSON value"],
  ["google.protobuf.Any", "must be an object with a known @type"],
]);

const DECIMAL = /^-?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const FLOAT32_MAX = 3.4028234663852886e38;
const SPECIAL_FLOATS: ReadonlyMap<string, number> = new Map([
  ["NaN", NaN],
  ["Infinity", Infinity],
  ["-Infinity", -Infinity],
]);

const INT32: readonly [bigint, bigint] = [-(2n ** 31n), 2n ** 31n - 1n];
const UINT32: readonly [bigint, bigint] = [0n, 2n ** 32n - 1n];
const INT64: readonly [bigint, bigint] = [-(2n ** 63n), 2n ** 63n - 1n];
const UINT64: readonly [bigint, bigint] = [0n, 2n ** 64n - 1n];
const INTEGER_RANGES: ReadonlyMap<ScalarType, readonly [bigint, bigint]> = new Map([
  [ScalarType.INT32, INT32],
  [ScalarType.SINT32, INT32],
  [ScalarType.SFIXED32, INT32],
  [ScalarType.UINT32, UINT32],
  [ScalarType.FIXED32, UINT32],
  [ScalarType.INT64, INT64],
  [ScalarType.SINT64, INT64],
  [ScalarType.SFIXED64, INT64],
  [ScalarType.UINT64, UINT64],
  [ScalarType.FIXED64, UINT64],
]);
