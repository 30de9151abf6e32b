/**
 * The login endpoints under the issuer URL's path (DESIGN 1.7): `GET /oauth/login` and
 * `GET /oauth/callback` face a browser (redirects, or a page saying what failed);
 * `POST /oauth/token` and `POST /oauth/revoke` face the CLI (form or JSON in, JSON out, errors as
 * google.rpc.Status). Secrets travel only in query strings of redirects and in bodies, and the
 * access log records paths without their queries, so none reaches the log.
 */
import { invalidArgument, isApiError, Code } from "../domain/errors.js";
import type { LoginFlow, LoginOutcome } from "../auth/login-flow.js";
import type { LoginTokenEndpoint } from "../auth/login-token.js";
import { queryOf, refuseNulParams, readBody, writeJson, type AnyRequest, type AnyResponse } from "./http-util.js";
import type { RequestLimits } from "./request-limits.js";
import { writeErrorPage, writeRedirect } from "./oauth-pages.js";
import { errorDomainFor, httpStatusOf, statusJson } from "./status.js";

/** The largest token or revocation request body: a few short parameters. */
const MAX_FORM_BYTES = 16 * 1024;

/** What the access log learns of a login request. */
export interface OAuthRecord {
  /** The client's address (src/server/client-address.ts). */
  address?: string;
  code?: number;
  error?: unknown;
  route?: string;
}

/** The login endpoints. */
export interface OAuthEndpoints {
  /**
   * Serves the request when path is one of the endpoints: true when it did, the allowed methods
   * when the path is one but the method is not, false when the path is none of them.
   */
  serve(path: string, method: string, req: AnyRequest, res: AnyResponse, record: OAuthRecord): Promise<boolean | { allowed: string[] }>;
}

/** What the endpoints are built from. */
export interface OAuthEndpointsDeps {
  flow: LoginFlow;
  token: LoginTokenEndpoint;
  /** {auth_url}: its path prefixes the endpoints. */
  issuer: () => string;
  /** The suffix of error domains. */
  domain: () => string;
  /**
   * The throttle of refused credentials at `/oauth/token`: per address only, as a code or a
   * refresh token that is not found names no identity.
   */
  throttle: Pick<RequestLimits, "authAllowed" | "authFailed">;
}

/** Creates the login endpoints. */
export function createOAuthEndpoints(deps: OAuthEndpointsDeps): OAuthEndpoints {
  const browser = (step: (q: URLSearchParams, address: string | undefined) => Promise<LoginOutcome>) => async (req: AnyRequest, res: AnyResponse, record: OAuthRecord) => {
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
    const error = "page" in outcome ? outcome.page : outcome.error;
    record.code = error?.code ?? 0;
    if (error?.code === Code.INTERNAL) record.error = error.cause ?? error;
    if ("page" in outcome) writeErrorPage(res, outcome.page);
    else writeRedirect(res, outcome.location);
  };
  /** A JSON endpoint; throttled ones refuse early past the budget and spend on refused credentials. */
  const api = (step: (p: URLSearchParams) => Promise<object>, throttled: boolean) => async (req: AnyRequest, res: AnyResponse, record: OAuthRecord) => {
    const address = record.address;
    try {
      if (throttled) deps.throttle.authAllowed(address, undefined);
      const answer = await step(await paramsOf(req));
      record.code = 0;
      writeJson(res, 200, answer, { pragma: "no-cache" });
    } catch (e) {
      if (!isApiError(e) || e.code === Code.INTERNAL) throw e;
      if (throttled && e.code === Code.UNAUTHENTICATED) deps.throttle.authFailed(address, undefined);
      record.code = e.code;
      const retry: Record<string, string> = e.details.retryDelayMs === undefined ? {} : { "retry-after": String(Math.ceil(e.details.retryDelayMs / 1000)) };
      writeJson(res, httpStatusOf(e), statusJson(e, errorDomainFor("arbor.iam.", deps.domain())), retry);
    }
  };
  const routes: Record<string, { method: string; handle: (req: AnyRequest, res: AnyResponse, record: OAuthRecord) => Promise<void> }> = {
    "/oauth/login": { method: "GET", handle: browser((q, address) => deps.flow.start(q, address)) },
    "/oauth/callback": { method: "GET", handle: browser((q) => deps.flow.callback(q)) },
    "/oauth/token": { method: "POST", handle: api((p) => deps.token.token(p), true) },
    // Revocation refuses no credential (an unknown token is revoked all the same): nothing to throttle.
    "/oauth/revoke": { method: "POST", handle: api(async (p) => (await deps.token.revoke(p), {}), false) },
  };
  return {
    async serve(path, method, req, res, record) {
      const prefix = new URL(deps.issuer()).pathname.replace(/\/$/, "");
      if (!path.startsWith(`${prefix}/oauth/`)) return false;
      const sub = path.slice(prefix.length);
      const route = routes[sub];
      if (route === undefined) return false;
      if (method !== route.method) return { allowed: [route.method] };
      record.route = `${route.method} ${sub}`;
      await route.handle(req, res, record);
      return true;
    },
  };
}

/**
 * The parameters of a POST body: application/x-www-form-urlencoded (as OAuth clients send
 * them) or a JSON object of strings. Never the query: secrets do not belong in URLs.
 */
async function paramsOf(req: AnyRequest): Promise<URLSearchParams> {
  const body = (await readBody(req, MAX_FORM_BYTES)).toString("utf8");
  const type = String(req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
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
