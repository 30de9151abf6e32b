import { generateKeyPairSync } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Code, isApiError } from "../../src/domain/errors.js";
import { validateRelationship, type RelationshipInput, type RelationshipRules } from "../../src/domain/identity-rules.js";
import { STATIC_KEYS_LIFETIME_MS } from "../../src/domain/static-keys-rules.js";

const NOW = Date.UTC(2026, 2, 27, 13, 55, 0, 423);
const DAY = 86_400_000;
const rules: RelationshipRules = { now: NOW, allowHttpLoopbackIssuers: false };
const loopback: RelationshipRules = { ...rules, allowHttpLoopbackIssuers: true };

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
    ["patterns for issuer, subject and audience", claims({ issuer: undefined, issuerPattern: "https://gitlab\\.example/.*", subject: undefined, subjectPattern: "repo:acme/[^/]+:ref:refs/heads/main", audiencePattern: "arbor-.*" })],
    ["an exact audience and custom claims", claims({ audience: "https://arbor.example", claims: { repository_owner: "acme", empty: "" }, claimPatterns: { job_workflow_ref: "acme/.*@refs/heads/main" } })],
    ["32 claims", claims({ claims: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`c${i}`, "v"])) })],
    ["a 512-character pattern", claims({ subject: undefined, subjectPattern: `repo:${"a".repeat(507)}` })],
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
    ["an http issuer on loopback when not allowed", claims({ issuer: "http://127.0.0.1:5556" }), "claimMatch.issuer", "must be an https:// URL"],
    ["an http issuer off loopback when loopback is allowed", claims({ issuer: "http://issuer.example" }), "claimMatch.issuer", "must be an https:// URL, or http:// on loopback", loopback],
    ["an http issuer on a lookalike host", claims({ issuer: "http://127.0.0.1.evil.example" }), "claimMatch.issuer", /https/, loopback],
    ["an issuer that is no URL", claims({ issuer: "not a url" }), "claimMatch.issuer", "must be an https:// URL"],
    ["an issuer with credentials", claims({ issuer: "https://user:pw@issuer.example" }), "claimMatch.issuer", "must not carry credentials"],
    ["subjectPattern .*", claims({ subject: undefined, subjectPattern: ".*" }), "claimMatch.subjectPattern", "must not match every subject"],
    ["subjectPattern .+", claims({ subject: undefined, subjectPattern: ".+" }), "claimMatch.subjectPattern", "must not match every subject"],
    ["subjectPattern [\\s\\S]*", claims({ subject: undefined, subjectPattern: "[\\s\\S]*" }), "claimMatch.subjectPattern", "must not match every subject"],
    ["subjectPattern (.*)", claims({ subject: undefined, subjectPattern: "(.*)" }), "claimMatch.subjectPattern", "must not match every subject"],
    ["subjectPattern \\S+", claims({ subject: undefined, subjectPattern: "\\S+" }), "claimMatch.subjectPattern", "must not match every subject"],
    ["subjectPattern x|.*", claims({ subject: undefined, subjectPattern: "x|.*" }), "claimMatch.subjectPattern", "must not match every subject"],
    ["issuerPattern .*", claims({ issuer: undefined, issuerPattern: ".*" }), "claimMatch.issuerPattern", "must not match every issuer"],
    ["issuerPattern .+", claims({ issuer: undefined, issuerPattern: ".+" }), "claimMatch.issuerPattern", "must not match every issuer"],
    ["audiencePattern .*", claims({ audiencePattern: ".*" }), "claimMatch.audiencePattern", "must not match every audience"],
    ["an empty subjectPattern", claims({ subject: undefined, subjectPattern: "" }), "claimMatch.subjectPattern", "must not be empty"],
    ["a pattern that does not compile", claims({ subject: undefined, subjectPattern: "repo:(acme" }), "claimMatch.subjectPattern", "is not a valid regular expression: Unterminated group"],
    ["a pattern invalid only with the u flag", claims({ subject: undefined, subjectPattern: "repo\\:x" }), "claimMatch.subjectPattern", /^is not a valid regular expression/],
    ["a pattern escaping its anchors", claims({ subject: undefined, subjectPattern: "a)|(evil" }), "claimMatch.subjectPattern", /^is not a valid regular expression/],
    ["a pattern over 512 characters", claims({ subject: undefined, subjectPattern: `repo:${"a".repeat(508)}` }), "claimMatch.subjectPattern", "must be at most 512 characters"],
    ["33 claims", claims({ claims: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, "v"])) }), "claimMatch.claims", "must hold at most 32 entries"],
    ["33 claim patterns", claims({ claimPatterns: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`c${i}`, "v"])) }), "claimMatch.claimPatterns", "must hold at most 32 entries"],
    ["an empty claim name", claims({ claims: { "": "v" } }), "claimMatch.claims", "claim names must not be empty"],
    ["an empty claim pattern name", claims({ claimPatterns: { "": "v" } }), "claimMatch.claimPatterns", "claim names must not be empty"],
    ["a claim value over 512 characters", claims({ claims: { ref: "r".repeat(513) } }), 'claimMatch.claims["ref"]', "must be at most 512 characters"],
    ...["iss", "sub", "aud", "exp", "nbf", "iat"].map(
      (name): [string, RelationshipInput, string, RegExp] => [`the reserved claim ${name}`, claims({ claims: { [name]: "v" } }), `claimMatch.claims["${name}"]`, /has a field of its own/],
    ),
    ["the reserved claim pattern sub", claims({ claimPatterns: { sub: "repo:.*" } }), 'claimMatch.claimPatterns["sub"]', /has a field of its own/],
    ["a claim pattern matching everything", claims({ claimPatterns: { ref: ".*" } }), 'claimMatch.claimPatterns["ref"]', "must not match every value"],
    ["a claim pattern that does not compile", claims({ claimPatterns: { ref: "[" } }), 'claimMatch.claimPatterns["ref"]', /^is not a valid regular expression/],
    ["static keys without issuer", keys({ issuer: "" }), "staticKeys.issuer", "is required"],
    ["static keys with an issuer that is no URL", keys({ issuer: "gitlab" }), "staticKeys.issuer", "must be a URL"],
    ["static keys without subject", keys({ subject: "" }), "staticKeys.subject", "is required"],
    ["static keys without keys", keys({ issuerKeys: "" }), "staticKeys.issuerKeys", "is required"],
    ["keys that are not JSON", keys({ issuerKeys: "{keys" }), "staticKeys.issuerKeys", /^must be a JWKS/],
    ["keys that are no JWKS", keys({ issuerKeys: JSON.stringify([ecPublic]) }), "staticKeys.issuerKeys", /^must be a JWKS/],
    ["an empty JWKS", keys({ issuerKeys: jwks() }), "staticKeys.issuerKeys", "must hold at least one key"],
    ["17 keys", keys({ issuerKeys: jwks(...Array.from({ length: 17 }, () => ecPublic)) }), "staticKeys.issuerKeys", "must hold at most 16 keys"],
    ["a JWKS over 64 KiB", keys({ issuerKeys: JSON.stringify({ keys: [ecPublic], pad: "x".repeat(65_536) }) }), "staticKeys.issuerKeys", "must be at most 65536 bytes"],
    ["a private EC key", keys({ issuerKeys: jwks(ec.privateKey.export({ format: "jwk" })) }), "staticKeys.issuerKeys", 'key 0: must be a public key (it has the private member "d")'],
    ["a private RSA key", keys({ issuerKeys: jwks(ecPublic, rsa.privateKey.export({ format: "jwk" })) }), "staticKeys.issuerKeys", /^key 1: must be a public key/],
    ["a symmetric key", keys({ issuerKeys: jwks({ kty: "oct", k: "c2VjcmV0" }) }), "staticKeys.issuerKeys", "key 0: kty must be one of RSA, EC, OKP"],
    ["a symmetric key claiming to be EC", keys({ issuerKeys: jwks({ ...ecPublic, k: "c2VjcmV0" }) }), "staticKeys.issuerKeys", /^key 0: must be a public key/],
    ["a key without kty", keys({ issuerKeys: jwks({ x: "abc" }) }), "staticKeys.issuerKeys", "key 0: kty must be one of RSA, EC, OKP"],
    ["a key that is not an object", keys({ issuerKeys: jwks("key") }), "staticKeys.issuerKeys", "key 0: must be a JSON object"],
    ["a broken EC key", keys({ issuerKeys: jwks({ kty: "EC", crv: "P-256", x: "abc", y: "def" }) }), "staticKeys.issuerKeys", "key 0: is not a valid EC public key"],
    ["an expiration in the past", keys({ expirationTime: NOW - 1 }), "staticKeys.expirationTime", "must be in the future"],
    ["an expiration now", keys({ expirationTime: NOW }), "staticKeys.expirationTime", "must be in the future"],
    ["an expiration past 365 days", keys({ expirationTime: NOW + 365 * DAY + 1 }), "staticKeys.expirationTime", "must be at most 365 days from now"],
  ])("refuses %s, naming %s", (_, input, field, description, r) => {
    const got = refusal(input, r);
    expect(got).toMatchObject({ field });
    if (typeof got !== "string") expect(got.description).toMatch(description instanceof RegExp ? description : new RegExp(`^${escape(description)}$`));
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
