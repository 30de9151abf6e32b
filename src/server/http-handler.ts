/**
 * The request handler behind the one port: Connect (gRPC, gRPC-Web, Connect) by path, the
 * unauthenticated health, metrics and issuer endpoints, then REST derived from the
 * google.api.http annotations. Every request gets one access-log line and its metrics.
 */
import { DEVICE_CODE_GRANT } from "../auth/device-poll.js";
import { performance } from "node:perf_hooks";
import type { JsonValue } from "@bufbuild/protobuf";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import { createContextValues } from "@connectrpc/connect";
import { universalRequestFromNodeRequest, universalResponseToNodeResponse } from "@connectrpc/connect-node";
import type { Logger } from "pino";
import { ApiError, Code, invalidArgument, notFound, unavailable } from "../domain/errors.js";
import type { TokenExchange } from "../auth/exchange.js";
import type { KeyRing } from "../auth/key-ring.js";
import type { Store } from "../store/types.js";
import { bearerChallenge } from "./bearer-challenge.js";
import type { ClientAddress } from "./client-address.js";
import { callRecordKey } from "./connect-handlers.js";
import type { Cors } from "./cors.js";
import { dropFarDeadline } from "./far-deadline.js";
import type { OAuthEndpoints } from "./oauth-endpoints.js";
import type { RegistryEndpoints } from "./registry-endpoints.js";
import type { Invoker } from "./invoker.js";
import { header, readBody, splitTarget, writeJson, type AnyRequest, type AnyResponse } from "./http-util.js";
import { completeRuntimeRefusal } from "./runtime-refusals.js";
import type { Metrics } from "./metrics.js";
import { serveMetrics } from "./metrics-endpoint.js";
import type { RequestLimits } from "./request-limits.js";
import { decodeRequest } from "./rest/decode.js";
import { toApiJson } from "./rest/json.js";
import type { RouteTable } from "./rest/route-table.js";
import { errorDomainFor, grpcMessageEncode, httpStatusOf, statusJson, toApiError } from "./status.js";
import { exchangePath, serveExchange } from "./sts-exchange.js";
import { BUILD_INFO } from "../build-info.js";
import { recordFailure, type RequestLog } from "./request-log.js";

/** What the handler serves from. */
export interface HttpHandlerDeps {
  connect: ReadonlyMap<string, UniversalHandler>;
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
  /** The issuer URL ({auth_url}); its path prefixes the discovery endpoints. */
  issuer: () => string;
  maxBodyBytes: number;
  /** True once shutdown has begun: readiness fails and HTTP/1.1 connections close. */
  draining: () => boolean;
  /** Cross-origin access for browsers. */
  cors: Cors;
  /** The OpenAPI document of the REST API, served at /openapi.json. */
  openapi: () => JsonValue;
  /** The bearer token /metrics requires; undefined: /metrics is not served on this port. */
  metricsToken: string | undefined;
  /** The client's address: the peer, or what a trusted proxy forwarded (ARBOR_TRUSTED_PROXIES). */
  clientAddress: ClientAddress;
}

export function createHttpHandler(deps: HttpHandlerDeps): (req: AnyRequest, res: AnyResponse) => void {
  return (req, res) => {
    const start = performance.now();
    const record: RequestLog = { address: deps.clientAddress(req) };
    const connect = deps.connect.get(splitTarget(req).path);
    const transport = connect ? connectTransportOf(req) : "rest";
    if (deps.draining() && req.httpVersionMajor === 1) res.setHeader("connection", "close");
    res.once("close", () => finish(deps, req, res, record, transport, start));
    if (deps.cors.handle(req, res)) {
      record.route = "OPTIONS (CORS preflight)";
      record.code = 0;
      return;
    }
    const served = connect ? serveConnect(connect, req, res, record, errorDomainFor(splitTarget(req).path.slice(1), deps.domain())) : dispatch(deps, req, res, record);
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

async function dispatch(deps: HttpHandlerDeps, req: AnyRequest, res: AnyResponse, record: RequestLog): Promise<void> {
  const path = splitTarget(req).path;
  const method = req.method ?? "GET";
  if (!UNLIMITED.has(path)) {
    deps.limits.address(record.address);
    record.addressCounted = true;
    if (CREDENTIAL_PATH.test(path)) deps.limits.credentials(record.address);
  }
  if (headerCount(req) > MAX_HEADERS) throw invalidArgument("headers", `a request may carry at most ${MAX_HEADERS} headers`);
  if (path === exchangePath(deps.issuer())) return exchangeRoute(deps, method, req, res, record);
  const oauth = await deps.oauth.serve(path, method, req, res, record);
  if (oauth === true) return;
  if (oauth !== false) return methodNotAllowed(deps, res, record, method, path, oauth.allowed);
  const registry = await deps.registry.serve(path, method, req, res, record);
  if (registry === true) return;
  if (registry !== false) return methodNotAllowed(deps, res, record, method, path, registry.allowed);
  if (method === "GET" || method === "HEAD") {
    const fixed = await serveFixed(deps, path, req, res, record);
    if (fixed) return;
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

async function exchangeRoute(deps: HttpHandlerDeps, method: string, req: AnyRequest, res: AnyResponse, record: RequestLog): Promise<void> {
  if (method === "GET" || method === "POST") return serveExchange(deps.exchange, deps.limits, deps.domain(), req, res, record);
  methodNotAllowed(deps, res, record, method, splitTarget(req).path, ["GET", "POST"]);
}

/** A known path under another method: 405 with Allow, as HTTP asks, carrying code 12. */
function methodNotAllowed(deps: HttpHandlerDeps, res: AnyResponse, record: RequestLog, method: string, path: string, allowed: readonly string[]): void {
  record.route = "unmatched";
  record.code = Code.UNIMPLEMENTED;
  const err = new ApiError(Code.UNIMPLEMENTED, `Method not allowed: ${method} ${path} (allowed: ${allowed.join(", ")})`);
  writeJson(res, 405, statusJson(err, errorDomainFor(path, deps.domain())), { allow: allowed.join(", ") });
}

async function serveFixed(deps: HttpHandlerDeps, path: string, req: AnyRequest, res: AnyResponse, record: RequestLog): Promise<boolean> {
  const issuerPath = new URL(deps.issuer()).pathname.replace(/\/$/, "");
  switch (path) {
    case "/healthz":
      record.route = "GET /healthz";
      // The version and commit, as `arbor version` shows them; nothing else about the build.
      writeJson(res, 200, { status: "SERVING", version: BUILD_INFO.version, commit: BUILD_INFO.commit });
      break;
    case "/readyz":
      record.route = "GET /readyz";
      if (deps.draining()) throw unavailable("the server is shutting down");
      await deps.store.ping();
      writeJson(res, 200, { status: "SERVING" });
      break;
    case "/openapi.json":
      record.route = "GET /openapi.json";
      writeJson(res, 200, deps.openapi(), { "cache-control": "public, max-age=300" });
      break;
    case "/metrics":
      record.route = "GET /metrics";
      await serveMetrics(deps.metrics, deps.metricsToken, true, req, res);
      break;
    case `${issuerPath}/.well-known/openid-configuration`:
      record.route = "GET /.well-known/openid-configuration";
      writeJson(res, 200, discovery(deps.issuer()), { "cache-control": "public, max-age=300" });
      break;
    case `${issuerPath}/.well-known/jwks.json`:
      record.route = "GET /.well-known/jwks.json";
      writeJson(res, 200, await deps.keys.jwks(), { "cache-control": "public, max-age=300" });
      break;
    default:
      return false;
  }
  record.code = 0;
  return true;
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

async function serveConnect(handler: UniversalHandler, req: AnyRequest, res: AnyResponse, record: RequestLog, domain: string): Promise<void> {
  const values = createContextValues().set(callRecordKey, record);
  dropFarDeadline(req.headers);
  const uReq = universalRequestFromNodeRequest(req, res, undefined, values);
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

function finish(deps: HttpHandlerDeps, req: AnyRequest, res: AnyResponse, record: RequestLog, transport: string, start: number): void {
  const seconds = (performance.now() - start) / 1000;
  const code = record.code ?? (res.writableFinished ? Code.UNKNOWN : Code.CANCELLED);
  const rpc = record.rpc ?? record.route ?? "unmatched";
  deps.metrics.observe(rpc, transport, code, seconds);
  const line = {
    transport,
    method: req.method,
    path: splitTarget(req).path,
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
