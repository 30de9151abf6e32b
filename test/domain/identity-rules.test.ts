import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Code, isApiError } from "../../src/domain/errors.js";
import { validateRelationship, type RelationshipInput, type RelationshipRules } from "../../src/domain/identity-rules.js";
import { STATIC_KEYS_LIFETIME_MS } from "../../src/domain/static-keys-rules.js";

const NOW = Date.UTC(2026, 2, 27, 13, 55, 0, 423);
const DAY = 86_400_000;
const rules: RelationshipRules = { now: NOW, allowHttpLoopbackIssuers: false, allowPrivateIssuers: false };
const loopback: RelationshipRules = { ...rules, allowHttpLoopbackIssuers: true };
const UNPINNED_SUBJECT =
  "must start with a literal of two parts each ended by ':' or '/' (like repo:acme/), " +
  "in every alternative, so it pins the subject's prefix";
const UNPINNED_ISSUER = "must start with a literal https://host/ (the / included), in every alternative, so it pins the issuer's host";

const ec = generateKeyPairSync("ec", { namedCurve: "P-256" });
const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 });
const ed = generateKeyPairSync("ed25519");
const ecPublic = { ...ec.publicKey.export({ format: "jwk" }), kid: "a", alg: "ES256", use: "sig" };
const rsaPublic = rsa.publicKey.export({ format: "jwk" });
const edPublic = ed.publicKey.export({ format: "jwk" });
const jwks = (...keys: unknown[]) => JSON.stringify({ keys });

const claims = (m: Partial<Extract<RelationshipInput, { kind: "claimMatch" }>>): RelationshipInput => ({
  kind: "claimMatch",
  issuer: "https://token.actions.githubusercontent.com",
  subject: "repo:acme/app:ref:refs/heads/main",
  claims: {},
  claimPatterns: {},
  ...m,
});
const keys = (k: Partial<Extract<RelationshipInput, { kind: "staticKeys" }>>): RelationshipInput => ({
  kind: "staticKeys",
  issuer: "https://gitlab.internal.example",
  subject: "project_path:acme/app:ref_type:branch:ref:main",
  issuerKeys: jwks(ecPublic),
  ...k,
});

/** The field an INVALID_ARGUMENT names, or a description of what happened instead. */
function refusal(input: RelationshipInput | undefined, r: RelationshipRules = rules): { field: string; description: string } | string {
  try {
    validateRelationship(input, r);
    return "accepted";
  } catch (e) {
    if (!isApiError(e) || e.code !== Code.INVALID_ARGUMENT) throw e;
    const v = e.details.fieldViolations?.[0];
    expect(e.message).toBe(`Invalid argument: ${v?.field}: ${v?.description}`);
    return { field: v?.field ?? "", description: v?.description ?? "" };
  }
}

describe("identity relationships", () => {
  it.each<[string, RelationshipInput | undefined, RelationshipRules?]>([
    ["an exact issuer and subject", claims({})],
    [
      "patterns for issuer, subject and audience",
      claims({
        issuer: undefined,
        issuerPattern: "https://gitlab\\.example/.*",
        subject: undefined,
        subjectPattern: "repo:acme/[^/]+:ref:refs/heads/main",
        audiencePattern: "arbor-.*",
      }),
    ],
    [
      "an exact audience and custom claims",
      claims({
        audience: "https://arbor.example",
        claims: { repository_owner: "acme", empty: "" },
        claimPatterns: { job_workflow_ref: "acme/.*@refs/heads/main" },
      }),
    ],
    ["32 claims", claims({ claims: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`c${i}`, "v"])) })],
    ["a 512-character pattern", claims({ subject: undefined, subjectPattern: `repo:${"a".repeat(507)}` })],
    ...[
      "repo:acme/.*",
      "repo:acme/app:ref:refs/heads/(main|release-.*)",
      "system:serviceaccount:ci:.*",
      "project_path:acme/.*",
      "repo:acme/.*|repo:beta/.*",
      "repo:acme/app:ref:refs/heads/main|repo:acme/app:environment:prod",
      "x?",
    ].map((p): [string, RelationshipInput] => [`subjectPattern ${p}`, claims({ subject: undefined, subjectPattern: p })]),
    ...[
      "https://token\\.actions\\.githubusercontent\\.com",
      "https://gitlab\\.acme\\.example(/.*)?",
      "https://acme\\.example:8443/.*",
      "https://a\\.example/.*|https://b\\.example/.*",
    ].map((p): [string, RelationshipInput] => [`issuerPattern ${p}`, claims({ issuer: undefined, issuerPattern: p })]),
    [
      "an http issuerPattern on loopback when allowed",
      claims({ issuer: undefined, issuerPattern: "http://127\\.0\\.0\\.1:5556/.*" }),
      loopback,
    ],
    ["a subjectPattern whose class holds one character", claims({ subject: undefined, subjectPattern: "[r]epo:acme/.*" })],
    ["an issuer on a private address when allowed", claims({ issuer: "https://10.0.0.5/dex" }), { ...rules, allowPrivateIssuers: true }],
    ["an issuer on a public address", claims({ issuer: "https://140.82.112.3" })],
    ["an http issuer on 127.0.0.1 when allowed", claims({ issuer: "http://127.0.0.1:5556/dex" }), loopback],
    ["an http issuer on localhost when allowed", claims({ issuer: "http://localhost:8080" }), loopback],
    ["an http issuer on ::1 when allowed", claims({ issuer: "http://[::1]:8080" }), loopback],
    ["static EC, RSA and OKP keys", keys({ issuerKeys: jwks(ecPublic, rsaPublic, edPublic) })],
    ["static keys expiring in exactly 365 days", keys({ expirationTime: NOW + STATIC_KEYS_LIFETIME_MS })],
    ["static keys with a non-https issuer URL", keys({ issuer: "pulltoken:issuer" })],
  ])("accepts %s", (_, input, r) => {
    expect(refusal(input, r)).toBe("accepted");
  });

  it.each<[string, RelationshipInput | undefined, string, string | RegExp, RelationshipRules?]>([
    ["no relationship", undefined, "claimMatch", "an identity needs claimMatch or staticKeys"],
    ["no issuer", claims({ issuer: undefined }), "claimMatch.issuer", "an identity needs issuer or issuerPattern"],
    ["no subject", claims({ subject: undefined }), "claimMatch.subject", /^an identity needs subject or subjectPattern/],
    ["an empty issuer", claims({ issuer: "" }), "claimMatch.issuer", "must not be empty"],
    ["an empty subject", claims({ subject: "" }), "claimMatch.subject", "must not be empty"],
    ["an empty audience", claims({ audience: "" }), "claimMatch.audience", "must not be empty"],
    ["a subject over 512 characters", claims({ subject: "s".repeat(513) }), "claimMatch.subject", "must be at most 512 characters"],
    ["an http issuer", claims({ issuer: "http://issuer.example" }), "claimMatch.issuer", "must be an https:// URL"],
    [
      "an http issuer on loopback when not allowed",
      claims({ issuer: "http://127.0.0.1:5556" }),
      "claimMatch.issuer",
      "must be an https:// URL",
    ],
    [
      "an http issuer off loopback when loopback is allowed",
      claims({ issuer: "http://issuer.example" }),
      "claimMatch.issuer",
      "must be an https:// URL, or http:// on loopback",
      loopback,
    ],
    ["an http issuer on a lookalike host", claims({ issuer: "http://127.0.0.1.evil.example" }), "claimMatch.issuer", /https/, loopback],
    ["an issuer that is no URL", claims({ issuer: "not a url" }), "claimMatch.issuer", "must be an https:// URL"],
    ["an issuer with credentials", claims({ issuer: "https://user:pw@issuer.example" }), "claimMatch.issuer", "must not carry credentials"],
    ...[
      ".*",
      ".+",
      "[\\s\\S]*",
      "(.*)",
      "\\S+",
      "x|.*",
      ".{2,}",
      "\\S{2,}|0",
      "x|0|repo:.*|https:.*|system:.*|(?:[0-9a-zA-Z]+)+!",
      "repo:.*",
      "repo:acme.*",
      "(?i)repo:acme/.*",
      "repo:acme/.*|.*",
    ].map((p): [string, RelationshipInput, string, string] => [
      `subjectPattern ${p}`,
      claims({ subject: undefined, subjectPattern: p }),
      "claimMatch.subjectPattern",
      UNPINNED_SUBJECT,
    ]),
    ...[
      ".*",
      ".+",
      "https://.*",
      "https://[a-z.]+/.*",
      "https://acme\\.example.*",
      "https://acme\\.example@.*",
      "https://acme\\.example:[0-9]+",
      "(?i)https://acme\\.example/.*",
      "https://a\\.example/.*|.*",
    ].map((p): [string, RelationshipInput, string, string] => [
      `issuerPattern ${p}`,
      claims({ issuer: undefined, issuerPattern: p }),
      "claimMatch.issuerPattern",
      UNPINNED_ISSUER,
    ]),
    [
      "issuerPattern on http",
      claims({ issuer: undefined, issuerPattern: "http://acme\\.example/.*" }),
      "claimMatch.issuerPattern",
      "must be an https:// URL",
    ],
    [
      "issuerPattern on http loopback when not allowed",
      claims({ issuer: undefined, issuerPattern: "http://127\\.0\\.0\\.1:5556/.*" }),
      "claimMatch.issuerPattern",
      "must be an https:// URL",
    ],
    [
      "issuerPattern with a port pattern",
      claims({ issuer: undefined, issuerPattern: "http://127\\.0\\.0\\.1:[0-9]+/x" }),
      "claimMatch.issuerPattern",
      UNPINNED_ISSUER,
      loopback,
    ],
    ["audiencePattern .*", claims({ audiencePattern: ".*" }), "claimMatch.audiencePattern", "must not match every audience"],
    ["an empty subjectPattern", claims({ subject: undefined, subjectPattern: "" }), "claimMatch.subjectPattern", "must not be empty"],
    [
      "a pattern that does not compile",
      claims({ subject: undefined, subjectPattern: "repo:(acme" }),
      "claimMatch.subjectPattern",
      "is not a valid RE2 regular expression: missing closing ): `repo:(acme`",
    ],
    [
      "a lookahead",
      claims({ subject: undefined, subjectPattern: "(?!x$).*" }),
      "claimMatch.subjectPattern",
      "is not a valid RE2 regular expression: invalid or unsupported Perl syntax: `(?!`",
    ],
    [
      "a backreference",
      claims({ claimPatterns: { ref: "(a)\\1" } }),
      'claimMatch.claimPatterns["ref"]',
      "is not a valid RE2 regular expression: invalid escape sequence: `\\1`",
    ],
    [
      "a lookbehind in an issuer pattern",
      claims({ issuer: undefined, issuerPattern: "(?<=x)https://a\\.example/" }),
      "claimMatch.issuerPattern",
      /^is not a valid RE2 regular expression/,
    ],
    [
      "a pattern escaping its anchors",
      claims({ subject: undefined, subjectPattern: "a)|(evil" }),
      "claimMatch.subjectPattern",
      /^is not a valid RE2 regular expression/,
    ],
    [
      "a pattern too large to match cheaply",
      claims({ subject: undefined, subjectPattern: "repo:acme/\\pL{990}" }),
      "claimMatch.subjectPattern",
      /^is too complex/,
    ],
    ...[
      "https://10.0.0.5",
      "https://192.168.1.1/dex",
      "https://172.16.0.1",
      "https://100.64.0.1",
      "https://[fd00::1]",
      "https://127.0.0.1",
    ].map((issuer): [string, RelationshipInput, string, RegExp] => [
      `an issuer on ${issuer}`,
      claims({ issuer }),
      "claimMatch.issuer",
      /^must not name a host that is a (private|loopback) address$/,
    ]),
    ...["https://169.254.169.254", "https://[fe80::1]", "https://[::ffff:169.254.169.254]", "https://0.0.0.0", "https://224.0.0.1"].map(
      (issuer): [string, RelationshipInput, string, RegExp, RelationshipRules] => [
        `an issuer on ${issuer}, even when loopback and private issuers are allowed`,
        claims({ issuer }),
        "claimMatch.issuer",
        /^must not name a host that is a (link-local|reserved) address$/,
        { ...loopback, allowPrivateIssuers: true },
      ],
    ),
    [
      "an issuerPattern pinning a private host",
      claims({ issuer: undefined, issuerPattern: "https://10\\.1\\.2\\.3/.*" }),
      "claimMatch.issuerPattern",
      "must not name a host that is a private address",
    ],
    [
      "an issuerPattern pinning a mapped private host",
      claims({ issuer: undefined, issuerPattern: "https://\\[::ffff:10\\.1\\.2\\.3\\]/.*" }),
      "claimMatch.issuerPattern",
      "must not name a host that is a private address",
    ],
    [
      "a pattern over 512 characters",
      claims({ subject: undefined, subjectPattern: `repo:${"a".repeat(508)}` }),
      "claimMatch.subjectPattern",
      "must be at most 512 characters",
    ],
    [
      "33 claims",
      claims({ claims: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, "v"])) }),
      "claimMatch.claims",
      "must hold at most 32 entries",
    ],
    [
      "33 claim patterns",
      claims({ claimPatterns: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, "v"])) }),
      "claimMatch.claimPatterns",
      "must hold at most 32 entries",
    ],
    ["an empty claim name", claims({ claims: { "": "v" } }), "claimMatch.claims", "claim names must not be empty"],
    ["an empty claim pattern name", claims({ claimPatterns: { "": "v" } }), "claimMatch.claimPatterns", "claim names must not be empty"],
    [
      "a claim value over 512 characters",
      claims({ claims: { ref: "r".repeat(513) } }),
      'claimMatch.claims["ref"]',
      "must be at most 512 characters",
    ],
    ...["iss", "sub", "aud", "exp", "nbf", "iat"].map((name): [string, RelationshipInput, string, RegExp] => [
      `the reserved claim ${name}`,
      claims({ claims: { [name]: "v" } }),
      `claimMatch.claims["${name}"]`,
      /has a field of its own/,
    ]),
    [
      "the reserved claim pattern sub",
      claims({ claimPatterns: { sub: "repo:.*" } }),
      'claimMatch.claimPatterns["sub"]',
      /has a field of its own/,
    ],
    [
      "a claim pattern matching everything",
      claims({ claimPatterns: { ref: ".*" } }),
      'claimMatch.claimPatterns["ref"]',
      "must not match every value",
    ],
    [
      "a claim pattern that does not compile",
      claims({ claimPatterns: { ref: "[" } }),
      'claimMatch.claimPatterns["ref"]',
      /^is not a valid RE2 regular expression/,
    ],
    ["static keys without issuer", keys({ issuer: "" }), "staticKeys.issuer", "is required"],
    ["static keys with an issuer that is no URL", keys({ issuer: "gitlab" }), "staticKeys.issuer", "must be a URL"],
    ["static keys without subject", keys({ subject: "" }), "staticKeys.subject", "is required"],
    ["static keys without keys", keys({ issuerKeys: "" }), "staticKeys.issuerKeys", "is required"],
    ["keys that are not JSON", keys({ issuerKeys: "{keys" }), "staticKeys.issuerKeys", /^must be a JWKS/],
    ["keys that are no JWKS", keys({ issuerKeys: JSON.stringify([ecPublic]) }), "staticKeys.issuerKeys", /^must be a JWKS/],
    ["an empty JWKS", keys({ issuerKeys: jwks() }), "staticKeys.issuerKeys", "must hold at least one key"],
    [
      "17 keys",
      keys({ issuerKeys: jwks(...Array.from({ length: 17 }, () => ecPublic)) }),
      "staticKeys.issuerKeys",
      "must hold at most 16 keys",
    ],
    [
      "a JWKS over 64 KiB",
      keys({ issuerKeys: JSON.stringify({ keys: [ecPublic], pad: "x".repeat(65_536) }) }),
      "staticKeys.issuerKeys",
      "must be at most 65536 bytes",
    ],
    [
      "a private EC key",
      keys({ issuerKeys: jwks(ec.privateKey.export({ format: "jwk" })) }),
      "staticKeys.issuerKeys",
      'key 0: must be a public key (it has the private member "d")',
    ],
    [
      "a private RSA key",
      keys({ issuerKeys: jwks(ecPublic, rsa.privateKey.export({ format: "jwk" })) }),
      "staticKeys.issuerKeys",
      /^key 1: must be a public key/,
    ],
    [
      "a symmetric key",
      keys({ issuerKeys: jwks({ kty: "oct", k: "c2VjcmV0" }) }),
      "staticKeys.issuerKeys",
      "key 0: kty must be one of RSA, EC, OKP",
    ],
    [
      "a symmetric key claiming to be EC",
      keys({ issuerKeys: jwks({ ...ecPublic, k: "c2VjcmV0" }) }),
      "staticKeys.issuerKeys",
      /^key 0: must be a public key/,
    ],
    ["a key without kty", keys({ issuerKeys: jwks({ x: "abc" }) }), "staticKeys.issuerKeys", "key 0: kty must be one of RSA, EC, OKP"],
    ["a key that is not an object", keys({ issuerKeys: jwks("key") }), "staticKeys.issuerKeys", "key 0: must be a JSON object"],
    [
      "a broken EC key",
      keys({ issuerKeys: jwks({ kty: "EC", crv: "P-256", x: "abc", y: "def" }) }),
      "staticKeys.issuerKeys",
      "key 0: is not a valid EC public key",
    ],
    ["an expiration in the past", keys({ expirationTime: NOW - 1 }), "staticKeys.expirationTime", "must be in the future"],
    ["an expiration now", keys({ expirationTime: NOW }), "staticKeys.expirationTime", "must be in the future"],
    [
      "an expiration past 365 days",
      keys({ expirationTime: NOW + 365 * DAY + 1 }),
      "staticKeys.expirationTime",
      "must be at most 365 days from now",
    ],
  ])("refuses %s, naming %s", (_, input, field, description, r) => {
    const got = refusal(input, r);
    expect(got).toMatchObject({ field });
    if (typeof got !== "string")
      expect(got.description).toMatch(description instanceof RegExp ? description : new RegExp(`^${escape(description)}$`));
  });

  it("defaults static keys to expire 365 days from now", () => {
    const got = validateRelationship(keys({}), rules);
    expect(got).toMatchObject({ kind: "staticKeys", expirationTime: NOW + 365 * DAY });
  });

  it("keeps a claim match as given", () => {
    const input = claims({ audience: "aud", claims: { a: "b" } });
    expect(validateRelationship(input, rules)).toEqual(input);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
