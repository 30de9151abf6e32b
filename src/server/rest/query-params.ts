/**
 * Query parameters: each names a field of the request message not bound by the path or the body,
 * by proto or JSON names nested with dots (`uidp.descendants_of`, `uidp.descendantsOf`). A name
 * that fits no field is an error, not ignored: a typo must not silently widen a list. Names that
 * start with `_` are the one exception, ignored: no field's name starts so, and clients use them
 * to defeat caches (`_=1700000000`, as jQuery adds), never to filter.
 */
import type { DescOneof, DescField } from "@bufbuild/protobuf";
import type { ReflectList, ReflectMessage } from "@bufbuild/protobuf/reflect";
import type { FieldMask } from "@bufbuild/protobuf/wkt";
import { invalidArgument } from "../../domain/errors.js";
import { holderOf, protoPath, resolveFieldPath } from "./field-path.js";
import { formDecode } from "./percent-decode.js";
import type { Route } from "./route-table.js";
import { acceptsText, parseValueText, valueRequirement, valueTypeOf } from "./text-value.js";

/**
 * The decoded name/value pairs of a raw query string (without `?`), in order. `+` is a space;
 * malformed escapes are INVALID_ARGUMENT naming the parameter.
 */
export function parseQueryString(query: string): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  if (query === "") return pairs;
  for (const piece of query.split("&")) {
    if (piece === "") continue;
    const eq = piece.indexOf("=");
    const rawName = eq < 0 ? piece : piece.slice(0, eq);
    const name = formDecode(rawName, rawName);
    if (name === "") throw invalidArgument("query", "a parameter has no name");
    pairs.push([name, eq < 0 ? "" : formDecode(piece.slice(eq + 1), name)]);
  }
  return pairs;
}

/**
 * Sets on root the fields the query names. A repeated field takes one item per occurrence, and so
 * does a FieldMask (`updateMask=a&updateMask=b` is `a,b`, as gateways read a repeated mask); any
 * other field given twice (also under its two spellings) is INVALID_ARGUMENT.
 */
export function applyQueryParams(root: ReflectMessage, route: Route, query: string): void {
  const given = new Set<string>();
  const oneofs = new Map<DescOneof, DescField>();
  for (const [name, text] of parseQueryString(query)) {
    if (name.startsWith("_")) continue;
    const chain = resolveFieldPath(root.desc, name);
    const leaf = chain?.at(-1);
    if (chain === undefined || leaf === undefined) throw invalidArgument(name, "unknown query parameter");
    const path = protoPath(chain);
    const binder = boundBy(route, path);
    if (binder !== undefined) throw invalidArgument(name, `is set by the ${binder}, not by a query parameter`);
    const type = valueTypeOf(leaf);
    if (leaf.fieldKind === "map" || !acceptsText(type)) throw invalidArgument(name, "cannot be set by a query parameter");
    for (const field of chain) {
      const other = field.oneof && oneofs.get(field.oneof);
      if (other && other !== field) throw invalidArgument(name, `cannot be set together with ${other.name}`);
      if (field.oneof) oneofs.set(field.oneof, field);
    }
    const value = parseValueText(type, text);
    if (value === undefined) throw invalidArgument(name, valueRequirement(type, text));
    const holder = holderOf(root, chain);
    if (leaf.fieldKind === "list") {
      (holder.get(leaf) as ReflectList).add(value);
      continue;
    }
    if (given.has(path) && isFieldMask(leaf)) {
      (holder.get(leaf).message as FieldMask).paths.push(...((value as ReflectMessage).message as FieldMask).paths);
      continue;
    }
    if (given.has(path)) throw invalidArgument(name, "is given more than once");
    given.add(path);
    holder.set(leaf, value);
  }
}

/**
 * What binds the field at a proto path other than the query: the URL path, the body, or nothing
 * (the OpenAPI document lists query parameters by the same rule).
 */
export function boundBy(route: Route, path: string): "URL path" | "request body" | undefined {
  const overlaps = (bound: string): boolean => path === bound || path.startsWith(`${bound}.`) || bound.startsWith(`${path}.`);
  for (const chain of route.pathFields.values()) {
    if (overlaps(protoPath(chain))) return "URL path";
  }
  if (route.body === "*" || (route.bodyField !== undefined && overlaps(route.bodyField.name))) return "request body";
  return undefined;
}

function isFieldMask(field: DescField): field is Extract<DescField, { fieldKind: "message" }> {
  return field.fieldKind === "message" && field.message.typeName === "google.protobuf.FieldMask";
}
