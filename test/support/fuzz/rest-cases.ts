/**
 * Hostile REST requests for every route of the route table (so every annotated RPC, including
 * ones added later, is covered): odd path variables, query parameters, bodies and headers, and
 * percent-encoding that never throws.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import fc from "fast-check";
import type { Route } from "../../../src/server/rest/route-table.js";
import { anyJson, badUtf8, brokenJson, deepJson, hugeJson, oddNumber, oddString, uidArb, type KnownUids } from "./hostile-values.js";
import { messageValue, oddMask, oddOrderBy, oddPageToken } from "./message-values.js";

/** One HTTP request as sent: header values may repeat (an array sends the header several times). */
export interface HttpCase {
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** What the case aims at, for failure reports and counts. */
  target: string;
}

/** What requests may carry: the world's tokens and page tokens, and its uids. */
export interface CaseContext {
  known: KnownUids;
  /** An owner's valid token. */
  ownerToken: string;
  /** A valid token of someone with no bindings. */
  strangerToken: string;
  /** Real page tokens the server issued, to mangle. */
  pageTokens: string[];
}

/** Authorization header values: mostly the owner's, else missing, forged, doubled or huge. */
export function authorizationArb(c: CaseContext): fc.Arbitrary<string | string[] | undefined> {
  const [head = "", payload = "", signature = ""] = c.ownerToken.split(".");
  return fc.oneof(
    { weight: 10, arbitrary: fc.constant(`Bearer ${c.ownerToken}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${c.strangerToken}`) },
    { weight: 2, arbitrary: fc.constant(undefined) },
    {
      weight: 3,
      arbitrary: fc.constantFrom(
        "Bearer",
        "Bearer ",
        "bearer " + c.ownerToken,
        "Basic dXNlcjpwYXNz",
        `Bearer ${head}.${payload}.`,
        `Bearer ${head}.${payload}.${signature.slice(1)}A`,
        `Bearer eyJhbGciOiJub25lIn0.${payload}.`,
        `Bearer ${c.ownerToken} extra`,
        "Bearer a.b.c",
        "Bearer \u00e9",
        `Token ${c.ownerToken}`,
        "",
      ),
    },
    { weight: 1, arbitrary: fc.constant<string[]>([`Bearer ${c.ownerToken}`, "Bearer forged.token.value"]) },
    { weight: 1, arbitrary: fc.constant<string[]>([`Bearer ${c.strangerToken}`, `Bearer ${c.ownerToken}`]) },
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 14_000 }).map((n) => `Bearer ${"A".repeat(n)}`) },
    { weight: 1, arbitrary: fc.base64String({ maxLength: 300 }).map((s) => `Bearer ${s}`) },
  );
}

/** Content types, right and wrong. */
export const contentTypeArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant("application/json") },
  { weight: 1, arbitrary: fc.constant(undefined) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "text/plain",
      "application/json; charset=latin1",
      "application/json; charset=utf-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/proto",
      "application/grpc",
      "application/grpc-web+json",
      "application/connect+json",
      "*/*",
      "",
      "application/json, text/plain",
      "\u00e9",
    ),
  },
);

/** Extra headers that should change nothing. */
const extraHeadersArb: fc.Arbitrary<Record<string, string | string[]>> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Record<string, string | string[]>>(
      { "x-forwarded-for": "1.2.3.4, ::1" },
      { "content-encoding": "gzip" },
      { "content-encoding": "br" },
      { "transfer-encoding": "chunked" },
      { accept: "application/xml" },
      { "grpc-timeout": "1n" },
      { "connect-protocol-version": "2" },
      { "x-http-method-override": "DELETE" },
      { "x-huge": "h".repeat(12_000) },
      { "accept-encoding": "gzip, br, zstd" },
      { cookie: "a=b; " + "c".repeat(3000) },
      { "content-type": ["application/json", "text/plain"] },
    ),
  },
);

/** A query string: the fields the request message has, list parameters, unknown names, odd escapes. */
function queryArb(input: DescMessage, c: CaseContext): fc.Arbitrary<string> {
  const names = leafNames(input);
  const param = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(
        fc.constantFrom(...(names.length > 0 ? names : ["x"])),
        fc.oneof(oddString, oddNumber.map(String), uidArb(c.known)),
      ),
    },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom("page_size", "pageSize", "skip"), oddNumber.map(String)) },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom("page_token", "pageToken"), oddPageToken(c.pageTokens)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("order_by", "orderBy"), oddOrderBy) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("update_mask", "updateMask"), oddMask) },
    {
      weight: 1,
      arbitrary: fc.tuple(
        fc.constantFrom("uidp.descendants_of", "uidp.childrenOf", "uidp.ids", "uidp.in_root", "uidp", "uidp.nope"),
        uidArb(c.known),
      ),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom("", "%", "a%ZZ", "%00", "name%00", "__proto__", "x".repeat(3000)), oddString) },
  );
  return fc
    .array(param, { maxLength: 5 })
    .chain((pairs) =>
      fc
        .constantFrom("encoded", "raw", "plus")
        .map((style) =>
          pairs
            .map(([k, v]) =>
              style === "raw"
                ? `${k}=${v}`
                : `${percentEncode(k)}=${style === "plus" ? percentEncode(v).replaceAll("%20", "+") : percentEncode(v)}`,
            )
            .join("&"),
        ),
    );
}

/** Dotted names of the singular scalar fields a query can set, two levels deep, JSON or proto spelled. */
function leafNames(message: DescMessage, prefix = "", depth = 0): string[] {
  const out: string[] = [];
  for (const f of message.fields) {
    if (f.fieldKind === "message" && depth < 2) out.push(...leafNames(f.message, `${prefix}${f.name}.`, depth + 1));
    else out.push(`${prefix}${f.name}`, `${prefix}${f.jsonName}`);
  }
  return out;
}

/** The body: JSON shaped like the request (odd values), another shape, broken, huge, deep or not UTF-8. */
function bodyArb(route: Route, c: CaseContext): fc.Arbitrary<Buffer | undefined> {
  const shape: DescMessage = route.bodyField?.message ?? route.method.input;
  const json = (a: fc.Arbitrary<unknown>) => a.map((v) => Buffer.from(JSON.stringify(v) ?? "null"));
  const text = (a: fc.Arbitrary<string>) => a.map((s) => Buffer.from(s));
  return fc.oneof(
    { weight: route.body === "" ? 2 : 8, arbitrary: json(messageValue(shape, c.known)) },
    { weight: route.body === "" ? 6 : 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: json(anyJson) },
    { weight: 1, arbitrary: text(brokenJson) },
    { weight: 1, arbitrary: badUtf8 },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)) },
    { weight: 1, arbitrary: fc.oneof({ weight: 19, arbitrary: deepJson }, { weight: 1, arbitrary: hugeJson }).map((s) => Buffer.from(s)) },
  );
}

/** HTTP methods, known and not, for requests under the wrong one. */
export const OTHER_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "FOO", "HEAD"];

/** A hostile request for route. */
export function routeCaseArb(route: Route, c: CaseContext): fc.Arbitrary<HttpCase> {
  const vars = route.template.variables;
  const uid = uidArb(c.known);
  return fc
    .record({
      method: fc.oneof(
        { weight: 12, arbitrary: fc.constant(route.httpMethod) },
        { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) },
      ),
      values: fc.tuple(...vars.map(() => uid)),
      query: fc.oneof({ weight: 2, arbitrary: fc.constant("") }, { weight: 3, arbitrary: queryArb(route.method.input, c) }),
      body: bodyArb(route, c),
      auth: authorizationArb(c),
      contentType: contentTypeArb,
      extra: extraHeadersArb,
      mutation: fc.constantFrom("none", "none", "none", "none", "trailing-slash", "double-slash", "dot-segment", "encoded-slash", "case"),
    })
    .map(({ method, values, query, body, auth, contentType, extra, mutation }) => {
      let path = renderTemplate(route.template.source, values);
      path = mutatePath(path, mutation);
      const headers: Record<string, string | string[]> = { ...extra };
      if (auth !== undefined) headers.authorization = auth;
      if (contentType !== undefined && body !== undefined && headers["content-type"] === undefined) headers["content-type"] = contentType;
      // A GET with a body, or a POST without one: both are things clients send.
      const withBody = method === "HEAD" ? undefined : body;
      return {
        method,
        path: query === "" ? path : `${path}?${query}`,
        headers,
        body: withBody,
        target: `${route.httpMethod} ${route.template.source}`,
      };
    });
}

/** The template with each `{var}` or `{var=pattern}` replaced by a value. */
function renderTemplate(source: string, values: readonly string[]): string {
  let i = 0;
  return source.replace(/\{[^}]*\}/g, () => {
    const v = values[i++] ?? "";
    // Path-safe characters stay as given (uids keep their slashes, odd escapes stay odd); the rest is encoded.
    return v.replace(/[^A-Za-z0-9/%._~:;*\-\u00e9]/gu, percentEncode);
  });
}

/** Percent-encodes text as UTF-8 (a lone surrogate as U+FFFD, where encodeURIComponent throws). */
export function percentEncode(text: string): string {
  return [...Buffer.from(text, "utf8")].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join("");
}

function mutatePath(path: string, mutation: string): string {
  switch (mutation) {
    case "trailing-slash":
      return `${path}/`;
    case "double-slash":
      return path.replace("/", "//");
    case "dot-segment":
      return path.replace(/\/([^/]+)$/, "/../$1");
    case "encoded-slash":
      return path.replace(/\/([^/]+)$/, "%2F$1");
    case "case":
      return path.toUpperCase();
    default:
      return path;
  }
}
