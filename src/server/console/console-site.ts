/**
 * The web console (docs/console.md), served at `{base_url}/console/` from the static files
 * `npm run build` writes to dist/console/ (scripts/bundle-console.mjs): index.html, and assets
 * whose names carry a hash of their content. Assets are cached for a year (`immutable`),
 * index.html never without asking again (`no-cache`); every answer carries a strict
 * Content-Security-Policy (no inline script) and the anti-framing and no-sniffing headers. Any
 * path under /console/ that looks like a route of the console's own (no dot in its last
 * segment) answers index.html, so its URLs can be shared; an unknown asset is the API's 404 (a
 * google.rpc.Status, as every error of the port is).
 *
 * Paths reach it without the base URL's path (http/path-prefix.ts takes it off whether a proxy
 * kept it or not); the page always names its assets under the base URL's path, which is what
 * the browser sees. index.html is a template: the server writes the base URL, the issuer URL and
 * that path into it (meta tags and asset URLs), as it alone knows them; and the registry's host,
 * for the pull commands the registry view shows.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, gzipSync, constants as zlib } from "node:zlib";
import type { ServerResponse } from "node:http";
import { notFound, unavailable, type ApiError } from "../../domain/errors.js";
import type { AnyRequest, AnyResponse } from "../http/http-util.js";
import type { RequestLog } from "../http/request-log.js";
import { pathOfUrl } from "../http/path-prefix.js";

/** The console's path under the base URL. */
export const CONSOLE_PATH = "/console";

/** The one redirect URI of the console's logins: its callback page, on the base URL. */
export function consoleCallbackUrl(base: string): string {
  return `${base.replace(/\/$/, "")}${CONSOLE_PATH}/callback`;
}

/** What the console is served from. */
export interface ConsoleDeps {
  /** {base_url}. */
  base: () => string;
  /** {auth_url}: the console's script posts to its /oauth/token and /oauth/revoke. */
  issuer: () => string;
  /** The registry's host as image names write it (ARBOR_REGISTRY_HOST), for the pull commands the console shows. */
  registryHost?: string | undefined;
  /** The built console (default: dist/console/ of the package). */
  dir?: string;
}

/** The console's requests: those whose path it claims, and the answer to each. */
export interface ConsoleSite {
  /** The path under the console (`/`, `/groups/...`, `/assets/...`) when path is the console's; undefined otherwise. */
  match(path: string): string | undefined;
  /** Whether path is the base URL's root, which redirects to the console. */
  isRoot(path: string): boolean;
  /** Answers a GET or HEAD of a path match() claimed. */
  serve(sub: string, req: AnyRequest, res: AnyResponse, record: RequestLog): void;
  /** Answers GET / with a redirect to the console. */
  redirect(res: AnyResponse, record: RequestLog): void;
}

/** A file as served: its type and its bytes, plain and compressed. */
interface Asset {
  type: string;
  plain: Buffer;
  gzip: Buffer;
  br: Buffer;
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".map": "application/json",
  ".txt": "text/plain; charset=utf-8",
};

const IMMUTABLE = "public, max-age=31536000, immutable";

/** The package's root: the first folder upward from this file with package.json. */
function packageRoot(): string | undefined {
  for (let dir = new URL("./", import.meta.url); dir.pathname !== "/"; dir = new URL("../", dir)) {
    if (existsSync(new URL("package.json", dir))) return dir.pathname;
  }
  return undefined;
}

/** The default place of the built console. */
export function defaultConsoleDir(): string | undefined {
  const root = packageRoot();
  return root === undefined ? undefined : join(root, "dist/console");
}

function compress(plain: Buffer, type: string): Asset {
  return {
    type,
    plain,
    gzip: gzipSync(plain, { level: 9 }),
    br: brotliCompressSync(plain, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: plain.length } }),
  };
}

/** Every file under dir/assets, by its path under the console (`/assets/main-ABCD1234.js`). */
function readAssets(dir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const assetsDir = join(dir, "assets");
  if (!existsSync(assetsDir)) return assets;
  for (const name of readdirSync(assetsDir)) {
    const file = join(assetsDir, name);
    if (!statSync(file).isFile()) continue;
    const ext = /\.[a-z0-9]+$/.exec(name)?.[0] ?? "";
    assets.set(`/assets/${name}`, compress(readFileSync(file), TYPES[ext] ?? "application/octet-stream"));
  }
  return assets;
}

/** Escapes text for an HTML attribute value. */
function attr(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * The Content-Security-Policy of every console answer: scripts, styles and connections to the
 * console's own origin only (and the issuer's, where the login endpoints are, when it is another),
 * no framing, no <base>, no plugins.
 */
export function consolePolicy(base: string, issuer: string): string {
  const own = new URL(base).origin;
  const issuerOrigin = new URL(issuer).origin;
  const connect = issuerOrigin === own ? "'self'" : `'self' ${issuerOrigin}`;
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${connect}`,
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join("; ");
}

/**
 * Creates the console's site; the files are read and compressed once, when the console is first
 * asked for. Telling the console's paths from others reads nothing: before, the first request of
 * any kind waited for the files (brotli at quality 11, about half a second here).
 */
export function createConsole(deps: ConsoleDeps): ConsoleSite {
  let loaded: { assets: Map<string, Asset>; index: Asset | undefined; policy: string; basePath: string } | undefined;
  const load = () => {
    if (loaded !== undefined) return loaded;
    const dir = deps.dir ?? defaultConsoleDir();
    const basePath = pathOfUrl(deps.base());
    const template = dir !== undefined && existsSync(join(dir, "index.html")) ? readFileSync(join(dir, "index.html"), "utf8") : undefined;
    const index =
      template === undefined
        ? undefined
        : compress(
            Buffer.from(
              template
                .replaceAll("{{base_url}}", attr(deps.base().replace(/\/$/, "")))
                .replaceAll("{{issuer_url}}", attr(deps.issuer().replace(/\/$/, "")))
                .replaceAll("{{console_path}}", attr(`${basePath}${CONSOLE_PATH}`))
                .replaceAll("{{registry_host}}", attr(deps.registryHost ?? "")),
            ),
            TYPES[".html"] as string,
          );
    loaded = {
      assets: dir === undefined ? new Map() : readAssets(dir),
      index,
      policy: consolePolicy(deps.base(), deps.issuer()),
      basePath,
    };
    return loaded;
  };
  /** The headers of every console answer. */
  const secure = (): Record<string, string> => ({
    "content-security-policy": load().policy,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cross-origin-opener-policy": "same-origin",
  });
  const write = (res: AnyResponse, status: number, headers: Record<string, string>, body?: Buffer | string) =>
    (res as ServerResponse).writeHead(status, { ...secure(), ...headers }).end(body);
  const send = (req: AnyRequest, res: AnyResponse, asset: Asset, cache: string) => {
    const accepted = String(req.headers["accept-encoding"] ?? "");
    const [encoding, body] = /\bbr\b/.test(accepted)
      ? ["br", asset.br]
      : /\bgzip\b/.test(accepted)
        ? ["gzip", asset.gzip]
        : [undefined, asset.plain];
    write(
      res,
      200,
      {
        "content-type": asset.type,
        "cache-control": cache,
        vary: "accept-encoding",
        "content-length": String(body.length),
        ...(encoding !== undefined && { "content-encoding": encoding }),
      },
      body,
    );
  };
  /** A file the console does not have: the API's 404 (a google.rpc.Status), with the console's headers. */
  const refuse = (res: AnyResponse, error: ApiError): never => {
    for (const [name, value] of Object.entries(secure())) res.setHeader(name, value);
    throw error;
  };
  const missing = (res: AnyResponse, sub: string) => refuse(res, notFound("console file", `${CONSOLE_PATH}${sub}`));
  return {
    match(path) {
      return path === CONSOLE_PATH || path.startsWith(`${CONSOLE_PATH}/`) ? path.slice(CONSOLE_PATH.length) : undefined;
    },
    isRoot(path) {
      return path === "/";
    },
    serve(sub, req, res, record) {
      const { assets, index, basePath } = load();
      record.route = "GET /console";
      record.code = 0;
      if (sub === "") return write(res, 301, { location: `${basePath}${CONSOLE_PATH}/`, "cache-control": "no-cache" });
      if (sub.startsWith("/assets/")) {
        const asset = assets.get(sub);
        if (asset === undefined) return missing(res, sub);
        return send(req, res, asset, IMMUTABLE);
      }
      // A route of the console's own has no dot in its last segment; anything else is a file it does not have.
      if (/\.[^/]*$/.test(sub)) return missing(res, sub);
      if (index === undefined) return refuse(res, unavailable("the web console is not built (npm run build writes dist/console/)"));
      send(req, res, index, "no-cache");
    },
    redirect(res, record) {
      record.route = "GET /";
      record.code = 0;
      (res as ServerResponse).writeHead(302, { location: `${load().basePath}${CONSOLE_PATH}/`, "cache-control": "no-cache" }).end();
    },
  };
}
