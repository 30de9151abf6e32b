/**
 * `arbor auth login` for people (RFC 8252): a listener on 127.0.0.1 and a free port receives the
 * browser at the end of the login, so the browser must run on this machine (device-login.ts is
 * for one that does not); the URL to open is always printed, and opened with the
 * platform's opener when there is one. Arbor sends back a one-time code, redeemed here with this
 * process's PKCE verifier: the tokens never pass through the browser.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { escapeHtml } from "../../server/oauth/oauth-pages.js";
import type { ClientConfig } from "./client-config.js";
import { postForm } from "./http.js";
import { openBrowser } from "./open-browser.js";
import { keepPersonLogin, loginForm, preflight } from "./person-login.js";
import { AuthError } from "./tokens.js";

export interface BrowserLoginOptions {
  org?: string;
  invite?: string;
  /** Print the URL only. */
  noBrowser: boolean;
  /** How long to wait for the browser. */
  timeoutMs: number;
  /** Where messages for the person go (stderr). */
  say: (text: string) => void;
}

/**
 * Logs a person in; resolves with their identity uid once the tokens are cached. The server is
 * asked first whether the login can work, so a refusal shows at once rather than after the wait.
 */
export async function browserLogin(config: ClientConfig, options: BrowserLoginOptions): Promise<string> {
  await preflight(config, options.org, options.invite);
  const verifier = randomBytes(32).toString("base64url");
  const state = randomBytes(16).toString("base64url");
  let finish: (result: { identity: string } | { error: Error }) => void = () => undefined;
  const done = new Promise<{ identity: string } | { error: Error }>((resolve) => (finish = resolve));
  let redirectUri = "";
  const server = createServer((req, res) => {
    void answer(req, res).then(
      (result) => result && finish(result),
      (error: Error) => finish({ error }),
    );
  });
  /** Handles one request; a result ends the login, undefined keeps waiting. */
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<{ identity: string } | { error: Error } | undefined> => {
    const url = new URL(req.url ?? "/", redirectUri);
    if (url.pathname !== "/callback" || url.searchParams.get("state") !== state) {
      // Not the browser this login sent (another page, or a forged request): ignored.
      page(res, 400, "Not this login", "This request does not belong to the login in progress.");
      return undefined;
    }
    const error = url.searchParams.get("error");
    if (error !== null) {
      const why = url.searchParams.get("error_description") || error;
      page(res, 400, "Login failed", why);
      return { error: new AuthError(`login failed: ${why}`) };
    }
    try {
      const code = url.searchParams.get("code") ?? "";
      const tokens = await postForm(`${config.issuer}/oauth/token`, {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: redirectUri,
      });
      const identity = await keepPersonLogin(config, tokens);
      page(res, 200, "Logged in", "You are logged in to Arbor. You can close this window and return to the terminal.");
      return { identity };
    } catch (e) {
      page(res, 400, "Login failed", (e as Error).message);
      return { error: e as Error };
    }
  };
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", resolve));
  redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`;
  const query = new URLSearchParams({
    redirect_uri: redirectUri,
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    state,
  });
  for (const [k, v] of Object.entries(loginForm(options.org, options.invite))) query.set(k, v);
  const loginUrl = `${config.issuer}/oauth/login?${query}`;
  options.say(
    `Open this URL in a browser on this machine to log in:\n\n  ${loginUrl}\n\n` +
      "Waiting for the browser... (on another machine, use arbor auth login --headless)",
  );
  if (!options.noBrowser) openBrowser(loginUrl, config.env);
  const timer = setTimeout(
    () =>
      finish({
        error: new AuthError(
          `no login arrived within ${Math.round(options.timeoutMs / 1000)}s; ` +
            "run arbor auth login again (arbor auth login --headless if the browser is on another machine)",
        ),
      }),
    options.timeoutMs,
  );
  try {
    const result = await done;
    if ("error" in result) throw result.error;
    return result.identity;
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  }
}

function page(res: ServerResponse, status: number, title: string, text: string): void {
  const html =
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>Arbor: ${escapeHtml(title)}</title></head>\n` +
    `<body><h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(text)}</p></body></html>\n`;
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "content-security-policy": "default-src 'none'",
    connection: "close",
  });
  res.end(html);
}
