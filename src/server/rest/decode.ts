/**
 * The request message of a REST call, built as the route's google.api.http binding says: the
 * body (HttpRule.body), then the query parameters for the fields neither path nor body binds,
 * then the path variables, which win over anything the body held.
 */
import { create, type JsonObject, type Message } from "@bufbuild/protobuf";
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import type { FieldMask } from "@bufbuild/protobuf/wkt";
import { invalidArgument } from "../../domain/errors.js";
import { holderOf } from "./field-path.js";
import { impliedUpdateMask } from "./implied-update-mask.js";
import { isJsonObject } from "./is-json-object.js";
import { requireJsonBody } from "./body-media-type.js";
import { isBlankBody, isEmptyJsonObject, messageFromJsonBody, readJsonBody } from "./json-body.js";
import { applyQueryParams } from "./query-params.js";
import type { MessageField, Route } from "./route-table.js";
import { parseValueText, valueRequirement, valueTypeOf } from "./text-value.js";

/**
 * Builds the request message of route's method. `params` are the path variables RouteTable.match
 * returned; `query` is the raw query string without `?` (raw, so that malformed escapes are
 * refused rather than passed on); `body` the raw body bytes and `contentType` their declared
 * type. Every caller mistake is INVALID_ARGUMENT naming the field: body fields by their JSON path
 * relative to the body, query parameters and path variables by the name the caller or the
 * template used. A body that is not blank must be declared JSON (else 415, requireJsonBody); a
 * method without a body takes none, or an empty JSON object (`{}`, which clients send by habit).
 */
export function decodeRequest(
  route: Route,
  params: Readonly<Record<string, string>>,
  query: string,
  body: Uint8Array | undefined,
  contentType: string | undefined,
): Message {
  const schema = route.method.input;
  if (!isBlankBody(body)) requireJsonBody(contentType);
  if (route.body === "" && !isBlankBody(body) && !isEmptyJsonObject(body)) {
    throw invalidArgument("body", "this method takes no request body (an empty JSON object at most)");
  }
  const json = route.body === "" ? undefined : readJsonBody(body);
  const { bodyField } = route;
  const wholeBody = json !== undefined && bodyField === undefined;
  const root = reflect(schema, wholeBody ? messageFromJsonBody(schema, json) : create(schema));
  if (json !== undefined && bodyField !== undefined) {
    root.set(bodyField, reflect(bodyField.message, messageFromJsonBody(bodyField.message, json)));
  }
  applyQueryParams(root, route, query);
  applyPathParams(root, route, params);
  // messageFromJsonBody took only an object, so json is one whenever the body field was filled.
  if (bodyField !== undefined && isJsonObject(json)) implyUpdateMask(root, bodyField, json);
  return root.message;
}

function applyPathParams(root: ReflectMessage, route: Route, params: Readonly<Record<string, string>>): void {
  for (const [fieldPath, text] of Object.entries(params)) {
    const chain = route.pathFields.get(fieldPath);
    const leaf = chain?.at(-1);
    if (chain === undefined || leaf === undefined) throw new Error(`${fieldPath} is not a variable of ${route.template.source}`);
    const type = valueTypeOf(leaf);
    const value = parseValueText(type, text);
    if (value === undefined) throw invalidArgument(fieldPath, valueRequirement(type, text));
    holderOf(root, chain).set(leaf, value);
  }
}

/**
 * Without a mask from the query (absent or empty, as grpc-gateway reads it), a request with an
 * `update_mask` FieldMask gets the paths of the body's keys.
 */
function implyUpdateMask(root: ReflectMessage, bodyField: MessageField, bodyJson: JsonObject): void {
  const maskField = root.desc.fields.find(
    (f) => f.name === "update_mask" && f.fieldKind === "message" && f.message.typeName === "google.protobuf.FieldMask",
  );
  if (maskField?.fieldKind !== "message") return;
  if (root.isSet(maskField) && (root.get(maskField).message as FieldMask).paths.length > 0) return;
  const paths = impliedUpdateMask(bodyField.message, bodyJson);
  root.set(maskField, reflect(maskField.message, create(maskField.message, { paths })));
}
