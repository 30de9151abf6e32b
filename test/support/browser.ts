/**
 * A browser as far as a login needs one: GETs that follow redirects by hand and keep cookies per
 * host (as RFC 6265 does: not per port). Each instance is a fresh profile.
 */

/** Where a walk through redirects stopped. */
export interface Walk {
  /** The last URL: the first one `stop` accepted, or the one that answered without redirecting. */
  url: string;
  /** The answer of the last URL, when it was requested. */
  response?: Response;
  /** Every URL visited, in order. */
  visited: string[];
}

/** A cookie-keeping, redirect-following HTTP client. */
export class TestBrowser {
  readonly #jar = new Map<string, Map<string, string>>();

  /** GETs url with this browser's cookies, without following a redirect. */
  async get(url: string): Promise<Response> {
    return this.#send(url, {});
  }

  /**
   * POSTs a form to url with this browser's cookies, as a form on a page of the same origin is
   * sent (headers may add or override, to play another site's form), without following a redirect.
   */
  async post(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return this.#send(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "sec-fetch-site": "same-origin", origin: "null", ...headers },
      body: new URLSearchParams(form),
    });
  }

  async #send(url: string, init: RequestInit): Promise<Response> {
    const host = new URL(url).hostname;
    const cookies = [...(this.#jar.get(host) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join("; ");
    const headers = { ...(init.headers as Record<string, string>), ...(cookies === "" ? {} : { cookie: cookies }) };
    const res = await fetch(url, { ...init, redirect: "manual", headers });
    for (const line of res.headers.getSetCookie()) this.#keep(host, line);
    return res;
  }

  /**
   * Follows redirects from url until stop accepts a URL (not requested then) or a response is not
   * a redirect; a hook may rewrite each URL before it is requested (to tamper, as an attacker would).
   */
  async walk(url: string, stop: (url: string) => boolean = () => false, rewrite: (url: string) => string = (u) => u): Promise<Walk> {
    const visited: string[] = [];
    let current = url;
    for (let hop = 0; hop < 30; hop++) {
      current = rewrite(current);
      visited.push(current);
      if (stop(current)) return { url: current, visited };
      const response = await this.get(current);
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || location === null) return { url: current, response, visited };
      await response.body?.cancel();
      current = new URL(location, current).href;
    }
    throw new Error(`too many redirects: ${visited.join(" -> ")}`);
  }

  #keep(host: string, line: string): void {
    const [pair = "", ...attributes] = line.split(";");
    const eq = pair.indexOf("=");
    if (eq <= 0) return;
    const name = pair.slice(0, eq).trim();
    const value = pair.slice(eq + 1).trim();
    const cookies = this.#jar.get(host) ?? new Map<string, string>();
    this.#jar.set(host, cookies);
    const expired = attributes.some(
      (a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split("=")[1] ?? "") < Date.now()),
    );
    if (expired || value === "") cookies.delete(name);
    else cookies.set(name, value);
  }
}
