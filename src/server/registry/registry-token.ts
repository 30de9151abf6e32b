/**
 * The Docker token endpoint, `GET` or `POST {auth_url}/registry/token` (DESIGN 1.9), as CNCF
 * Distribution's token authentication expects it: `service` and `scope` parameters, credentials as
 * HTTP Basic with user `_token` and an Arbor token for the registry host as password (or that
 * token as `Authorization: Bearer`, or the OAuth2 password grant's form). The answer is a registry
 * token carrying what the caller's role bindings allow of what it asked for.
 *
 * Errors are Docker's error JSON (`{"errors":[{"code","message"}]}`), which registry clients
 * print; refusals of credentials are 401 with `WWW-Authenticate: Basic`. Nothing of a token is
 * logged: the access log has the path without its query, no header, and the refusal's reason.
 *
 * Refused credentials are throttled per address: past the budget, 429 (`TOOMANYREQUESTS`) with
 * Retry-After before the token is checked. Not per identity: a refused token's `sub` is claimed,
 * not proven, and counting it would let anyone shut an identity out. Tokens issued spend nothing.
 */
import type { RegistryTokens } from "../../auth/registry-tokens.js";
import { grantAccess, parseScopes } from "../../auth/registry-scope.js";
import type { Tokens } from "../../auth/tokens.js";
import { Code, codeName, failedPrecondition, invalidArgument, isApiError, unauthenticated } from "../../domain/errors.js";
import type { Authorizer } from "../../auth/authorizer.js";
import type { RegistryIndex } from "../../services/registry/registry-index.js";
import {
  bearerToken,
  header,
  queryOf,
  refuseNulParams,
  readBody,
  writeJson,
  type AnyRequest,
  type AnyResponse,
} from "../http/http-util.js";
import type { RequestLimits } from "../http/request-limits.js";
import { httpStatusOf } from "../errors-to-wire.js";
import type { RequestLog } from "../http/request-log.js";

/** The user name registry clients send with an Arbor token as password. */
export const TOKEN_USER = "_token";

/** The largest form body accepted: a few parameters and one token. */
const MAX_FORM_BYTES = 16 * 1024;

/** What the endpoint is built from. */
export interface RegistryTokenDeps {
  /** Verifies the caller's Arbor token. */
  tokens: Tokens;
  registryTokens: RegistryTokens;
  authorizer: Pick<Authorizer, "callerPermissions">;
  index: Pick<RegistryIndex, "resolve" | "claim">;
  /** {registry_host}: the only service tokens are issued for; undefined when no registry is configured. */
  registryHost: string | undefined;
  /** The throttle of refused credentials. */
  throttle: Pick<RequestLimits, "authAllowed" | "authFailed">;
}

/** Serves one token request, answering refusals itself in Docker's error format. */
export async function serveRegistryToken(deps: RegistryTokenDeps, req: AnyRequest, res: AnyResponse, record: RequestLog): Promise<void> {
  record.route = `${req.method} /registry/token`;
  const address = record.address;
  try {
    deps.throttle.authAllowed(address, undefined);
    const params = await paramsOf(req);
    const service = single(params, "service");
    if (deps.registryHost === undefined)
      throw failedPrecondition("REGISTRY", "registryHost", "no registry is configured at this Arbor (ARBOR_REGISTRY_HOST)");
    if (service === undefined || service === "") throw invalidArgument("service", "the registry's service name is required");
    if (service !== deps.registryHost) throw invalidArgument("service", `"${service.slice(0, 200)}" is not the registry of this Arbor`);
    const requested = parseScopes(params.getAll("scope"));
    const claims = await deps.tokens.verify(credentialOf(req, params), deps.registryHost);
    record.caller = claims.sub;
    const permissions = await deps.authorizer.callerPermissions(claims.sub);
    if (permissions === undefined) throw unauthenticated("TOKEN_IDENTITY_GONE");
    const access = await grantAccess(requested, permissions, deps.index);
    const issued = await deps.registryTokens.issue(claims.sub, service, access);
    record.code = 0;
    writeJson(res, 200, { token: issued.token, access_token: issued.token, expires_in: issued.expiresIn, issued_at: issued.issuedAt });
  } catch (e) {
    if (!isApiError(e) || e.code === Code.INTERNAL) throw e;
    if (e.code === Code.UNAUTHENTICATED) deps.throttle.authFailed(address, undefined);
    record.code = e.code;
    record.reason = e.message;
    const code =
      e.code === Code.UNAUTHENTICATED ? "UNAUTHORIZED" : e.code === Code.RESOURCE_EXHAUSTED ? "TOOMANYREQUESTS" : codeName(e.code);
    const headers: Record<string, string> = e.code === Code.UNAUTHENTICATED ? { "www-authenticate": 'Basic realm="arbor"' } : {};
    if (e.details.retryDelayMs !== undefined) headers["retry-after"] = String(Math.ceil(e.details.retryDelayMs / 1000));
    writeJson(res, httpStatusOf(e), { errors: [{ code, message: e.message }] }, headers);
  }
}

/** The Arbor token the caller sent: Basic (user _token), Bearer, or the password grant's form. */
function credentialOf(req: AnyRequest, params: URLSearchParams): string {
  const bearer = bearerToken(req.headers.authorization);
  if (bearer !== undefined) return bearer;
  const authorization = header(req, "authorization");
  const basic = authorization === undefined ? null : /^Basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(authorization);
  let user: string | undefined;
  let password: string | undefined;
  if (basic !== null) {
    const text = Buffer.from(basic[1] as string, "base64").toString("utf8");
    const colon = text.indexOf(":");
    [user, password] = colon < 0 ? [text, ""] : [text.slice(0, colon), text.slice(colon + 1)];
  } else if (authorization !== undefined) {
    throw unauthenticated("REGISTRY_AUTH_SCHEME");
  } else if (req.method === "POST") {
    [user, password] = [single(params, "username"), single(params, "password")];
  }
  if (user === undefined || password === undefined || password === "") {
    throw unauthenticated("REGISTRY_LOGIN_MISSING", { user: TOKEN_USER });
  }
  if (user !== TOKEN_USER) throw unauthenticated("REGISTRY_USER", { user: TOKEN_USER });
  return password;
}

/** The query's parameters, then, for POST, the form body's (the OAuth2 password grant). */
async function paramsOf(req: AnyRequest): Promise<URLSearchParams> {
  const params = refuseNulParams(queryOf(req));
  if (req.method !== "POST") return params;
  const body = await readBody(req, MAX_FORM_BYTES);
  const type = String(req.headers["content-type"] ?? "")
    .split(";")[0]
    ?.trim()
    .toLowerCase();
  if (body.length > 0 && type !== "application/x-www-form-urlencoded")
    throw invalidArgument("body", "the request body must be application/x-www-form-urlencoded");
  for (const [name, value] of new URLSearchParams(body.toString("utf8"))) params.append(name, value);
  refuseNulParams(params);
  const grant = single(params, "grant_type");
  if (grant !== undefined && grant !== "password") {
    throw invalidArgument(
      "grant_type",
      `"${grant.slice(0, 100)}" is not supported: send grant_type=password with user ${TOKEN_USER} (Arbor issues no refresh tokens)`,
    );
  }
  return params;
}

/** The one value of a parameter; INVALID_ARGUMENT when it is given more than once. */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw invalidArgument(name, "must be given once");
  return values[0];
}
