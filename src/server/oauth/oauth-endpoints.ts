/**
 * The login endpoints under the issuer URL's path (DESIGN 1.7): `GET /oauth/login`,
 * `GET /oauth/callback` and the device verification page `GET|POST /oauth/device` face a browser
 * (redirects, or a page); `POST /oauth/token`, `/oauth/revoke`, `/oauth/device_authorization`
 * and `/oauth/preflight` face the CLI (form or JSON in, JSON out, errors as google.rpc.Status
 * with the OAuth `error` beside it where OAuth defines one). Secrets travel only in query strings of redirects and in bodies, and the
 * access log records paths without their queries, so none reaches the log.
 */
import { invalidArgument, isApiError, Code } from "../../domain/errors.js";
import type { DeviceFlow } from "../../auth/device-flow.js";
import { DEVICE_ERRORS } from "../../auth/device-poll.js";
import type { LoginFlow, LoginOutcome } from "../../auth/login-flow.js";
import type { ApiError } from "../../domain/errors.js";
import type { IdSource } from "../../domain/uid.js";
import { createDevicePage } from "./device-page.js";
import type { LoginTokenEndpoint } from "../../auth/login-token.js";
import { queryOf, refuseNulParams, readBody, writeJson, type AnyRequest, type AnyResponse } from "../http/http-util.js";
import type { RequestLimits } from "../http/request-limits.js";
import { writeErrorPage, writePage, writeRedirect } from "./oauth-pages.js";
import { errorDomainFor, httpStatusOf, statusJson } from "../errors-to-wire.js";
import type { FixedHandler, FixedRoutes } from "../http/fixed-routes.js";
import { recordFailure, type RequestLog } from "../http/request-log.js";

/** The largest token or revocation request body: a few short parameters. */
const MAX_FORM_BYTES = 16 * 1024;

/** The login endpoints, at {auth_url}'s path plus /oauth/... */
export interface OAuthEndpoints {
  /** The endpoints' routes, without the issuer's path (http/path-prefix.ts takes it off requests). */
  routes(): FixedRoutes;
}

/** What the endpoints are built from. */
export interface OAuthEndpointsDeps {
  flow: LoginFlow;
  device: DeviceFlow;
  token: LoginTokenEndpoint;
  ids: IdSource;
  /** {auth_url}: its path prefixes the endpoints. */
  issuer: () => string;
  /** The suffix of error domains. */
  domain: () => string;
  /**
   * The throttle of refused credentials at `/oauth/token` and the verification page: per address
   * only, as a code, refresh token or user code that is not found names no identity.
   */
  throttle: Pick<RequestLimits, "authAllowed" | "authFailed">;
}

export function createOAuthEndpoints(deps: OAuthEndpointsDeps): OAuthEndpoints {
  const browser =
    (step: (q: URLSearchParams, address: string | undefined) => Promise<LoginOutcome>) =>
    async (req: AnyRequest, res: AnyResponse, record: RequestLog) => {
      let query: URLSearchParams;
      try {
        query = refuseNulParams(queryOf(req));
      } catch (e) {
        if (!isApiError(e)) throw e;
        record.code = e.code;
        writeErrorPage(res, e);
        return;
      }
      const outcome = await step(query, record.address);
      const error = "page" in outcome ? outcome.page : "error" in outcome ? outcome.error : undefined;
      if (error === undefined) record.code = 0;
      else recordFailure(record, error);
      if ("page" in outcome) writeErrorPage(res, outcome.page);
      else if ("deviceLoggedIn" in outcome) writePage(res, 200, "device logged in", DEVICE_LOGGED_IN);
      else writeRedirect(res, outcome.location);
    };
  /** A JSON endpoint; throttled ones refuse early past the budget and spend on refused credentials. */
  const api =
    (step: (p: URLSearchParams, address: string | undefined) => Promise<object>, throttled: boolean) =>
    async (req: AnyRequest, res: AnyResponse, record: RequestLog) => {
      const address = record.address;
      try {
        if (throttled) deps.throttle.authAllowed(address, undefined);
        const answer = await step(await paramsOf(req), address);
        record.code = 0;
        writeJson(res, 200, answer, { pragma: "no-cache" });
      } catch (e) {
        if (!isApiError(e) || e.code === Code.INTERNAL) throw e;
        if (throttled && e.code === Code.UNAUTHENTICATED) deps.throttle.authFailed(address, undefined);
        record.code = e.code;
        const retry: Record<string, string> =
          e.details.retryDelayMs === undefined ? {} : { "retry-after": String(Math.ceil(e.details.retryDelayMs / 1000)) };
        const oauth = oauthErrorOf(e);
        const body = {
          ...statusJson(e, errorDomainFor("arbor.iam.", deps.domain())),
          ...(oauth !== undefined && { error: oauth, error_description: e.message }),
        };
        writeJson(res, httpStatusOf(e), body, retry);
      }
    };
  const page = createDevicePage({ device: deps.device, ids: deps.ids, issuer: deps.issuer, throttle: deps.throttle });
  const routes: Record<string, Record<string, FixedHandler>> = {
    "/oauth/login": { GET: browser((q, address) => deps.flow.start(q, address)) },
    "/oauth/callback": { GET: browser((q) => deps.flow.callback(q)) },
    "/oauth/token": { POST: api((p) => deps.token.token(p), true) },
    // Revocation refuses no credential (an unknown token is revoked all the same): nothing to throttle.
    "/oauth/revoke": { POST: api(async (p) => (await deps.token.revoke(p), {}), false) },
    // Bounded by the limits of logins in progress, per address and overall, as /oauth/login is.
    "/oauth/device_authorization": { POST: api((p, address) => deps.device.authorize(p, address), false) },
    "/oauth/device": { GET: page.show, POST: page.submit },
    "/oauth/preflight": { POST: api((p) => deps.flow.preflight(p), false) },
  };
  return {
    routes() {
      return new Map(
        Object.entries(routes).map(([sub, byMethod]) => [
          sub,
          Object.fromEntries(
            Object.entries(byMethod).map(([method, handle]) => [
              method,
              (req, res, record) => ((record.route = `${method} ${sub}`), handle(req, res, record)),
            ]),
          ),
        ]),
      );
    },
  };
}

/** What the browser reads once a headless login is done. */
const DEVICE_LOGGED_IN = "<h1>Logged in</h1>\n<p>Your device is logged in to Arbor. Return to its terminal; you can close this window.</p>";

/**
 * The OAuth error code (RFC 6749 5.2, RFC 8628 3.5) of a failure at a JSON endpoint, for OAuth
 * clients that read `error`: undefined where OAuth has none for it.
 */
function oauthErrorOf(e: ApiError): string | undefined {
  const type = e.details.preconditionViolations?.[0]?.type ?? "";
  if (e.code === Code.FAILED_PRECONDITION && (DEVICE_ERRORS as readonly string[]).includes(type)) return type.toLowerCase();
  if (e.code === Code.INVALID_ARGUMENT)
    return e.details.fieldViolations?.[0]?.field === "grant_type" ? "unsupported_grant_type" : "invalid_request";
  if (e.code === Code.UNAUTHENTICATED) return "invalid_grant";
  return undefined;
}

/**
 * The parameters of a POST body: application/x-www-form-urlencoded (as OAuth clients send
 * them) or a JSON object of strings. Never the query: secrets do not belong in URLs.
 */
async function paramsOf(req: AnyRequest): Promise<URLSearchParams> {
  const body = (await readBody(req, MAX_FORM_BYTES)).toString("utf8");
  const type = String(req.headers["content-type"] ?? "")
    .split(";")[0]
    ?.trim()
    .toLowerCase();
  if (type === "application/x-www-form-urlencoded") return refuseNulParams(new URLSearchParams(body));
  if (type === "application/json") {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      throw invalidArgument("body", "is not valid JSON");
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalidArgument("body", "must be a JSON object");
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(parsed)) {
      if (typeof v !== "string") throw invalidArgument(k, "must be a string");
      params.set(k, v);
    }
    return refuseNulParams(params);
  }
  throw invalidArgument("body", "must be application/x-www-form-urlencoded or application/json");
}
