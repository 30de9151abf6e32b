/**
 * What the server wrote into index.html: its base URL (where the API is), its issuer URL (where
 * the login endpoints are) and the console's path under the base URL's origin.
 */
function meta(name: string): string {
  return document.querySelector(`meta[name="${name}"]`)?.getAttribute("content") ?? "";
}

/** {base_url}, without a trailing slash. */
export const BASE_URL = meta("arbor-base-url") || location.origin;
/** {auth_url}, without a trailing slash. */
export const ISSUER_URL = meta("arbor-issuer-url") || BASE_URL;
/** The console's path on the base URL's origin (`/console`, or `/prefix/console` behind a path prefix). */
export const CONSOLE_PATH = meta("arbor-console-path") || "/console";
/** Where logins come back to: the one redirect URI the server allows besides the CLI's. */
export const CALLBACK_URL = `${BASE_URL}/console/callback`;
