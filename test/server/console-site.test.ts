/**
 * The console's site (src/server/console/console-site.ts) reads and compresses its files only
 * when the console is asked for: telling whether a path is the console's reads none of them, so
 * the first API request after start does not wait for them (brotli at quality 11 of every asset,
 * about half a second on the bench machine).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createConsole } from "../../src/server/console/console-site.js";
import type { AnyRequest, AnyResponse } from "../../src/server/http/http-util.js";
import type { RequestLog } from "../../src/server/http/request-log.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A built console of one page and one asset. */
function consoleDir(page: string): string {
  const dir = mkdtempSync(join(tmpdir(), "arbor-console-site-"));
  dirs.push(dir);
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), page);
  writeFileSync(join(dir, "assets", "app-1.js"), "console.log(1)");
  return dir;
}

/** The body the site answers a GET of sub with (no compression asked for). */
function served(site: ReturnType<typeof createConsole>, sub: string): string {
  let body = "";
  const res = {
    writeHead: () => res,
    end: (b?: Buffer | string) => void (body = String(b ?? "")),
  };
  site.serve(sub, { headers: {} } as AnyRequest, res as unknown as AnyResponse, {} as RequestLog);
  return body;
}

describe("the console's site", () => {
  it("reads no file to tell the console's paths from the API's; it reads them when first served", () => {
    const dir = consoleDir("<p>first</p>");
    const site = createConsole({ base: () => "http://127.0.0.1:8080/", issuer: () => "http://127.0.0.1:8080", dir });
    expect(site.match("/iam/v2beta1/groups/x")).toBeUndefined();
    expect(site.isRoot("/iam/v2beta1/groups")).toBe(false);
    expect(site.match("/console/groups")).toBe("/groups");
    expect(site.isRoot("/")).toBe(true);
    // Written after the site told paths apart: what it serves is what is there now.
    writeFileSync(join(dir, "index.html"), "<p>second</p>");
    expect(served(site, "/")).toBe("<p>second</p>");
    expect(served(site, "/assets/app-1.js")).toBe("console.log(1)");
  });

  it("with a base URL at a path, sees paths without it (the handler takes it off, test/e2e/path-prefix.test.ts)", () => {
    const site = createConsole({ base: () => "https://example.test/arbor/", issuer: () => "https://example.test", dir: consoleDir("x") });
    expect(site.match("/console/")).toBe("/");
    expect(site.isRoot("/")).toBe(true);
    expect(site.match("/arbor/console/")).toBeUndefined();
    expect(site.match("/iam")).toBeUndefined();
  });
});
