import { describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import { isLoopbackHost } from "../../src/domain/issuer-address.js";
import {
  validateAdditionalScopes,
  validateClientId,
  validateClientSecret,
  validateGroupsClaim,
  validateIssuer,
  validateOidc,
} from "../../src/domain/oidc-rules.js";
import type { OidcSettings } from "../../src/domain/identity-providers.js";
import { violationOf } from "../server/rest/violation.js";

const strict = { allowHttpLoopback: false, allowPrivate: false };
const loose = { allowHttpLoopback: true, allowPrivate: false };

describe("OIDC issuers", () => {
  it.each([
    "https://accounts.google.com",
    "https://tenant.auth0.com/",
    "https://login.example.com/realms/acme",
    "https://login.example.com:8443/path/",
    "https://[2001:db8::1]/",
  ])("accepts %s", (issuer) => {
    expect(() => validateIssuer(issuer, strict)).not.toThrow();
  });

  it.each([
    ["", "is required"],
    ["accounts.google.com", "no scheme"],
    ["https:accounts.google.com", "no slashes"],
    ["https:/accounts.google.com", "one slash"],
    ["ftp://example.com", "another scheme"],
    ["HTTPS://example.com", "an upper-case scheme"],
    ["http://example.com", "http elsewhere than loopback"],
    ["https://example.com/?a=b", "a query"],
    ["https://example.com?", "an empty query"],
    ["https://example.com/#x", "a fragment"],
    ["https://user:pass@example.com", "credentials"],
    ["https://user@example.com", "a user name"],
    ["https://exa mple.com", "a space"],
    [" https://example.com", "leading whitespace"],
    ["https://example.com\n", "a newline"],
    ["https://example.com\\path", "a backslash"],
    ["https://", "no host"],
    [`https://example.com/${"a".repeat(2048)}`, "too long"],
  ])("refuses %j (%s) with INVALID_ARGUMENT on oidc.issuer", (issuer) => {
    expect(violationOf(() => validateIssuer(issuer, loose))).toEqual({ code: Code.INVALID_ARGUMENT, field: "oidc.issuer" });
  });

  it.each(["https://10.0.0.1/", "https://192.168.0.10:8443/dex", "https://[fd12::1]/", "https://[::ffff:172.16.0.1]/"])(
    "takes an issuer on the private address %s only when the server allows it",
    (issuer) => {
      expect(violationOf(() => validateIssuer(issuer, loose))).toEqual({ code: Code.INVALID_ARGUMENT, field: "oidc.issuer" });
      expect(() => validateIssuer(issuer, { ...strict, allowPrivate: true })).not.toThrow();
    },
  );

  it.each(["https://169.254.169.254/", "https://[fe80::1]/", "https://0.0.0.0/", "https://[64:ff9b::a9fe:a9fe]/"])(
    "refuses the link-local or reserved %s whatever the settings",
    (issuer) => {
      expect(violationOf(() => validateIssuer(issuer, { allowHttpLoopback: true, allowPrivate: true }))).toEqual({
        code: Code.INVALID_ARGUMENT,
        field: "oidc.issuer",
      });
    },
  );

  it("refuses https on a loopback address unless loopback issuers are allowed", () => {
    expect(violationOf(() => validateIssuer("https://127.0.0.1/", strict))).toEqual({ code: Code.INVALID_ARGUMENT, field: "oidc.issuer" });
    expect(() => validateIssuer("https://127.0.0.1/", loose)).not.toThrow();
  });

  it.each(["http://127.0.0.1:5556/dex", "http://127.1.2.3/", "http://localhost:8080", "http://[::1]:9000/issuer", "http://127.1/"])(
    "takes loopback http %s only when the server allows it",
    (issuer) => {
      expect(violationOf(() => validateIssuer(issuer, strict))).toEqual({ code: Code.INVALID_ARGUMENT, field: "oidc.issuer" });
      expect(() => validateIssuer(issuer, loose)).not.toThrow();
    },
  );

  it.each([
    ["localhost", true],
    ["127.0.0.1", true],
    ["127.255.255.254", true],
    ["[::1]", true],
    ["128.0.0.1", false],
    ["localhost.example.com", false],
    ["[::ffff:7f00:1]", false],
    ["10.0.0.1", false],
  ])("loopback host %s: %s", (host, want) => {
    expect(isLoopbackHost(host)).toBe(want);
  });
});

describe("OIDC client and scopes", () => {
  it.each([
    ["an empty client id", () => validateClientId(""), "oidc.clientId"],
    ["a client id over 256 characters", () => validateClientId("c".repeat(257)), "oidc.clientId"],
    ["a client id with a control character", () => validateClientId("abc\u0000"), "oidc.clientId"],
    ["a secret over 1024 characters", () => validateClientSecret("s".repeat(1025)), "oidc.clientSecret"],
    ["21 scopes", () => validateAdditionalScopes(Array.from({ length: 21 }, (_, i) => `s${i}`)), "oidc.additionalScopes"],
    ["a scope with a space", () => validateAdditionalScopes(["email", "read write"]), "oidc.additionalScopes[1]"],
    ["an empty scope", () => validateAdditionalScopes([""]), "oidc.additionalScopes[0]"],
    ["a scope with a quote", () => validateAdditionalScopes(['a"b']), "oidc.additionalScopes[0]"],
    ["a scope with a backslash", () => validateAdditionalScopes(["a\\b"]), "oidc.additionalScopes[0]"],
    ["a non-ASCII scope", () => validateAdditionalScopes(["größe"]), "oidc.additionalScopes[0]"],
    ["a scope over 64 characters", () => validateAdditionalScopes(["s".repeat(65)]), "oidc.additionalScopes[0]"],
    ["a scope named twice", () => validateAdditionalScopes(["groups", "email", "groups"]), "oidc.additionalScopes[2]"],
    ["a groups claim over 128 characters", () => validateGroupsClaim("g".repeat(129)), "oidc.groupsClaim"],
  ])("refuses %s", (_name, fn, field) => {
    expect(violationOf(fn)).toEqual({ code: Code.INVALID_ARGUMENT, field });
  });

  it("accepts limits exactly", () => {
    expect(() => validateClientId("c".repeat(256))).not.toThrow();
    expect(() => validateClientSecret("")).not.toThrow();
    expect(() => validateClientSecret("s".repeat(1024))).not.toThrow();
    expect(() => validateAdditionalScopes(Array.from({ length: 20 }, (_, i) => `s${i}`))).not.toThrow();
    expect(() => validateAdditionalScopes(["s".repeat(64), "https://graph.example.com/.default", "read:org", "openid"])).not.toThrow();
    expect(() => validateGroupsClaim("")).not.toThrow();
    expect(() => validateGroupsClaim("https://example.com/claims/groups")).not.toThrow();
  });
});

describe("validateOidc", () => {
  const good: OidcSettings = {
    issuer: "https://id.example.com",
    clientId: "arbor",
    clientSecret: "",
    additionalScopes: [],
    groupsClaim: "",
  };

  it("checks every setting, the issuer first", () => {
    expect(() => validateOidc(good, strict)).not.toThrow();
    expect(violationOf(() => validateOidc({ ...good, issuer: "", clientId: "" }, strict)).field).toBe("oidc.issuer");
    expect(violationOf(() => validateOidc({ ...good, clientId: "" }, strict)).field).toBe("oidc.clientId");
  });

  it("checks only the settings named", () => {
    const bad = { ...good, issuer: "http://example.com", clientId: "" };
    expect(() => validateOidc(bad, strict, ["groupsClaim"])).not.toThrow();
    expect(violationOf(() => validateOidc(bad, strict, ["clientId"])).field).toBe("oidc.clientId");
  });
});
