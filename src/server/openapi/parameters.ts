/**
 * The parameters of an operation, by the rules the REST transcoder applies: path variables as
 * the google.api.http template binds them, and a query parameter for every field that neither
 * the path nor the body binds and that can be written as text (server/rest/query-params.ts).
 */
import type { DescField, DescMessage, JsonObject } from "@bufbuild/protobuf";
import { hasCustomJsonRepresentation } from "@bufbuild/protobuf/wkt";
import { boundBy } from "../rest/query-params.js";
import type { Route } from "../rest/route-table.js";
import { acceptsText, valueTypeOf, type ValueType } from "../rest/text-value.js";
import { enumRef, scalarSchema, type Components } from "./json-schemas.js";

const UID_NOTE =
  "It may contain `/` (a uid below an organization is `<parent uid>/<16 hex>`): send its slashes " +
  "as they are or percent-encoded (`%2F`), both are accepted. An encoded slash is accepted only " +
  "between the segments of a uid; the value is decoded once, so `%252F` is the text `%2F`.";

const RESERVED_NOTE =
  "It may contain `/`: send its slashes as they are, not percent-encoded. The server decodes every " +
  "other escape but keeps `%2F` as written (reserved expansion), so an escaped slash is not a separator.";

/** A template with its variables as `{}`: templates alike but for their variables are one OpenAPI path. */
function pathKey(route: Route): string {
  return route.template.source.replace(/\{[^}]*\}/g, "{}");
}

/**
 * The OpenAPI name of each route's path variables, in template order. OpenAPI 3.1 declares a path
 * once whatever its parameters' names (`/groups/{uid}` and `/groups/{parent}` are one path), so
 * routes whose templates differ only in their variables share one path item and one name at each
 * position: the shortest field path among them (`uid` over `parent` and `group.uid`), the first
 * declared on a tie. Each parameter's description still says which field it sets. Names that
 * would repeat in one path are a binding the document cannot describe, which throws.
 */
export function pathParameterNames(routes: readonly Route[]): Map<Route, readonly string[]> {
  const byKey = new Map<string, Route[]>();
  for (const route of routes) {
    const key = pathKey(route);
    const peers = byKey.get(key);
    if (peers) peers.push(route);
    else byKey.set(key, [route]);
  }
  const out = new Map<Route, readonly string[]>();
  for (const peers of byKey.values()) {
    const names = (peers[0] as Route).template.variables.map((_, i) => {
      let best = "";
      for (const r of peers) {
        const name = r.template.variables[i]?.fieldPath ?? "";
        if (best === "" || name.length < best.length) best = name;
      }
      return best;
    });
    if (new Set(names).size !== names.length) {
      throw new Error(`${peers.map((r) => r.template.source).join(", ")}: no distinct OpenAPI names for their path variables`);
    }
    for (const r of peers) out.set(r, names);
  }
  return out;
}

/**
 * The OpenAPI path of a route's template, variables by their OpenAPI names: `{group.uid=**}`
 * becomes `{uid}`, the verb stays (`:exchange`).
 */
export function openApiPath(route: Route, names: readonly string[]): string {
  let i = 0;
  return route.template.source.replace(/\{[^}]*\}/g, () => `{${names[i++] ?? ""}}`);
}

/** The path parameters of a route, one per template variable, by their OpenAPI names. */
export function pathParameters(components: Components, route: Route, names: readonly string[]): JsonObject[] {
  return route.template.variables.map((v, i) => {
    const leaf = route.pathFields.get(v.fieldPath)?.at(-1) as DescField;
    const note = route.uidVariables.has(v.fieldPath)
      ? UID_NOTE
      : v.reserved
        ? RESERVED_NOTE
        : "Percent-encode reserved characters, `/` included.";
    return {
      name: names[i] ?? v.fieldPath,
      in: "path",
      required: true,
      description: `Sets \`${v.fieldPath}\`. ${note}`,
      schema: textSchema(components, valueTypeOf(leaf)),
    };
  });
}

/** The query parameters of a route, by proto name; the JSON name of each is accepted too. */
export function queryParameters(components: Components, route: Route): JsonObject[] {
  const out: JsonObject[] = [];
  const walk = (message: DescMessage, protoPrefix: string, jsonPrefix: string, seen: ReadonlySet<DescMessage>): void => {
    for (const field of message.fields) {
      const protoName = protoPrefix + field.name;
      const jsonName = jsonPrefix + field.jsonName;
      if (field.fieldKind === "message" && !hasCustomJsonRepresentation(field.message)) {
        if (!seen.has(field.message)) walk(field.message, `${protoName}.`, `${jsonName}.`, new Set([...seen, field.message]));
        continue;
      }
      const type = valueTypeOf(field);
      if (field.fieldKind === "map" || !acceptsText(type) || boundBy(route, protoName) !== undefined) continue;
      const notes = [`Sets \`${protoName}\`.`];
      if (jsonName !== protoName) notes.push(`Also accepted as \`${jsonName}\` (not both).`);
      const item = textSchema(components, type);
      if (field.fieldKind === "list") notes.push("Repeat the parameter for several values.");
      const schema = field.fieldKind === "list" ? { type: "array", items: item } : item;
      out.push({ name: protoName, in: "query", required: false, description: notes.join(" "), schema });
    }
  };
  walk(route.method.input, "", "", new Set([route.method.input]));
  return out;
}

/** The schema of a value written as text (parse rules in server/rest/text-value.ts). */
function textSchema(components: Components, type: ValueType): JsonObject {
  switch (type.kind) {
    case "scalar": {
      const schema = scalarSchema(type.scalar, false);
      // In a URL, 64-bit integers are plain digits like any other integer.
      return schema.type === "string" && typeof schema.format === "string" ? { type: "integer", format: schema.format } : schema;
    }
    case "enum":
      return enumRef(components, type.desc);
    case "message":
      switch (type.desc.typeName) {
        case "google.protobuf.Timestamp":
          return { type: "string", format: "date-time" };
        case "google.protobuf.Duration":
          return { type: "string", pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$" };
        case "google.protobuf.FieldMask":
          return { type: "string", description: "Comma-separated field paths (camelCase or snake_case)." };
        default:
          // A wrapper: the text of its value.
          return textSchema(components, valueTypeOf(type.desc.fields[0] as DescField));
      }
  }
}
