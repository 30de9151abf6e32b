/**
 * The REST routes, built from the `google.api.http` options of the services' methods and nothing
 * else: a route exists exactly when the proto declares it.
 */
import { getOption, hasOption, type DescField, type DescMethod, type DescService } from "@bufbuild/protobuf";
import { http } from "../../gen/google/api/annotations_pb.js";
import type { HttpRule } from "../../gen/google/api/http_pb.js";
import { findField, resolveFieldPath } from "./field-path.js";
import { decodeVariable, parsePathTemplate, splitPath, type PathTemplate } from "./path-template.js";
import { percentDecodeUid } from "./percent-decode.js";

/** A message-typed field, as HttpRule.body names. */
export type MessageField = Extract<DescField, { fieldKind: "message" }>;

/** One HTTP binding of an RPC method. */
export interface Route {
  /** `GET`, `PUT`, `POST`, `DELETE`, `PATCH`, or a custom pattern's kind. */
  readonly httpMethod: string;
  readonly template: PathTemplate;
  readonly method: DescMethod;
  /** HttpRule.body: "" (no body), "*" (the whole request message) or a top-level field name. */
  readonly body: string;
  /** The field the body fills when `body` names one. */
  readonly bodyField: MessageField | undefined;
  /** HttpRule.response_body: "" (the whole response message) or a top-level field name. */
  readonly responseBody: string;
  /** The response field sent as the body when `responseBody` names one. */
  readonly responseBodyField: DescField | undefined;
  /** For each template variable, by its field path as written, the fields it leads through. */
  readonly pathFields: ReadonlyMap<string, readonly DescField[]>;
  /**
   * The variables that hold a uid: those whose pattern is `**` alone (`{uid=**}`), which is how
   * every proto of the API binds a uid. Their `%2F` may separate the uid's segments (percentDecodeUid).
   */
  readonly uidVariables: ReadonlySet<string>;
}

/** A route that fits a request, with its decoded path variables by field path. */
export interface RouteMatch {
  readonly route: Route;
  readonly params: Record<string, string>;
}

/** The path exists, under other HTTP methods only: the answer is 405 with these in `Allow`. */
export interface MethodNotAllowed {
  readonly allowed: readonly string[];
}

/** Every REST route of a set of services, and the matching of requests to them. */
export interface RouteTable {
  /** Every route, in the order the services and methods declare them (for OpenAPI). */
  readonly routes: readonly Route[];
  /**
   * The most specific route for an HTTP method and a URL path (without the query); else, when
   * the path fits under other methods, those methods; else undefined. HEAD is never routed.
   * Throws INVALID_ARGUMENT when a path variable is not valid percent-encoded UTF-8, or when a
   * uid variable has an encoded slash but is not, decoded, a well-formed uid.
   */
  match(httpMethod: string, path: string): RouteMatch | MethodNotAllowed | undefined;
}

const METHOD_ORDER = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/**
 * Builds the route table of services. A binding the table cannot serve (a bad template, a field
 * that does not exist, two routes for one path) is a bug in the protos and throws at start-up.
 */
export function createRouteTable(services: readonly DescService[]): RouteTable {
  const routes: Route[] = [];
  for (const service of services) {
    for (const method of service.methods) {
      if (!hasOption(method, http)) continue;
      const rule = getOption(method, http);
      routes.push(toRoute(method, rule));
      for (const extra of rule.additionalBindings) {
        if (extra.additionalBindings.length > 0) throw new Error(`${method.toString()}: nested additional_bindings`);
        routes.push(toRoute(method, extra));
      }
    }
  }
  const byMethod = groupByMethod(routes);
  return {
    routes,
    match(httpMethod, path) {
      const segments = splitPath(path);
      if (segments === undefined) return undefined;
      for (const route of byMethod.get(httpMethod) ?? []) {
        const raw = route.template.matchRaw(segments);
        if (raw !== undefined) return { route, params: decodeParams(route, raw) };
      }
      const allowed: string[] = [];
      for (const [m, candidates] of byMethod) {
        if (m !== httpMethod && candidates.some((r) => r.template.fits(segments))) allowed.push(m);
      }
      return allowed.length > 0 ? { allowed } : undefined;
    },
  };
}

/** A route's variables decoded, each exactly once from the text as sent: uid variables by percentDecodeUid. */
function decodeParams(route: Route, raw: Readonly<Record<string, string>>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const v of route.template.variables) {
    const text = raw[v.fieldPath] ?? "";
    params[v.fieldPath] = route.uidVariables.has(v.fieldPath) ? percentDecodeUid(text, v.fieldPath) : decodeVariable(v, text);
  }
  return params;
}

/**
 * Routes by HTTP method, most specific first so the first fit is the best: more literal segments
 * win, then templates without `**`, then fewer `*`; ties keep declaration order.
 */
function groupByMethod(routes: readonly Route[]): Map<string, Route[]> {
  const seen = new Map<string, Route>();
  for (const route of routes) {
    const key = `${route.httpMethod} ${route.template.shape}`;
    const twin = seen.get(key);
    if (twin) throw new Error(`${twin.method.toString()} and ${route.method.toString()} both bind ${key}`);
    seen.set(key, route);
  }
  const rank = (m: string): number => (METHOD_ORDER.includes(m) ? METHOD_ORDER.indexOf(m) : METHOD_ORDER.length);
  const methods = [...new Set(routes.map((r) => r.httpMethod))].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const byMethod = new Map<string, Route[]>();
  for (const m of methods) {
    const sorted = routes
      .filter((r) => r.httpMethod === m)
      .sort(
        (a, b) =>
          b.template.literalCount - a.template.literalCount ||
          Number(a.template.hasDeep) - Number(b.template.hasDeep) ||
          a.template.wildcardCount - b.template.wildcardCount,
      );
    byMethod.set(m, sorted);
  }
  return byMethod;
}

function toRoute(method: DescMethod, rule: HttpRule): Route {
  const fail = (why: string): never => {
    throw new Error(`${method.toString()}: ${why}`);
  };
  const { case: kind, value } = rule.pattern;
  if (kind === undefined) return fail("google.api.http without a pattern");
  const httpMethod = kind === "custom" ? value.kind.toUpperCase() : kind.toUpperCase();
  if (httpMethod === "HEAD") fail("HEAD is not routed");
  const template = parsePathTemplate(kind === "custom" ? value.path : value);
  const pathFields = new Map<string, readonly DescField[]>();
  const uidVariables = new Set<string>();
  for (const v of template.variables) {
    if (v.end - v.start === 1 && template.segments[v.start]?.kind === "deep") uidVariables.add(v.fieldPath);
    const chain = resolveFieldPath(method.input, v.fieldPath);
    const leaf = chain?.at(-1);
    if (!chain || (leaf?.fieldKind !== "scalar" && leaf?.fieldKind !== "enum")) {
      return fail(`path variable ${v.fieldPath} is not a singular scalar field of ${method.input.typeName}`);
    }
    pathFields.set(v.fieldPath, chain);
  }
  let bodyField: MessageField | undefined;
  if (rule.body !== "" && rule.body !== "*") {
    const field = findField(method.input, rule.body);
    if (field?.fieldKind !== "message") return fail(`body ${rule.body} is not a message field of ${method.input.typeName}`);
    bodyField = field;
  }
  let responseBodyField: DescField | undefined;
  if (rule.responseBody !== "") {
    responseBodyField = findField(method.output, rule.responseBody);
    if (!responseBodyField) fail(`response_body ${rule.responseBody} is not a field of ${method.output.typeName}`);
  }
  return {
    httpMethod,
    template,
    method,
    body: rule.body,
    bodyField,
    responseBody: rule.responseBody,
    responseBodyField,
    pathFields,
    uidVariables,
  };
}
