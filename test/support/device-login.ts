/**
 * Headless login for end-to-end tests: the CLI's device authorization request and polls, and a
 * person at the verification page, played over plain HTTP with a cookie-keeping browser that
 * goes on through the real provider's pages.
 */
import { TestBrowser } from "./browser.js";
import { oauthPost, type LoginWorld } from "./login.js";
import type { TestPerson } from "./oidc-login-issuer.js";

/** The device grant's type. */
export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code";

/** The device authorization response. */
export interface DeviceGrant {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
}

/** Asks for a device authorization; throws unless it is granted. */
export async function authorizeDevice(w: LoginWorld, form: Record<string, string> = {}): Promise<DeviceGrant> {
  const res = await oauthPost(w, "device_authorization", form);
  if (res.status !== 200) throw new Error(`device authorization: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as DeviceGrant;
}

/** One poll of the token endpoint. */
export function pollDevice(w: LoginWorld, deviceCode: string) {
  return oauthPost(w, "token", { grant_type: DEVICE_GRANT, device_code: deviceCode });
}

/** The verification page as a browser got it: the response, its HTML, and its form's fields. */
export interface VerificationPage {
  response: Response;
  html: string;
  csrf: string;
  userCode: string;
}

/** Opens the verification page (at url, with or without ?user_code=). */
export async function openPage(browser: TestBrowser, url: string): Promise<VerificationPage> {
  const response = await browser.get(url);
  const html = await response.text();
  return { response, html, ...fieldsOf(html) };
}

/** The form fields of a verification page's HTML. */
export function fieldsOf(html: string): { csrf: string; userCode: string } {
  return { csrf: /name="csrf" value="([^"]*)"/.exec(html)?.[1] ?? "", userCode: /name="user_code" value="([^"]*)"/.exec(html)?.[1] ?? "" };
}

/**
 * Plays the person: opens url, submits userCode (the page's own by default), and, when Arbor
 * sends the browser on, logs in at the provider as person and follows it back to Arbor. The last
 * response: Arbor's page, a logged-in one or one saying what failed; or the form again.
 */
export async function confirmDevice(
  w: LoginWorld,
  url: string,
  person: TestPerson,
  options: { userCode?: string; browser?: TestBrowser; rewrite?: (url: string) => string } = {},
): Promise<{ response: Response; html: string; visited: string[] }> {
  const browser = options.browser ?? new TestBrowser();
  const page = await openPage(browser, url);
  w.issuer.loginAs(person);
  // The form posts to the page's own server (a replica, when url is one).
  const posted = await browser.post(`${new URL(url).origin}/oauth/device`, {
    csrf: page.csrf,
    user_code: options.userCode ?? page.userCode,
  });
  const location = posted.headers.get("location");
  if (posted.status !== 303 || location === null) return { response: posted, html: await posted.text(), visited: [] };
  const walk = await browser.walk(location, () => false, options.rewrite);
  const response = walk.response as Response;
  return { response, html: await response.text(), visited: walk.visited };
}
