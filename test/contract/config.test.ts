import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildProgram } from "../../src/cli/main.js";
import { ConfigError, DEFAULT_CONFIG, SETTINGS, baseUrlOf, errorDomainOf, issuerUrlOf, resolveConfig } from "../../src/config.js";

describe("configuration", () => {
  it("defaults when nothing is set", () => {
    expect(resolveConfig({ env: {} })).toEqual(DEFAULT_CONFIG);
  });

  it("flags win over the environment, which wins over the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-config-"));
    const file = join(dir, "arbor.yaml");
    writeFileSync(file, "port: 7000\ndataDir: /from/file\nlogLevel: warn\n");
    const c = resolveConfig({ file, env: { ARBOR_PORT: "7001", ARBOR_DATA_DIR: "/from/env" }, flags: { port: "7002" } });
    expect(c.port).toBe(7002);
    expect(c.dataDir).toBe("/from/env");
    expect(c.logLevel).toBe("warn");
  });

  it("derives the URLs and the error domain", () => {
    const c = resolveConfig({ env: { ARBOR_PORT: "9000" } });
    expect(baseUrlOf(c)).toBe("http://localhost:9000");
    expect(issuerUrlOf(c)).toBe("http://localhost:9000");
    expect(errorDomainOf(c)).toBe("localhost");
    const d = resolveConfig({ env: { ARBOR_BASE_URL: "https://api.example.com/", ARBOR_ISSUER_URL: "https://issuer.example.com" } });
    expect(baseUrlOf(d)).toBe("https://api.example.com");
    expect(issuerUrlOf(d)).toBe("https://issuer.example.com");
    expect(errorDomainOf(d)).toBe("api.example.com");
  });

  it.each([
    [{ ARBOR_PORT: "eighty" }],
    [{ ARBOR_PORT: "70000" }],
    [{ ARBOR_DATABASE_URL: "mysql://x" }],
    [{ ARBOR_BASE_URL: "ftp://x" }],
    [{ ARBOR_ALLOW_ORG_CREATION: "maybe" }],
    [{ ARBOR_LOG_LEVEL: "loud" }],
    [{ ARBOR_SHUTDOWN_TIMEOUT: "soon" }],
    [{ ARBOR_RATE_LIMIT_PER_ADDRESS: "100" }],
    [{ ARBOR_EXCHANGE_RATE_LIMIT: "lots/s" }],
    [{ ARBOR_AUTH_FAILURES_PER_ADDRESS: "10" }],
    [{ ARBOR_AUTH_FAILURES_PER_IDENTITY: "many/m" }],
    [{ ARBOR_MAX_HEADER_BYTES: "10" }],
    [{ ARBOR_HEADERS_TIMEOUT: "30s", ARBOR_REQUEST_TIMEOUT: "10s" }],
    [{ ARBOR_SECRETS_KEY: "c2hvcnQ=" }],
    [{ ARBOR_LOGIN_ATTEMPTS_PER_ADDRESS: "0" }],
    [{ ARBOR_LOGIN_ATTEMPTS_PER_ORGANIZATION: "0" }],
    [{ ARBOR_IDLE_TIMEOUT: "10ms" }],
    [{ ARBOR_MAX_CONCURRENT_STREAMS: "0" }],
    [{ ARBOR_METRICS_ADDRESS: "9464" }],
    [{ ARBOR_METRICS_ADDRESS: "127.0.0.1:99999" }],
    [{ ARBOR_METRICS_TOKEN: "short" }],
    // A bare number is milliseconds: "90" meant as days would empty the log.
    [{ ARBOR_AUDIT_RETENTION: "90" }],
    [{ ARBOR_AUDIT_RETENTION: "23h" }],
  ])("refuses %j with a ConfigError", (env) => {
    expect(() => resolveConfig({ env })).toThrow(ConfigError);
  });

  it("reads the audit retention as a duration, and keeps everything by default", () => {
    expect(resolveConfig({ env: { ARBOR_AUDIT_RETENTION: "90d" } }).auditRetentionMs).toBe(90 * 86_400_000);
    expect(resolveConfig({ env: {} }).auditRetentionMs).toBeUndefined();
  });

  it("reads rates, and off for none", () => {
    const c = resolveConfig({ env: { ARBOR_RATE_LIMIT_PER_IDENTITY: "50/s", ARBOR_EXCHANGE_RATE_LIMIT: "off" } });
    expect(c.rateLimitPerIdentity).toEqual({ count: 50, periodMs: 1_000 });
    expect(c.exchangeRateLimit).toBeUndefined();
    expect(resolveConfig({ env: { ARBOR_EXCHANGE_RATE_LIMIT: "300/m" } }).exchangeRateLimit).toEqual({ count: 300, periodMs: 60_000 });
  });

  it("enforces no rate limit by default (the spec's beta), and throttles refused credentials", () => {
    const d = resolveConfig({ env: {} });
    expect([d.rateLimitPerAddress, d.rateLimitPerIdentity, d.exchangeRateLimit]).toEqual([undefined, undefined, undefined]);
    expect([d.authFailuresPerAddress, d.authFailuresPerIdentity]).toEqual([
      { count: 100, periodMs: 60_000 },
      { count: 30, periodMs: 60_000 },
    ]);
    const set = resolveConfig({ env: { ARBOR_AUTH_FAILURES_PER_ADDRESS: "10/s", ARBOR_AUTH_FAILURES_PER_IDENTITY: "off" } });
    expect([set.authFailuresPerAddress, set.authFailuresPerIdentity]).toEqual([{ count: 10, periodMs: 1_000 }, undefined]);
  });

  it("refuses unknown settings in the file", () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-config-"));
    const file = join(dir, "arbor.yaml");
    writeFileSync(file, "prot: 80\n");
    expect(() => resolveConfig({ file, env: {} })).toThrow(/unknown setting "prot"/);
  });

  it("every setting has an ARBOR_ variable", () => {
    for (const s of Object.values(SETTINGS)) expect(s.env).toMatch(/^ARBOR_[A-Z_]+$/);
  });

  it("the CLI's defaults are the library's defaults", () => {
    const serve = buildProgram().commands.find((c) => c.name() === "serve")!;
    const defaults = Object.fromEntries(serve.options.map((o) => [o.attributeName(), o.defaultValue]));
    for (const [key, value] of Object.entries(defaults)) {
      if (value !== undefined) expect(value, key).toBe(DEFAULT_CONFIG[key as keyof typeof DEFAULT_CONFIG]);
    }
    expect(Object.keys(defaults)).toEqual(expect.arrayContaining(["port", "dataDir", "logLevel"]));
  });
});

describe("docs/operations.md", () => {
  it("documents every setting and its variable", async () => {
    const { readFileSync } = await import("node:fs");
    const doc = readFileSync(join(import.meta.dirname, "../../docs/operations.md"), "utf8");
    for (const [key, s] of Object.entries(SETTINGS)) {
      expect(doc, key).toContain(`| \`${key}\` | \`${s.env}\` |`);
    }
  });
});
