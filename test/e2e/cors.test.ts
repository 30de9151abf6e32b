/**
 * CORS (ARBOR_CORS_ORIGINS): preflights from listed origins are answered, actual answers carry
 * the headers a page needs to read them, other origins get nothing, and the setting is checked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, resolveConfig } from "../../src/config.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0]!;
const APP = "https://app.example";

function preflight(t: TestServer, path: string, origin: string): Promise<Response> {
  return t.fetch(path, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,content-type,connect-protocol-version",
    },
  });
}

describe(`CORS [${engine.name}]`, () => {
  let listed: TestServer;
  let any: TestServer;
  let none: TestServer;

  beforeAll(async () => {
    [listed, any, none] = await Promise.all([
      startTestServer(engine, { corsOrigins: [APP, "http://localhost:5173"] }),
      startTestServer(engine, { corsOrigins: ["*"] }),
      startTestServer(engine),
    ]);
  });
  afterAll(async () => {
    await Promise.all([listed?.close(), any?.close(), none?.close()]);
  });

  it("answers a preflight from a listed origin, for Connect and REST paths alike", async () => {
    for (const path of ["/arbor.iam.v2beta1.GroupsService/ListGroups", "/iam/v2beta1/groups"]) {
      const res = await preflight(listed, path, APP);
      expect(res.status).toBe(204);
      expect(res.headers.get("access-control-allow-origin")).toBe(APP);
      expect(res.headers.get("vary")).toMatch(/origin/i);
      expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
      for (const h of ["authorization", "content-type", "connect-protocol-version", "grpc-timeout", "x-grpc-web"]) {
        expect(res.headers.get("access-control-allow-headers")).toContain(h);
      }
      expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    }
  });

  it("lets a listed origin read answers and gRPC status headers", async () => {
    const res = await listed.fetch("/ping/v2beta1/ping", { headers: { origin: APP } });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    expect(res.headers.get("access-control-expose-headers")).toContain("grpc-status-details-bin");
    const error = await listed.fetch("/iam/v2beta1/groups", { headers: { origin: APP } });
    expect(error.status).toBe(401);
    expect(error.headers.get("access-control-allow-origin")).toBe(APP);
  });

  it("gives other origins, and servers without the setting, no CORS headers", async () => {
    const other = await preflight(listed, "/iam/v2beta1/groups", "https://evil.example");
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    expect(other.status).toBe(405);
    const unset = await preflight(none, "/iam/v2beta1/groups", APP);
    expect(unset.headers.get("access-control-allow-origin")).toBeNull();
    const plain = await none.fetch("/ping/v2beta1/ping", { headers: { origin: APP } });
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("allows any origin with *", async () => {
    const res = await preflight(any, "/iam/v2beta1/groups", "https://anything.example");
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  });
});

describe("the corsOrigins setting", () => {
  it("takes a comma-separated list or a YAML list, normalized", () => {
    expect(resolveConfig({ env: { ARBOR_CORS_ORIGINS: " https://a.example/, http://localhost:5173 " } }).corsOrigins).toEqual([
      "https://a.example",
      "http://localhost:5173",
    ]);
    expect(resolveConfig({ env: { ARBOR_CORS_ORIGINS: "*" } }).corsOrigins).toEqual(["*"]);
    expect(resolveConfig({ env: {} }).corsOrigins).toEqual([]);
  });

  it.each(["app.example", "https://app.example/path", "ftp://app.example", "https://app.example?x=1"])("refuses %s", (origin) => {
    expect(() => resolveConfig({ env: { ARBOR_CORS_ORIGINS: origin } })).toThrow(ConfigError);
  });
});
