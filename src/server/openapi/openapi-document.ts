/**
 * The OpenAPI 3.1 document of the REST API, derived at run time from the same google.api.http
 * bindings the transcoder serves (the route table) and the message descriptors: a route exists
 * in the document exactly when the server answers it.
 */
import { getOption, hasOption, type DescService, type JsonObject } from "@bufbuild/protobuf";
import { capabilityName, type Capability } from "../../domain/capabilities.js";
import { authz } from "../../gen/arbor/api/v1/authz_pb.js";
import type { Route, RouteTable } from "../rest/route-table.js";
import { addStatusSchema, errorStatuses } from "./error-schemas.js";
import { fieldSchema, messageRef, REQUEST_FLAVOR, RESPONSE_FLAVOR, type Components } from "./json-schemas.js";
import { openApiPath, pathParameterNames, pathParameters, queryParameters } from "./parameters.js";
import { firstSentence, protoDoc } from "./proto-docs.js";
import { tokenExchangePathItem, UPSTREAM_TOKEN, UPSTREAM_TOKEN_SCHEME } from "./token-exchange-path.js";

/** What the document is made of. */
export interface OpenApiOptions {
  routes: RouteTable;
  /** {base_url}, the document's server. */
  baseUrl: string;
  /** {auth_url}, where the token exchange lives. */
  issuerUrl: string;
}

/** The security scheme every authenticated operation requires. */
const BEARER = "bearerAuth";

/** Builds the document. A binding it cannot describe is a bug in the protos and throws. */
export function createOpenApiDocument(options: OpenApiOptions): JsonObject {
  const components: Components = {};
  const status = addStatusSchema(components);
  const responses = errorResponses(status);
  const paths: Record<string, Record<string, JsonObject>> = {};
  const operationIds = new Set<string>();
  const services: DescService[] = [];
  const shortNames = countShortNames(options.routes.routes);
  const parameterNames = pathParameterNames(options.routes.routes);
  for (const route of options.routes.routes) {
    const service = route.method.parent;
    if (!services.includes(service)) services.push(service);
    const names = parameterNames.get(route) ?? [];
    const path = openApiPath(route, names);
    const item = (paths[path] ??= {});
    const verb = route.httpMethod.toLowerCase();
    if (item[verb] !== undefined) throw new Error(`${route.method.toString()}: ${route.httpMethod} ${path} is described twice`);
    // Service_Method; where two packages share a service name, the package (less its first part) comes first.
    const qualified = service.typeName.split(".").slice(1).join("_");
    const base = `${(shortNames.get(service.name) ?? 0) > 1 ? qualified : service.name}_${route.method.name}`;
    let operationId = base;
    for (let n = 2; operationIds.has(operationId); n++) operationId = `${base}_${n}`;
    operationIds.add(operationId);
    item[verb] = operation(components, route, operationId, names);
  }
  const [exchangePath, exchangeItem] = tokenExchangePathItem(options.issuerUrl, status);
  paths[exchangePath] = exchangeItem;
  return {
    openapi: "3.1.0",
    info: {
      title: "Arbor API",
      version: "v2beta1",
      description:
        "The Resource Management Service API v2 over REST/JSON, generated from the protos. The same " +
        "services answer gRPC, gRPC-Web and Connect on the same port (and describe themselves by gRPC server reflection).",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    servers: [{ url: options.baseUrl }],
    tags: [
      ...services.map((s) => ({ name: s.typeName, description: protoDoc(s.typeName) ?? `The gRPC service \`${s.typeName}\`.` })),
      { name: "Token exchange", description: "Arbor tokens for workloads, in exchange for an OIDC token of their platform." },
    ],
    paths,
    components: {
      schemas: components,
      responses,
      securitySchemes: {
        [BEARER]: {
          type: "http",
          scheme: "bearer",
          bearerFormat: "JWT",
          description: "An Arbor API token (ES256 JWT) whose audience is the base URL: `arbor auth token`, or `GET /sts/exchange`.",
        },
        [UPSTREAM_TOKEN]: UPSTREAM_TOKEN_SCHEME,
      },
    },
  };
}

/** The error statuses listed on every operation; the others fall under `default`. */
const OPERATION_ERRORS = [400, 401, 403, 404, 409, 429, 500, 503];

function operation(components: Components, route: Route, operationId: string, pathNames: readonly string[]): JsonObject {
  const method = route.method;
  const policy = hasOption(method, authz) ? getOption(method, authz) : undefined;
  const isPublic = policy?.public === true;
  const doc = protoDoc(`${method.parent.typeName}.${method.name}`);
  const notes = [doc, `The RPC \`${method.parent.typeName}/${method.name}\` over REST.`];
  if (isPublic) notes.push("Needs no token.");
  else if (policy)
    notes.push(`Needs ${capabilities(policy.capabilities)}${policy.scopeField === "" ? "" : ` on \`${policy.scopeField}\` or above`}.`);
  const out: JsonObject = {
    operationId,
    tags: [method.parent.typeName],
    summary: doc === undefined ? `${method.parent.name}.${method.name}` : firstSentence(doc),
    description: notes.filter((n) => n !== undefined).join("\n\n"),
    parameters: [...pathParameters(components, route, pathNames), ...queryParameters(components, route)],
  };
  if (route.body !== "") {
    const schema = route.bodyField
      ? messageRef(components, route.bodyField.message, REQUEST_FLAVOR)
      : messageRef(components, method.input, REQUEST_FLAVOR);
    const what = route.bodyField ? `\`${route.bodyField.name}\`` : "the request message";
    out.requestBody = {
      required: false,
      description: `JSON of ${what}; field names in lowerCamelCase or as in the proto. Unknown fields are INVALID_ARGUMENT.`,
      content: { "application/json": { schema } },
    };
  }
  const success = route.responseBodyField
    ? fieldSchema(components, route.responseBodyField, RESPONSE_FLAVOR)
    : messageRef(components, method.output, RESPONSE_FLAVOR);
  const responses: JsonObject = { "200": { description: "Success.", content: { "application/json": { schema: success } } } };
  for (const code of OPERATION_ERRORS) {
    if (isPublic && (code === 401 || code === 403)) continue;
    responses[String(code)] = { $ref: `#/components/responses/Error${code}` };
  }
  responses.default = { $ref: "#/components/responses/Error" };
  out.responses = responses;
  out.security = isPublic ? [] : [{ [BEARER]: [] }];
  return out;
}

/** One response per HTTP status an error may have, then `default`, all with the Status body. */
function errorResponses(status: JsonObject): Record<string, JsonObject> {
  const body = { "application/json": { schema: status } };
  const out: Record<string, JsonObject> = {};
  for (const [http, codes] of errorStatuses()) {
    out[`Error${http}`] = { description: `An error with code ${codes.join(" or ")}.`, content: body };
  }
  out.Error = { description: "An error: a google.rpc.Status.", content: body };
  return out;
}

function countShortNames(routes: readonly Route[]): Map<string, number> {
  const services = new Set(routes.map((r) => r.method.parent));
  const counts = new Map<string, number>();
  for (const s of services) counts.set(s.name, (counts.get(s.name) ?? 0) + 1);
  return counts;
}

function capabilities(caps: readonly Capability[]): string {
  return caps.length === 0 ? "an API token" : caps.map((c) => `\`${capabilityName(c)}\``).join(" and ");
}
