/**
 * The request handler behind the one port: Connect (gRPC, gRPC-Web, Connect) by path, the
 * unauthenticated health, metrics and issuer endpoints, then REST derived from the
 * google.api.http annotations. Every request gets one access-log line and its metrics.
 */
import { DEVICE_CODE_GRANT } from "../../auth/device-poll.js";
import { performance } from "node:perf_hooks";
import type { JsonValue } from "@bufbuild/protobuf";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import { createContextValues } from "@connectrpc/connect";
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import type { Logger } from "pino";
import { ApiError, Code, invalidArgument, notFound, unavailable } from "../../domain/errors.js";
import type { TokenExchange } from "../../auth/exchange.js";
import type { KeyRing } from "../../auth/key-ring.js";
import type { Store } from "../../store/store.js";
import { bearerChallenge } from "./bearer-challenge.js";
import type { ClientAddress } from "./client-address.js";
import { callRecordKey } from "../connect/connect-handlers.js";
import type { ConsoleSite } from "../console/console-site.js";
import type { Cors } from "./cors.js";
import { dropFarDeadline } from "../connect/far-deadline.js";
import type { GrpcUnary } from "../connect/grpc-unary.js";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { OAuthEndpoints } from "../oauth/oauth-endpoints.js";
import type { RegistryEndpoints } from "../registry/registry-endpoints.js";
import type { Invoker } from "../invoker.js";
import { header, readBody, splitTarget, writeJson, type AnyRequest, type AnyResponse } from "./http-util.js";
import { completeRuntimeRefusal } from "../connect/runtime-refusals.js";
import type { Metrics } from "../metrics/metrics.js";
import { serveMetrics } from "../metrics/metrics-endpoint.js";
import type { RequestLimits } from "./request-limits.js";
import { decodeRequest } from "../rest/decode.js";
import { toApiJson } from "../rest/json.js";
import type { RouteTable } from "../rest/route-table.js";
import { errorDomainFor, grpcMessageEncode, httpStatusOf, statusJson, toApiError } from "../errors-to-wire.js";
import { EXCHANGE_ROUTE, serveExchange } from "../sts/sts-exchange.js";
import { BUILD_INFO } from "../../build-info.js";
import { recordFailure, type RequestLog } from "./request-log.js";
import { pathPrefixesOf, stripPathPrefix } from "./path-prefix.js";
import { fixedRouteTable, readOnly, type FixedHandler, type FixedRoute, type FixedRoutes } from "./fixed-routes.js";

/** What the handler serves from. */
export interface HttpHandlerDeps {
  connect: ReadonlyMap<string, UniversalHandler>;
  /** gRPC's unary calls in binary protobuf over HTTP/2, served beside Connect (grpc-unary.ts). */
  grpcUnary: GrpcUnary;
  routes: RouteTable;
  invoker: Invoker;
  store: Store;
  keys: KeyRing;
  /** The workload token exchange, served at {auth_url}/sts/exchange. */
  exchange: TokenExchange;
  /** People's login: {auth_url}/oauth/login, /oauth/callback, /oauth/token and /oauth/revoke. */
  oauth: OAuthEndpoints;
  /** The registry's: {auth_url}/registry/token and {base_url}/registry/notifications. */
  registry: RegistryEndpoints;
  metrics: Metrics;
  logger: Logger;
  /** Rate limits per address, and on the endpoints that take credentials. */
  limits: RequestLimits;
  /** The suffix of error domains. */
  domain: () => string;
  /** The issuer URL ({auth_url}): discovery names it. */
  issuer: () => string;
  /** {base_url}. */
  base: () => string;
  maxBodyBytes: number;
  /** True once shutdown has begun: readiness fails and HTTP/1.1 connections close. */
  draining: () => boolean;
  /** Cross-origin access for browsers. */
  cors: Cors;
  /** The web console at {base_url}/console/, and the redirect of / to it. */
  console: ConsoleSite;
  /** The OpenAPI document of the REST API, served at /openapi.json. */
  openapi: () => JsonValue;
  /** The bearer token /metrics requires; undefined: /metrics is not served on this port. */
  metricsToken: string | undefined;
  /** The client's address: the peer, or what a trusted proxy forwarded (ARBOR_TRUSTED_PROXIES). */
  clientAddress: ClientAddress;
}

export function createHttpHandler(deps: HttpHandlerDeps): (req: AnyRequest, res: AnyResponse) => void {
  let table: FixedRoutes | undefined;
  const fixedRoutes = () => (table ??= fixedRoutesOf(deps));
  let prefixes: string[] | undefined;
  return (req, res) => {
    const start = performance.now();
    const received = splitTarget(req).path;
    // Routes are declared without the base URL's or issuer's path; a proxy may have kept it.
    prefixes ??= pathPrefixesOf([deps.base(), deps.issuer()]);
    if (prefixes.length > 0 && req.url !== undefined) req.url = stripPathPrefix(req.url, prefixes);
    const record: RequestLog = { address: deps.clientAddress(req) };
    const connect = deps.connect.get(splitTarget(req).path);
    const transport = connect ? connectTransportOf(req) : "rest";
    if (deps.draining() && req.httpVersionMajor === 1) res.setHeader("connection", "close");
    res.once("close", () => finish(deps, req, res, received, record, transport, start));
    if (deps.cors.handle(req, res)) {
      record.route = "OPTIONS (CORS preflight)";
      record.code = 0;
      return;
    }
    const served = connect
      ? serveConnect(connect, deps.grpcUnary, req, res, record, errorDomainFor(splitTarget(req).path.slice(1), deps.domain()))
      : dispatch(deps, fixedRoutes, req, res, record);
    served.catch((e: unknown) => {
      const err = toApiError(e);
      recordFailure(record, err);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const path = splitTarget(req).path;
      const headers: { [name: string]: string } = {};
      if (err.details.retryDelayMs !== undefined) headers["retry-after"] = String(Math.ceil(err.details.retryDelayMs / 1000));
      if (err.code === Code.UNAUTHENTICATED) headers["www-authenticate"] = bearerChallenge(req, err);
      writeJson(res, httpStatusOf(err), statusJson(err, errorDomainFor(path, deps.domain())), headers);
    });
  };
}

/** Paths never rate limited: probes and scrapes must see the server as it is. */
const UNLIMITED = new Set(["/healthz", "/readyz", "/metrics"]);
/** The endpoints that take credentials, limited per address against guessing. */
const CREDENTIAL_PATH = /\/(?:sts\/exchange|oauth\/token|registry\/token)$/;
/** More headers than this is abuse, not a client. */
export const MAX_HEADERS = 100;

async function dispatch(
  deps: HttpHandlerDeps,
  fixedRoutes: () => FixedRoutes,
  req: AnyRequest,
  res: AnyResponse,
  record: RequestLog,
): Promise<void> {
  const path = splitTarget(req).path;
  const method = req.method ?? "GET";
  if (!UNLIMITED.has(path)) {
    deps.limits.address(record.address);
    record.addressCounted = true;
    if (CREDENTIAL_PATH.test(path)) deps.limits.credentials(record.address);
  }
  if (headerCount(req) > MAX_HEADERS) throw invalidArgument("headers", `a request may carry at most ${MAX_HEADERS} headers`);
  const fixed = fixedRoutes().get(path);
  if (fixed !== undefined) {
    const handle = fixed[method];
    if (handle === undefined) return methodNotAllowed(deps, res, record, method, path, Object.keys(fixed));
    return handle(req, res, record);
  }
  const consolePath = deps.console.match(path);
  if (consolePath !== undefined || deps.console.isRoot(path)) {
    if (method !== "GET" && method !== "HEAD") return methodNotAllowed(deps, res, record, method, path, ["GET", "HEAD"]);
    if (consolePath === undefined) return deps.console.redirect(res, record);
    return deps.console.serve(consolePath, req, res, record);
  }
  // HEAD is GET without the body (RFC 9110 9.3.2): same route, status and headers, Content-Length
  // included; node:http and node:http2 leave the body out of a HEAD response themselves.
  const match = deps.routes.match(method === "HEAD" ? "GET" : method, path);
  if (match === undefined) {
    record.route = "unmatched";
    throw notFound("route", `${method} ${path}`);
  }
  if ("allowed" in match) return methodNotAllowed(deps, res, record, method, path, withHead(match.allowed));
  const body = await readBody(req, deps.maxBodyBytes);
  const request = decodeRequest(match.route, match.params, splitTarget(req).query, body, header(req, "content-type"));
  const response = await deps.invoker.invoke({
    method: match.route.method,
    request,
    authorization: header(req, "authorization"),
    signal: signalOf(res),
    record,
  });
  record.code = 0;
  writeJson(res, 200, toApiJson(match.route.method.output, response));
}

/** The methods a REST path allows: HEAD wherever GET is. */
function withHead(allowed: readonly string[]): string[] {
  return allowed.flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m]));
}

/** The request's headers, HTTP/2 pseudo-headers (`:path`) aside. */
function headerCount(req: AnyRequest): number {
  let n = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (!(req.rawHeaders[i] ?? "").startsWith(":")) n++;
  return n;
}

/** A known path under another method: 405 with Allow, as HTTP asks, carrying code 12. */
function methodNotAllowed(
  deps: HttpHandlerDeps,
  res: AnyResponse,
  record: RequestLog,
  method: string,
  path: string,
  allowed: readonly string[],
): void {
  record.route = "unmatched";
  record.code = Code.UNIMPLEMENTED;
  const err = new ApiError(Code.UNIMPLEMENTED, `Method not allowed: ${method} ${path} (allowed: ${allowed.join(", ")})`);
  writeJson(res, 405, statusJson(err, errorDomainFor(path, deps.domain())), { allow: allowed.join(", ") });
}

/**
 * Every endpoint that is no RPC, by path: the exchange, people's login, the registry's, and the
 * server's own (probes, OpenAPI, metrics, discovery and keys), by their paths on the port (no
 * base URL's or issuer's path: the handler takes it off).
 */
function fixedRoutesOf(deps: HttpHandlerDeps): FixedRoutes {
  const exchange: FixedHandler = (req, res, record) => serveExchange(deps.exchange, deps.limits, deps.domain(), req, res, record);
  const json =
    (route: string, body: () => unknown, headers: { [name: string]: string } = {}): FixedHandler =>
    async (_req, res, record) => {
      record.route = route;
      writeJson(res, 200, await body(), headers);
      record.code = 0;
    };
  const cached = { "cache-control": "public, max-age=300" };
  const own = new Map<string, FixedRoute>([
    // The version and commit, as `arbor version` shows them; nothing else about the build.
    ["/healthz", readOnly(json("GET /healthz", () => ({ status: "SERVING", version: BUILD_INFO.version, commit: BUILD_INFO.commit })))],
    [
      "/readyz",
      readOnly(
        json("GET /readyz", async () => {
          if (deps.draining()) throw unavailable("the server is shutting down");
          await deps.store.ping();
          return { status: "SERVING" };
        }),
      ),
    ],
    ["/openapi.json", readOnly(json("GET /openapi.json", deps.openapi, cached))],
    [
      "/metrics",
      readOnly(async (req, res, record) => {
        record.route = "GET /metrics";
        await serveMetrics(deps.metrics, deps.metricsToken, true, req, res);
        record.code = 0;
      }),
    ],
    ["/.well-known/openid-configuration", readOnly(json("GET /.well-known/openid-configuration", () => discovery(deps.issuer()), cached))],
    ["/.well-known/jwks.json", readOnly(json("GET /.well-known/jwks.json", () => deps.keys.jwks(), cached))],
    [EXCHANGE_ROUTE, { GET: exchange, POST: exchange }],
  ]);
  return fixedRouteTable(own, deps.oauth.routes(), deps.registry.routes());
}

/**
 * The OpenID discovery document of Arbor as a token issuer, with the endpoints of people's login
 * that OAuth clients look up here (RFC 8414; the device endpoint, RFC 8628 section 4).
 */
function discovery(issuer: string) {
  return {
    issuer,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    device_authorization_endpoint: `${issuer}/oauth/device_authorization`,
    grant_types_supported: ["authorization_code", "refresh_token", DEVICE_CODE_GRANT],
    response_types_supported: ["id_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: ["ES256"],
    claims_supported: ["iss", "sub", "aud", "iat", "exp", "jti", "act"],
  };
}

async function serveConnect(
  handler: UniversalHandler,
  grpcUnary: GrpcUnary,
  req: AnyRequest,
  res: AnyResponse,
  record: RequestLog,
  domain: string,
): Promise<void> {
  dropFarDeadline(req.headers);
  let body: AsyncIterable<Uint8Array> | undefined;
  const unary = grpcUnary.eligible(handler.method, req);
  if (unary !== undefined) {
    const outcome = await grpcUnary.serve(unary, req as Http2ServerRequest, res as Http2ServerResponse, record);
    if (outcome.served) return;
    body = outcome.body;
  }
  const values = createContextValues().set(callRecordKey, record);
  const uReq = universalRequestFromNodeRequest(req, res, undefined, values);
  if (body !== undefined) uReq.body = body;
  const uRes = await completeRuntimeRefusal(await handler(uReq), domain);
  for (const headers of [uRes.header, uRes.trailer]) {
    const message = headers?.get("grpc-message");
    if (message != null) headers?.set("grpc-message", grpcMessageEncode(message));
  }
  if (record.code === undefined) {
    const status = uRes.header?.get("grpc-status") ?? uRes.trailer?.get("grpc-status");
    record.code = status != null ? Number(status) : uRes.status === 200 ? 0 : Code.UNKNOWN;
  }
  await universalResponseToNodeResponse(uRes, res);
}

function finish(
  deps: HttpHandlerDeps,
  req: AnyRequest,
  res: AnyResponse,
  received: string,
  record: RequestLog,
  transport: string,
  start: number,
): void {
  const seconds = (performance.now() - start) / 1000;
  const code = record.code ?? (res.writableFinished ? Code.UNKNOWN : Code.CANCELLED);
  const rpc = record.rpc ?? record.route ?? "unmatched";
  deps.metrics.observe(rpc, transport, code, seconds);
  const line = {
    transport,
    method: req.method,
    // As received, so the line matches the proxy's.
    path: received,
    rpc,
    status: res.statusCode,
    code,
    duration_ms: Math.round(seconds * 1e6) / 1e3,
    address: record.address,
    ...(record.caller !== undefined && { caller: record.caller }),
    ...(record.reason !== undefined && { reason: record.reason }),
  };
  if (record.error !== undefined) deps.logger.error({ ...line, err: record.error }, "request failed");
  else deps.logger.info(line, "request");
}

function connectTransportOf(req: AnyRequest): string {
  const type = header(req, "content-type") ?? "";
  if (type.startsWith("application/grpc-web")) return "grpc-web";
  if (type.startsWith("application/grpc")) return "grpc";
  return "connect";
}

function signalOf(res: AnyResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}
