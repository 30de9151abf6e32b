/**
 * The web console as the server serves it (docs/console.md): GET / redirects to it, index.html
 * is never cached without asking and names content-hashed assets cached for a year, every answer
 * carries the security headers, client routes answer index.html and unknown files 404, a base URL
 * with a path prefix is honoured, and the first page stays within its download budget. The
 * console is the one `npm run build` wrote to dist/console/.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;
const built = join(import.meta.dirname, "../../dist/console/index.html");

/** What the first page may download, compressed as a browser gets it over plain HTTP (gzip): index.html, script and style. */
export const FIRST_PAGE_BUDGET_BYTES = 250 * 1024;

/** The script and style index.html names. */
function assetsOf(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="([^"]+\/assets\/[^"]+)"/g)].map((m) => m[1]!);
}

describe(`the web console, served [${engine.name}]`, () => {
  let t: TestServer;
  let prefixed: TestServer;

  beforeAll(async () => {
    expect(existsSync(built), "the console is built by `npm run build` (dist/console/)").toBe(true);
    t = await startTestServer(engine);
    // Behind a proxy at https://example.test/arbor that strips the prefix (or keeps it).
    prefixed = await startTestServer(engine, { baseUrl: "https://example.test/arbor" });
  });
  /** A request to the prefixed server's listener (its base URL names a host that is not there). */
  const behindProxy = (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${prefixed.server.port}${path}`, init);
  afterAll(async () => {
    await t?.close();
    await prefixed?.close();
  });

  it("redirects GET / to the console, relative to the base URL's path", async () => {
    const root = await t.fetch("/", { redirect: "manual" });
    expect(root.status).toBe(302);
    expect(root.headers.get("location")).toBe("/console/");
    const behind = await behindProxy("/", { redirect: "manual" });
    expect(behind.headers.get("location")).toBe("/arbor/console/");
    const unstripped = await behindProxy("/arbor", { redirect: "manual" });
    expect(unstripped.headers.get("location")).toBe("/arbor/console/");
    const bare = await t.fetch("/console", { redirect: "manual" });
    expect([bare.status, bare.headers.get("location")]).toEqual([301, "/console/"]);
  });

  it("serves index.html with no-cache and strict security headers, naming hashed assets cached for a year", async () => {
    const res = await t.fetch("/console/");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const csp = res.headers.get("content-security-policy") ?? "";
    for (const directive of [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "object-src 'none'",
    ])
      expect(csp).toContain(directive);
    expect(csp).not.toContain("unsafe-inline");
    expect(csp).not.toContain("unsafe-eval");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).toContain(`<meta name="arbor-base-url" content="${t.url}" />`);
    const assets = assetsOf(html);
    expect(assets).toHaveLength(2);
    for (const asset of assets) {
      expect(asset).toMatch(/^\/console\/assets\/console-[A-Z0-9]{8}\.(js|css)$/);
      const a = await t.fetch(asset);
      expect(a.status).toBe(200);
      expect(a.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
      expect(a.headers.get("content-security-policy")).toBe(csp);
      expect(a.headers.get("content-type")).toMatch(asset.endsWith(".js") ? /^text\/javascript/ : /^text\/css/);
    }
  });

  it("answers index.html for the console's routes, so its URLs can be shared, and 404 for unknown files", async () => {
    for (const route of ["/console/groups/abc/def", "/console/callback", "/console/invite"]) {
      const res = await t.fetch(`${route}?code=x`);
      expect(res.status, route).toBe(200);
      expect(await res.text()).toContain('<div id="app">');
    }
    for (const file of ["/console/assets/console-AAAAAAAA.js", "/console/favicon.ico", "/console/groups/x.json"]) {
      const res = await t.fetch(file);
      expect(res.status, file).toBe(404);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
      expect(await res.json()).toMatchObject({ code: 5, message: `Not found: console file ${file}` });
    }
    const post = await t.fetch("/console/", { method: "POST", body: "{}" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });

  it("compresses what it serves", async () => {
    const html = await (await t.fetch("/console/")).text();
    const script = assetsOf(html).find((a) => a.endsWith(".js"))!;
    for (const encoding of ["gzip", "br"]) {
      const res = await t.fetch(script, { headers: { "accept-encoding": encoding } });
      expect(res.headers.get("content-encoding")).toBe(encoding);
      expect(res.headers.get("vary")).toBe("accept-encoding");
    }
  });

  it("keeps the first page within its budget of 250 KB compressed", async () => {
    const html = await (await t.fetch("/console/")).text();
    let total = gzipSync(html).length;
    for (const asset of assetsOf(html)) {
      // What Chromium asks for over plain HTTP: gzip (brotli only over TLS). The answer's body is
      // what travels; fetch decodes it, so its length is read from the header.
      const res = await t.fetch(asset, { headers: { "accept-encoding": "gzip" } });
      total += Number(res.headers.get("content-length"));
    }
    expect(total).toBeGreaterThan(1000);
    expect(total).toBeLessThan(FIRST_PAGE_BUDGET_BYTES);
  });

  it("names its assets under the base URL's path prefix, and serves them with or without it", async () => {
    const html = await (await behindProxy("/console/")).text();
    expect(html).toContain('<meta name="arbor-base-url" content="https://example.test/arbor" />');
    expect(html).toContain('<meta name="arbor-console-path" content="/arbor/console" />');
    const assets = assetsOf(html);
    expect(assets.every((a) => a.startsWith("/arbor/console/assets/"))).toBe(true);
    for (const asset of assets) {
      expect((await behindProxy(asset)).status).toBe(200);
      expect((await behindProxy(asset.slice("/arbor".length))).status).toBe(200);
    }
    expect((await behindProxy("/arbor/console/groups/x")).status).toBe(200);
    const res = await behindProxy("/console/");
    expect(res.headers.get("content-security-policy")).toContain("connect-src 'self'");
  });

  it("lets a login return to the console's own callback on the base URL, and to no other page of the server", async () => {
    // The prefixed server's base URL is no loopback one, which the CLI's rule would let through; its
    // issuer path (the base URL's) prefixes the login endpoints.
    const login = (redirectUri: string) =>
      behindProxy(
        `/arbor/oauth/login?${new URLSearchParams({
          redirect_uri: redirectUri,
          code_challenge: "A".repeat(43),
          code_challenge_method: "S256",
          state: "s",
        })}`,
        { redirect: "manual" },
      );
    // Accepted: the failure (this server has no login provider) goes back to the console as an OAuth error.
    const accepted = await login("https://example.test/arbor/console/callback");
    expect(accepted.status).toBe(302);
    const back = new URL(accepted.headers.get("location") ?? "");
    expect(`${back.origin}${back.pathname}`).toBe("https://example.test/arbor/console/callback");
    expect(back.searchParams.get("error")).toBe("access_denied");
    for (const other of [
      "https://example.test/arbor/console/callback/x",
      "https://example.test/arbor/console/",
      "https://example.test/arbor/console/callback?x=1",
      "https://example.test/console/callback",
      "http://example.test/arbor/console/callback",
    ]) {
      const refused = await login(other);
      expect(refused.status, other).toBe(400);
    }
  });

  it("leaves the API where it was: an unknown path is still the API's JSON 404", async () => {
    const res = await t.fetch("/nothing-here");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/json");
  });
});
