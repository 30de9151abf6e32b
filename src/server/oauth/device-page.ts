/**
 * The verification page of headless login (RFC 8628, 3.3): `GET {auth_url}/oauth/device` shows a
 * form for the user code (filled in from `?user_code=`, the verification_uri_complete); only
 * its POST begins the login, so a link, however it was sent, logs nobody in: the person reads
 * the code, is warned, and presses the button.
 *
 * The POST is protected against cross-site forgery by a double-submit token (a random value in
 * a SameSite=Strict, HttpOnly cookie and in the form, which must match) and by Sec-Fetch-Site
 * and Origin where the browser sends them; the page may not be framed. Wrong codes are refused
 * credentials: they spend the address's budget of the credential throttle, and DeviceFlow
 * bounds them per replica.
 */
import { timingSafeEqual } from "node:crypto";
import type { DeviceFlow } from "../../auth/device-flow.js";
import { newSecret } from "../../auth/login-secrets.js";
import { ApiError, Code, isApiError, permissionDenied } from "../../domain/errors.js";
import type { IdSource } from "../../domain/uid.js";
import { queryOf, readBody, refuseNulParams, type AnyRequest, type AnyResponse } from "../http/http-util.js";
import type { RequestLog } from "../http/request-log.js";
import { escapeHtml, writePage, writeSeeOther } from "./oauth-pages.js";
import type { RequestLimits } from "../http/request-limits.js";
import { pathOfUrl } from "../http/path-prefix.js";
import { httpStatusOf } from "../errors-to-wire.js";

/** The largest form accepted: two short fields. */
const MAX_FORM_BYTES = 4 * 1024;
/** How long a page's token is good for: longer than a code lives. */
const TOKEN_MAX_AGE_S = 30 * 60;

/** What the page is built from. */
export interface DevicePageDeps {
  device: Pick<DeviceFlow, "verify">;
  ids: IdSource;
  /** {auth_url}. */
  issuer: () => string;
  throttle: Pick<RequestLimits, "authAllowed" | "authFailed">;
}

/** The page's GET and POST handlers. */
export function createDevicePage(deps: DevicePageDeps) {
  const secure = () => deps.issuer().startsWith("https:");
  // __Host-: a cookie no sibling subdomain can set, where the browser enforces it (HTTPS only).
  const cookieName = () => (secure() ? "__Host-arbor-device" : "arbor-device");

  /** The form, with a fresh token in the cookie and the form; error says why the last try failed. */
  const form = (res: AnyResponse, status: number, typed: string, error?: ApiError) => {
    const token = newSecret(deps.ids);
    const action = `${pathOfUrl(deps.issuer())}/oauth/device`;
    const cookie = `${cookieName()}=${token}; Path=/; Max-Age=${TOKEN_MAX_AGE_S}; HttpOnly; SameSite=Strict${secure() ? "; Secure" : ""}`;
    const code = typed.slice(0, 64);
    const body =
      `<h1>Log in on another device</h1>\n` +
      (error === undefined ? "" : `<p role="alert"><strong>${escapeHtml(error.message)}</strong></p>\n`) +
      `<p>Enter the code your terminal shows after <code>arbor auth login --headless</code>.</p>\n` +
      `<form method="post" action="${escapeHtml(action)}">\n<input type="hidden" name="csrf" value="${token}">\n` +
      `<p><label>Code: <input name="user_code" value="${escapeHtml(code)}" required maxlength="64" ` +
      `autocomplete="off" autocapitalize="characters" spellcheck="false" autofocus></label></p>\n` +
      `<p><strong>Continue only if you started this login yourself and your terminal shows this very code.</strong> ` +
      `If someone sent you this link or code, do not continue: they would be logged in as you.</p>\n` +
      `<p><button type="submit">Continue to log in</button></p>\n</form>`;
    writePage(res, status, "log in on another device", body, { "set-cookie": cookie });
  };

  return {
    async show(req: AnyRequest, res: AnyResponse, record: RequestLog): Promise<void> {
      let typed = "";
      try {
        typed = refuseNulParams(queryOf(req)).get("user_code") ?? "";
      } catch {
        // A code with NUL in it is no code: the empty form.
      }
      record.code = 0;
      form(res, 200, typed);
    },

    async submit(req: AnyRequest, res: AnyResponse, record: RequestLog): Promise<void> {
      let typed = "";
      try {
        const params = await formOf(req);
        typed = params.get("user_code") ?? "";
        checkSameSite(req, deps.issuer(), cookieOf(req, cookieName()), params.get("csrf") ?? "");
        deps.throttle.authAllowed(record.address, undefined);
        const location = await deps.device.verify(typed, record.address);
        record.code = 0;
        writeSeeOther(res, location);
      } catch (e) {
        if (!isApiError(e) || e.code === Code.INTERNAL) throw e;
        if (e.code === Code.UNAUTHENTICATED) deps.throttle.authFailed(record.address, undefined);
        record.code = e.code;
        form(res, httpStatusOf(e), typed, e);
      }
    },
  };
}

/** PERMISSION_DENIED unless the POST came from Arbor's own page: same site, and the cookie's token in the form. */
function checkSameSite(req: AnyRequest, issuer: string, cookie: string, field: string): void {
  const refused = permissionDenied("this form was not sent from Arbor's verification page; enter the code on the page below");
  const site = req.headers["sec-fetch-site"];
  if (site !== undefined && site !== "same-origin") throw refused;
  // "null" is what a browser sends from a page whose Referrer-Policy is no-referrer, as Arbor's are.
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== "null" && origin !== new URL(issuer).origin) throw refused;
  const [a, b] = [Buffer.from(cookie), Buffer.from(field)];
  if (a.length < 32 || a.length !== b.length || !timingSafeEqual(a, b)) throw refused;
}

/** The value of the request's cookie name; '' when it has none. */
function cookieOf(req: AnyRequest, name: string): string {
  for (const part of String(req.headers.cookie ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return "";
}

/** The posted form; INVALID_ARGUMENT for any other body. */
async function formOf(req: AnyRequest): Promise<URLSearchParams> {
  const type = String(req.headers["content-type"] ?? "")
    .split(";")[0]
    ?.trim()
    .toLowerCase();
  const body = (await readBody(req, MAX_FORM_BYTES)).toString("utf8");
  if (type !== "application/x-www-form-urlencoded")
    throw new ApiError(Code.INVALID_ARGUMENT, "Invalid argument: body: must be the verification page's form");
  return refuseNulParams(new URLSearchParams(body));
}
