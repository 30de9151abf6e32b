/**
 * The browser entry of the client (src/client/index.ts) is usable from browsers: esbuild bundles
 * it for `platform: "browser"` with no Node built-in, and the bundle, loaded by a page on another
 * loopback origin in headless Chromium, calls a real server over Connect and gRPC-Web through
 * CORS. Without Chromium the browser cases are skipped, except under CI=true, where they fail.
 */
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { build, type Metafile } from "esbuild";
import { chromium, type Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;
const CHROMIUM = "/usr/bin/chromium";
const clientDir = join(import.meta.dirname, "../../src/client");

/** The page's script: the browser entry, and a function the test calls in the page. */
const PAGE_SCRIPT = `
import { ConnectError, ErrorInfoSchema, createArborClient } from "./index.ts";
globalThis.arborTest = async (baseUrl, token, org, transport) => {
  const groups = createArborClient({ baseUrl, token, transport }).iam.v2beta1.groups;
  const created = await groups.createGroup({ parent: org, group: { name: "browser-" + transport } });
  const list = await groups.listGroups({ uidp: { childrenOf: org }, name: "browser-" + transport });
  let error;
  try {
    await groups.getGroup({ uid: org + "/0123456789abcdef" });
  } catch (e) {
    const err = ConnectError.from(e);
    error = { code: err.code, message: err.rawMessage, reason: err.findDetails(ErrorInfoSchema)[0]?.reason };
  }
  return { uid: created.uid, names: list.groups.map((g) => g.name), total: String(list.totalCount), error };
};
`;

async function bundle(entry: { contents: string } | { file: string }): Promise<{ code: string; metafile: Metafile }> {
  const result = await build({
    ...("file" in entry
      ? { entryPoints: [entry.file] }
      : { stdin: { contents: entry.contents, resolveDir: clientDir, loader: "ts", sourcefile: "page.ts" } }),
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  return { code: result.outputFiles[0]!.text, metafile: result.metafile };
}

/** Serves the page and its script from a loopback origin of its own. */
async function servePage(script: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === "/page.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    res.writeHead(200, { "content-type": "text/html" }).end('<!doctype html><script type="module" src="/page.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe("the client's browser entry", () => {
  it("bundles for browsers with no Node built-in", async () => {
    const { code, metafile } = await bundle({ file: join(clientDir, "index.ts") });
    const inputs = Object.keys(metafile.inputs);
    expect(inputs.filter((i) => i.startsWith("node:") || /connect-node/.test(i))).toEqual([]);
    expect(code).not.toMatch(/["']node:/);
    expect(code.length).toBeGreaterThan(1000);
  });

  it("refuses to bundle the Node entry for browsers (the check above can fail)", async () => {
    await expect(bundle({ file: join(clientDir, "node.ts") })).rejects.toThrow(/node:|http2/);
  });
});

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && process.env.CI !== "true")
  console.warn(`${CHROMIUM} not found: skipping the browser cases (apt-get install chromium)`);

describe.skipIf(!haveChromium && process.env.CI !== "true")(`the client in headless Chromium [${engine.name}]`, () => {
  let page: { origin: string; server: Server };
  let t: TestServer;
  let closed: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    const { code } = await bundle({ contents: PAGE_SCRIPT });
    page = await servePage(code);
    t = await startTestServer(engine, { corsOrigins: [page.origin] });
    closed = await startTestServer(engine);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await closed?.close();
    await new Promise((resolve) => page?.server.close(resolve));
  });

  /** Opens the page and runs arborTest in it against a server. */
  async function runInPage(server: TestServer, transport: string): Promise<any> {
    const { org, token } = await server.organization(`browser-org-${transport}`);
    const tab = await browser.newPage();
    try {
      await tab.goto(page.origin);
      await tab.waitForFunction(() => typeof (globalThis as any).arborTest === "function");
      // The API on 127.0.0.1:<port> is another origin than the page's 127.0.0.1:<other port>.
      const api = `http://127.0.0.1:${server.server.port}`;
      return await tab.evaluate(([a, tk, o, tr]) => (globalThis as any).arborTest(a, tk, o, tr), [api, token, org.uid, transport]);
    } finally {
      await tab.close();
    }
  }

  it.each(["connect", "grpc-web"])("%s: calls the API across origins, errors included", async (transport) => {
    const result = await runInPage(t, transport);
    expect(result.names).toEqual([`browser-${transport}`]);
    expect(result.total).toBe("1");
    expect(result.error).toEqual({ code: 5, message: expect.stringMatching(/^Not found: group /), reason: "NOT_FOUND" });
  });

  it("is refused by the browser when the server does not list the page's origin", async () => {
    await expect(runInPage(closed, "connect")).rejects.toThrow(/Failed to fetch|\[unknown\]|unavailable/i);
  });
});
