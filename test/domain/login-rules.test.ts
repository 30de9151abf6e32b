import { describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import {
  checkClientState,
  checkCodeChallenge,
  checkLoopbackRedirectUri,
  inviteRefusal,
  loginAddressKey,
  personName,
  pkceChallenge,
  pkceMatches,
} from "../../src/domain/login-rules.js";
import type { GroupInviteRecord } from "../../src/domain/group-invites.js";

const NOW = 1_800_000_000_000;
// RFC 7636, Appendix B.
const RFC_VERIFIER = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
const RFC_CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";

describe("loopback redirect URIs", () => {
  it.each(["http://127.0.0.1:5000/callback", "http://[::1]:1/", "http://localhost:65535/cb?x=1", "HTTP://127.0.0.1:8/callback"])(
    "accepts %s",
    (uri) => {
      expect(() => checkLoopbackRedirectUri(uri)).not.toThrow();
    },
  );

  it.each([
    ["", "is required"],
    ["https://127.0.0.1:5000/callback", "must be an http:// URL"],
    ["http://example.com:5000/callback", "must name 127.0.0.1, [::1] or localhost"],
    ["http://127.0.0.2:5000/callback", "must name 127.0.0.1, [::1] or localhost"],
    ["http://localhost.example.com:5000/", "must name 127.0.0.1, [::1] or localhost"],
    ["http://127.0.0.1@example.com:5000/", "must name 127.0.0.1, [::1] or localhost"],
    ["http://127.0.0.1/callback", "must name the listener's port"],
    ["http://127.0.0.1:80/callback", "must name the listener's port"],
    ["http://user@127.0.0.1:5000/", "must not contain credentials"],
    ["http://127.0.0.1:5000/#frag", "must not have a fragment"],
    [`http://127.0.0.1:5000/${"a".repeat(600)}`, "must be at most 512 characters"],
    ["not a url", "must be an http:// URL"],
  ])("refuses %j", (uri, why) => {
    expect(() => checkLoopbackRedirectUri(uri)).toThrow(
      expect.objectContaining({ code: Code.INVALID_ARGUMENT, message: expect.stringContaining(why) }),
    );
    expect(() => checkLoopbackRedirectUri(uri)).toThrow(
      expect.objectContaining({ details: { fieldViolations: [expect.objectContaining({ field: "redirect_uri" })] } }),
    );
  });
});

describe("PKCE", () => {
  it("computes the S256 challenge of RFC 7636's example and matches it", () => {
    expect(pkceChallenge(RFC_VERIFIER)).toBe(RFC_CHALLENGE);
    expect(pkceMatches(RFC_VERIFIER, RFC_CHALLENGE)).toBe(true);
  });

  it.each([
    ["another verifier", `${RFC_VERIFIER.slice(0, -1)}Y`, RFC_CHALLENGE],
    ["a verifier too short", "abc", pkceChallenge("abc")],
    ["a verifier with a forbidden character", `${RFC_VERIFIER}+`, pkceChallenge(`${RFC_VERIFIER}+`)],
    ["an empty challenge", RFC_VERIFIER, ""],
  ])("refuses %s", (_name, verifier, challenge) => {
    expect(pkceMatches(verifier, challenge)).toBe(false);
  });

  it.each([
    [RFC_CHALLENGE, "plain", "code_challenge_method"],
    [RFC_CHALLENGE, "", "code_challenge_method"],
    ["", "S256", "code_challenge"],
    [`${RFC_CHALLENGE}=`, "S256", "code_challenge"],
  ])("refuses challenge %j with method %j, naming %s", (challenge, method, field) => {
    expect(() => checkCodeChallenge(challenge, method)).toThrow(
      expect.objectContaining({ details: { fieldViolations: [expect.objectContaining({ field })] } }),
    );
  });

  it("accepts an S256 challenge", () => {
    expect(() => checkCodeChallenge(RFC_CHALLENGE, "S256")).not.toThrow();
  });

  it("bounds the CLI's state", () => {
    expect(() => checkClientState("x".repeat(256))).not.toThrow();
    expect(() => checkClientState("x".repeat(257))).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT }));
    expect(() => checkClientState("a\nb")).toThrow(expect.objectContaining({ code: Code.INVALID_ARGUMENT }));
  });
});

describe("a new person's name", () => {
  it.each([
    [{ preferred_username: "Alice", email: "a@example.com", sub: "1" }, "alice"],
    [{ email: "Bob.Builder+tag@Example.COM", sub: "1" }, "bob.builder-tag-example.com"],
    [{ name: "Zoë Ünal", sub: "1" }, "zoe unal"],
    [{ preferred_username: "@@@", name: "Fallback Name", sub: "1" }, "fallback name"],
    [{ sub: "google-oauth2|12345" }, "google-oauth2-12345"],
    [{ preferred_username: 42, sub: "x" }, "x"],
    [{ sub: "日本" }, "person"],
    [{ preferred_username: "a".repeat(300) }, "a".repeat(256)],
  ])("names %j %j", (claims, name) => {
    expect(personName(claims)).toBe(name);
    expect(name).toMatch(/^[a-z0-9 ._-]{1,256}$/);
  });
});

describe("invite redemption", () => {
  const invite = (more: Partial<GroupInviteRecord> = {}): GroupInviteRecord => ({
    uid: `${"a".repeat(40)}/0123456789abcdef`,
    parentUid: "a".repeat(40),
    roleUid: "b".repeat(40),
    email: "",
    singleUse: false,
    codeHash: "c".repeat(64),
    keyId: "c".repeat(16),
    expirationTime: NOW + 1,
    createTime: NOW - 1000,
    redeemTime: null,
    ...more,
  });
  const refusal = (i: GroupInviteRecord, claims?: Record<string, unknown>) => {
    const e = inviteRefusal(i, NOW, claims);
    return e && { code: e.code, type: e.details.preconditionViolations?.[0]?.type, message: e.message };
  };

  it.each([
    ["a live invite", invite(), undefined],
    ["a reusable invite used before", invite({ redeemTime: NOW - 5 }), undefined],
    [
      "an email invite for its address, verified, in any case",
      invite({ email: "Ivy@example.com" }),
      { email: "ivy@EXAMPLE.com", email_verified: true },
    ],
    ["an email invite before the claims are known", invite({ email: "ivy@example.com" }), undefined],
  ])("redeems %s", (_name, i, claims) => {
    expect(refusal(i, claims)).toBeUndefined();
  });

  it.each([
    ["an expired invite", invite({ expirationTime: NOW }), undefined, { code: Code.FAILED_PRECONDITION, type: "INVITE_EXPIRED" }],
    [
      "a used single-use invite",
      invite({ singleUse: true, redeemTime: NOW - 5 }),
      undefined,
      { code: Code.FAILED_PRECONDITION, type: "INVITE_USED" },
    ],
    [
      "an email invite for another address",
      invite({ email: "ivy@example.com" }),
      { email: "eve@example.com", email_verified: true },
      { code: Code.PERMISSION_DENIED },
    ],
    ["an email invite without an email claim", invite({ email: "ivy@example.com" }), { sub: "x" }, { code: Code.PERMISSION_DENIED }],
    [
      "an email invite with the address unverified",
      invite({ email: "ivy@example.com" }),
      { email: "ivy@example.com", email_verified: "true" },
      { code: Code.PERMISSION_DENIED },
    ],
    [
      "an address spelled with the Kelvin sign for k",
      invite({ email: "kate@example.com" }),
      { email: "\u212Aate@example.com", email_verified: true },
      { code: Code.PERMISSION_DENIED },
    ],
    [
      "an address with a dotless i for i",
      invite({ email: "ivy@example.com" }),
      { email: "\u0131vy@example.com", email_verified: true },
      { code: Code.PERMISSION_DENIED },
    ],
  ])("refuses %s", (_name, i, claims, want) => {
    expect(refusal(i, claims)).toMatchObject(want);
  });
});

describe("the address logins in progress count under", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2::9", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002:ffff::", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    [undefined, "unknown"],
    ["", "unknown"],
  ])("counts %s as %s", (address, key) => {
    expect(loginAddressKey(address)).toBe(key);
  });
});
