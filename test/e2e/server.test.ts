/**
 * The one port: REST over HTTP/1.1 and h2c, the unauthenticated endpoints, the token issuer's
 * discovery documents, request logs and metrics.
 */
import http from "node:http";
import http2 from "node:http2";
import { createLocalJWKSet, jwtVerify } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILD_INFO } from "../../src/build-info.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;
const METRICS_TOKEN = "scrape-0123456789abcdef";

function rawGet(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, headers }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once("error", reject);
    req.end();
  });
}

function h2Get(url: string, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(url);
    session.once("error", reject);
    const req = session.request({ ":path": path, ...headers });
    let status = 0;
    let body = "";
    req.on("response", (h) => (status = Number(h[":status"])));
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", () => {
      session.close();
      resolve({ status, body });
    });
    req.end();
  });
}

describe(`the server [${engine.name}]`, () => {
  let t: TestServer;
  let token: string;
  let org: string;

  beforeAll(async () => {
    t = await startTestServer(engine, { metricsToken: METRICS_TOKEN });
    ({ token } = await t.organization("server-org"));
    org = (await t.server.store.groups.findOrganization("server-org"))!.uid;
  });
  afterAll(() => t?.close());

  it.each([
    ["/ping/v2beta1/ping", { response: "pong" }],
    // The build's version and commit (what `arbor version` shows), and nothing else about it.
    ["/healthz", { status: "SERVING", version: BUILD_INFO.version, commit: BUILD_INFO.commit }],
    ["/readyz", { status: "SERVING" }],
  ])("GET %s needs no token", async (path, want) => {
    const res = await t.fetch(path);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(want);
  });

  it("serves Prometheus metrics by RPC and code", async () => {
    await t.fetch(`/iam/v2beta1/groups/${org}`, { token });
    await t.fetch("/iam/v2beta1/groups/nope", { token });
    const text = await (await t.fetch("/metrics", { token: METRICS_TOKEN })).text();
    expect(text).toMatch(/arbor_requests_total\{rpc="arbor\.iam\.v2beta1\.GroupsService\/GetGroup",transport="rest",code="0"\} \d+/);
    expect(text).toMatch(/arbor_requests_total\{rpc="arbor\.iam\.v2beta1\.GroupsService\/GetGroup",transport="rest",code="3"\} \d+/);
    expect(text).toContain("arbor_request_duration_seconds_bucket");
    expect(text).toContain(`arbor_build_info{version="${BUILD_INFO.version}",commit="${BUILD_INFO.commit}",node="${process.version}"} 1`);
  });

  it("writes one structured log line per request, with the caller and never the token", async () => {
    const before = t.logs.length;
    await t.fetch(`/iam/v2beta1/groups/${org}`, { token });
    await new Promise((r) => setTimeout(r, 50));
    const lines = t.logs.slice(before).filter((l) => l.msg === "request");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ rpc: "arbor.iam.v2beta1.GroupsService/GetGroup", status: 200, code: 0, transport: "rest" });
    expect(lines[0]!.caller).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof lines[0]!.duration_ms).toBe("number");
    expect(JSON.stringify(t.logs)).not.toContain(token);
  });

  it("publishes its signing keys, and they verify its tokens", async () => {
    const discovery = (await (await t.fetch("/.well-known/openid-configuration")).json()) as { issuer: string; jwks_uri: string };
    expect(discovery.issuer).toBe(t.url);
    expect(discovery.jwks_uri).toBe(`${t.url}/.well-known/jwks.json`);
    const jwks = (await (await fetch(discovery.jwks_uri)).json()) as { keys: { kid: string; alg: string; kty: string }[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
    expect(jwks.keys[0]).toMatchObject({ alg: "ES256", kty: "EC" });
    expect(JSON.stringify(jwks)).not.toMatch(/"d":/);
    const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks as never), { issuer: t.url, audience: t.url });
    expect(protectedHeader.alg).toBe("ES256");
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(payload.jti).toBeTypeOf("string");
  });

  it("answers REST over h2c on the same port", async () => {
    const res = await h2Get(t.url, `/iam/v2beta1/groups/${org}`, { authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ uid: org, name: "server-org" });
    const ping = await h2Get(t.url, "/ping/v2beta1/ping");
    expect(JSON.parse(ping.body)).toEqual({ response: "pong" });
  });

  it("refuses dot-dot and malformed percent-encoding in paths as INVALID_ARGUMENT", async () => {
    for (const path of [`/iam/v2beta1/groups/${org}/../${org}`, `/iam/v2beta1/groups/${org}/%ZZ`, `/iam/v2beta1/groups/%C0%AF`]) {
      const res = await rawGet(t.server.port, path, { authorization: `Bearer ${token}` });
      expect(res.status, path).toBe(400);
      expect((JSON.parse(res.body) as { code: number }).code).toBe(3);
    }
  });
});

describe(`where /metrics is served [${engine.name}]`, () => {
  /** Status, and the RPC code of a JSON answer, of GET /metrics at base with an optional bearer token. */
  async function scrape(base: string, bearer?: string) {
    const res = await fetch(`${base}/metrics`, bearer === undefined ? {} : { headers: { authorization: `Bearer ${bearer}` } });
    const text = await res.text();
    const code = res.headers.get("content-type") === "application/json" ? (JSON.parse(text) as { code: number }).code : undefined;
    return { status: res.status, code, metrics: text.includes("arbor_requests_total") };
  }
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });
  const start = async (settings: Parameters<typeof startTestServer>[1]) => {
    const s = await startTestServer(engine, settings);
    servers.push(s);
    return s;
  };

  it("is not served at all by default", async () => {
    const s = await start({});
    expect(await scrape(s.url)).toEqual({ status: 404, code: 5, metrics: false });
    expect(s.server.metricsPort).toBeUndefined();
  });

  it("needs ARBOR_METRICS_TOKEN on the API port when one is set", async () => {
    const s = await start({ metricsToken: METRICS_TOKEN });
    expect(await scrape(s.url)).toEqual({ status: 401, code: 16, metrics: false });
    expect(await scrape(s.url, "wrong-token-0123456789")).toEqual({ status: 401, code: 16, metrics: false });
    expect(await scrape(s.url, METRICS_TOKEN)).toEqual({ status: 200, code: undefined, metrics: true });
  });

  it("is served on ARBOR_METRICS_ADDRESS alone, with the token when one is set", async () => {
    const open = await start({ metricsAddress: "127.0.0.1:0" });
    const openAt = `http://127.0.0.1:${open.server.metricsPort}`;
    expect(await scrape(openAt)).toEqual({ status: 200, code: undefined, metrics: true });
    expect(await scrape(open.url)).toEqual({ status: 404, code: 5, metrics: false });
    expect((await fetch(`${openAt}/healthz`)).status).toBe(404);
    const guarded = await start({ metricsAddress: "127.0.0.1:0", metricsToken: METRICS_TOKEN });
    const guardedAt = `http://127.0.0.1:${guarded.server.metricsPort}`;
    expect((await scrape(guardedAt)).status).toBe(401);
    expect(await scrape(guardedAt, METRICS_TOKEN)).toEqual({ status: 200, code: undefined, metrics: true });
  });
});
