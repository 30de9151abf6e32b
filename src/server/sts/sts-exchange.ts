/**
 * The token exchange endpoint, `GET` or `POST {auth_url}/sts/exchange` (DESIGN 1.7): parameters
 * `aud` and `identity` from the query or an application/x-www-form-urlencoded body, the upstream
 * token as `Authorization: Bearer`. Every refusal is 401 with a google.rpc.Status (code 16) and
 * `WWW-Authenticate: Bearer`. Nothing of the token is logged: the access log records the path
 * without its query and no header, and the failed check (a fixed text) as `reason`.
 *
 * Refusals are throttled per address, and refusals of tokens their issuer really signed also per
 * attempted identity (the `identity` parameter with the token's `iss` and `sub`): past either
 * budget, 429 with Retry-After before anything is checked or fetched. Successful exchanges spend
 * nothing, and a forged token spends only its sender's address's budget.
 */
import { decodeJwt } from "jose";
import { isSignedRefusal, type TokenExchange } from "../../auth/exchange.js";
import { ApiError, Code, isApiError, unauthenticated, UnauthenticatedError } from "../../domain/errors.js";
import { bearerToken, queryOf, refuseNulParams, readBody, writeJson, type AnyRequest, type AnyResponse } from "../http/http-util.js";
import type { RequestLimits } from "../http/request-limits.js";
import { errorDomainFor, httpStatusOf, statusJson } from "../errors-to-wire.js";
import type { RequestLog } from "../http/request-log.js";
import { pathOfUrl } from "../http/path-prefix.js";

/** The largest form body accepted: it carries two short parameters. */
const MAX_FORM_BYTES = 8 * 1024;

/** The exchange's route on the port (a proxy's prefix taken off, http/path-prefix.ts). */
export const EXCHANGE_ROUTE = "/sts/exchange";

/** Where clients find the exchange: the issuer URL's path plus `/sts/exchange`. */
export function exchangePath(issuerUrl: string): string {
  return `${pathOfUrl(issuerUrl)}${EXCHANGE_ROUTE}`;
}

/** The throttle of refused credentials the exchange spends from. */
export type AuthThrottle = Pick<RequestLimits, "authAllowed" | "authFailed">;

/** Serves one exchange request, answering refusals itself (401 with WWW-Authenticate, 429 with Retry-After). */
export async function serveExchange(
  exchange: TokenExchange,
  throttle: AuthThrottle,
  domain: string,
  req: AnyRequest,
  res: AnyResponse,
  record: RequestLog,
): Promise<void> {
  record.route = `${req.method} /sts/exchange`;
  const address = record.address;
  let attempted: string | undefined;
  try {
    throttle.authAllowed(address, undefined);
    const token = bearerOf(req.headers.authorization);
    const params = await paramsOf(req);
    const identity = single(params, "identity");
    attempted = attemptedIdentity(identity, token);
    throttle.authAllowed(address, attempted);
    const issued = await exchange.exchange({ token, audience: single(params, "aud"), identity });
    record.code = 0;
    writeJson(res, 200, { token: issued.token, expiry: new Date(issued.expiry).toISOString() });
  } catch (e) {
    if (!isApiError(e)) throw e;
    spendOnRefusal(throttle, address, attempted, e);
    record.code = e.code;
    record.reason = typeof e.cause === "string" ? e.cause : e instanceof UnauthenticatedError ? e.why : e.message;
    const body = statusJson(e, errorDomainFor("arbor.iam.", domain));
    const headers: Record<string, string> = { "www-authenticate": "Bearer" };
    if (e.details.retryDelayMs !== undefined) headers["retry-after"] = String(Math.ceil(e.details.retryDelayMs / 1000));
    writeJson(res, httpStatusOf(e), body, headers);
  }
}

/**
 * After an exchange failed with e: a refusal of credentials (code 16) spends from the address's
 * budget, and, when the upstream issuer signed the token, from the attempted workload's.
 */
export function spendOnRefusal(throttle: AuthThrottle, address: string | undefined, attempted: string | undefined, e: unknown): void {
  if (isApiError(e) && e.code === Code.UNAUTHENTICATED) throttle.authFailed(address, isSignedRefusal(e) ? attempted : undefined);
}

/**
 * Whom an exchange attempts to become, as the throttle counts it: the identity asked for, and
 * the upstream issuer and subject the token claims (read unverified, to look the budget up; only
 * refusals of signed tokens spend from it). A workload whose token keeps failing uses up its own
 * budget, not that of the identity's other workloads.
 */
export function attemptedIdentity(identity: string | undefined, token: string): string | undefined {
  if (identity === undefined || identity === "") return undefined;
  let iss: unknown;
  let sub: unknown;
  try {
    ({ iss, sub } = decodeJwt(token));
  } catch {
    // Not a JWT: the identity alone.
  }
  return JSON.stringify([identity, typeof iss === "string" ? iss : "", typeof sub === "string" ? sub : ""]);
}

function bearerOf(header: string | string[] | undefined): string {
  const token = bearerToken(header);
  if (token === undefined) throw unauthenticated("EXCHANGE_TOKEN_MISSING");
  return token;
}

/** The query's parameters, then the form body's. */
async function paramsOf(req: AnyRequest): Promise<URLSearchParams> {
  const params = refuseNulParams(queryOf(req));
  if (req.method !== "POST") return params;
  let body: Buffer;
  try {
    body = await readBody(req, MAX_FORM_BYTES);
  } catch (e) {
    if (e instanceof ApiError) throw unauthenticated("EXCHANGE_BODY_TOO_LARGE", { maxBytes: MAX_FORM_BYTES });
    throw e;
  }
  if (body.length === 0) return params;
  const type = String(req.headers["content-type"] ?? "")
    .split(";")[0]
    ?.trim()
    .toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw unauthenticated("EXCHANGE_BODY_TYPE");
  }
  for (const [name, value] of new URLSearchParams(body.toString("utf8"))) params.append(name, value);
  return refuseNulParams(params);
}

/** The one value of a parameter; UNAUTHENTICATED when it is given more than once. */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw unauthenticated("EXCHANGE_PARAMETER_REPEATED", { name });
  return values[0];
}
