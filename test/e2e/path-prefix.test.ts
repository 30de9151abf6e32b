/**
 * Arbor behind a proxy at a path (https://example.test/arbor): some proxies forward the prefix,
 * others strip it, and the server answers both ways for every kind of endpoint (REST, Connect,
 * discovery and keys, the login endpoints, the exchange, probes), with an issuer at a path of its
 * own as well. What it hands out keeps the configured URLs. The browser walk through a real
 * HAProxy with TLS is test/e2e/console-behind-proxy.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;

describe(`a base URL and an issuer with a path [${engine.name}]`, () => {
  let t: TestServer;
  let split: TestServer;
  let token: string;
  let orgUid: string;

  beforeAll(async () => {
    t = await startTestServer(engine, { baseUrl: "https://example.test/arbor" });
    split = await startTestServer(engine, { baseUrl: "https://example.test/api", issuerUrl: "https://example.test/auth" });
    const { org, token: admin } = await t.organization("acme");
    token = admin;
    orgUid = org.uid;
  });
  afterAll(async () => {
    await t?.close();
    await split?.close();
  });

  /** A request to the listener, as a proxy forwards it. */
  const at = (server: TestServer, path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${server.server.port}${path}`, init);

  for (const prefix of ["/arbor", ""]) {
    const how = prefix === "" ? "stripped" : "kept";
    it(`answers REST and Connect with the prefix ${how}`, async () => {
      const rest = await at(t, `${prefix}/iam/v2beta1/groups/${orgUid}`, { headers: { authorization: `Bearer ${token}` } });
      expect(rest.status).toBe(200);
      expect(((await rest.json()) as { uid: string }).uid).toBe(orgUid);
      const connect = await at(t, `${prefix}/arbor.iam.v2beta1.GroupsService/GetGroup`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ uid: orgUid }),
      });
      // Unprefixed, the Connect path begins `/arbor.iam`: only a whole segment is a prefix.
      expect(connect.status).toBe(200);
      expect(((await connect.json()) as { uid: string }).uid).toBe(orgUid);
    });

    it(`answers discovery, keys, probes, the login endpoints and the exchange with the prefix ${how}`, async () => {
      const discovery = await at(t, `${prefix}/.well-known/openid-configuration`);
      expect(discovery.status).toBe(200);
      const doc = (await discovery.json()) as { issuer: string; token_endpoint: string; jwks_uri: string };
      // What it hands out names the configured URLs, whichever way the request came.
      expect(doc.issuer).toBe("https://example.test/arbor");
      expect(doc.token_endpoint).toBe("https://example.test/arbor/oauth/token");
      expect((await at(t, `${prefix}/.well-known/jwks.json`)).status).toBe(200);
      expect((await at(t, `${prefix}/healthz`)).status).toBe(200);
      // Endpoints that exist refuse what they are sent; a route that does not would be a 404.
      const tokenEndpoint = await at(t, `${prefix}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=nothing",
      });
      expect(tokenEndpoint.status).toBe(400);
      expect(((await tokenEndpoint.json()) as { error: string }).error).toBe("unsupported_grant_type");
      const exchange = await at(t, `${prefix}/sts/exchange`, { method: "POST" });
      expect(exchange.status).not.toBe(404);
      expect((await at(t, `${prefix}/console/`)).status).toBe(200);
    });
  }

  it("takes off whole path segments only: /arborx is no prefix", async () => {
    expect((await at(t, "/arborx/healthz")).status).toBe(404);
  });

  it("answers at the issuer's path and the base URL's path when they differ, and at neither", async () => {
    const issuer = async (path: string) =>
      ((await (await at(split, `${path}/.well-known/openid-configuration`)).json()) as { issuer: string }).issuer;
    for (const path of ["/auth", "/api", ""]) expect(await issuer(path)).toBe("https://example.test/auth");
    expect((await at(split, "/api/healthz")).status).toBe(200);
    expect((await at(split, "/auth/sts/exchange", { method: "POST" })).status).not.toBe(404);
  });
});
