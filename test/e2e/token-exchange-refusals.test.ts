/**
 * Every refusal of the token exchange: 401, `WWW-Authenticate: Bearer`, a google.rpc.Status with
 * code 16 and a reason that names the failed check when it depends on the request and token
 * alone, and names the failed check (never the identity's configuration) when it depends on it, so
 * a missing identity answers exactly like a mismatch. Nothing of any token reaches the log.
 */
import { createPublicKey } from "node:crypto";
import { connect } from "node:http2";
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NOT_TRUSTED } from "../../src/auth/exchange.js";
import { PERSON_NOT_TRUSTED } from "../../src/auth/person-exchange.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import {
  callExchange,
  ELSEWHERE,
  expectRefused,
  loggedReason,
  publicFor,
  startExchangeSetup,
  type ExchangeCall,
  type ExchangeSetup,
} from "../support/exchange.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { restClient, violatedField, type RestClient } from "../support/rest.js";
import { startTestServer } from "../support/server.js";

const MAIN = "repo:acme/app:ref:refs/heads/main";
const engine = engines[0]!;

describe("token exchange refusals", () => {
  let s: ExchangeSetup;
  let admin: RestClient;
  let team: string;
  let ci: string;
  let stranger: TestIssuer;

  const now = () => Math.floor(s.clock.now() / 1000);
  const claims = (extra: Record<string, unknown> = {}) => ({
    iss: s.issuer.url,
    sub: MAIN,
    aud: s.t.url,
    iat: now(),
    exp: now() + 600,
    ...extra,
  });
  const base = (token: string | undefined): ExchangeCall => ({ token, aud: s.t.url, identity: ci });

  beforeAll(async () => {
    s = await startExchangeSetup(engine);
    stranger = await startTestIssuer([s.t.url]);
    const made = await s.t.organization("refusals");
    admin = restClient(s.t, made.token);
    team = (await admin.post(`/iam/v2beta1/groups/${made.org.uid}`, { name: "team" })).body.uid;
    ci = (await admin.post(`/iam/v2beta1/identities/${team}`, { name: "ci", claimMatch: { issuer: s.issuer.url, subject: MAIN } })).body
      .uid;
  });
  afterAll(async () => {
    await stranger?.close();
    await s?.close();
  });

  // Each case: the call, the public reason, and (for identity-dependent ones) the logged check.
  const cases: { name: string; call: () => Promise<ExchangeCall>; reason: string; logged?: string }[] = [
    {
      name: "no Authorization header",
      call: async () => base(undefined),
      reason: "send the upstream OIDC token as Authorization: Bearer <token>",
    },
    { name: "no aud", call: async () => ({ ...base(await s.issuer.mint(MAIN, s.t.url)), aud: undefined }), reason: "aud is required" },
    {
      name: "an aud that is not Arbor's",
      call: async () => ({ ...base(await s.issuer.mint(MAIN, s.t.url)), aud: ELSEWHERE }),
      reason: "the requested audience is not accepted",
    },
    {
      name: "the issuer URL with a trailing slash as aud",
      call: async () => ({ ...base(await s.issuer.mint(MAIN, s.t.url)), aud: `${s.t.url}/` }),
      reason: "the requested audience is not accepted",
    },
    // Without identity the token must name a registered person; this issuer is no login provider.
    {
      name: "no identity, for a token of an issuer no one logs in through",
      call: async () => ({ ...base(await s.issuer.mint(MAIN, s.t.url)), identity: undefined }),
      reason: PERSON_NOT_TRUSTED,
      logged: "issuer: the token's issuer is no login provider of this server",
    },
    { name: "a token that is not a JWT", call: async () => base("not-a-token"), reason: "the token is malformed" },
    {
      name: "an expired token",
      call: async () => base(await s.issuer.sign(claims({ iat: now() - 700, exp: now() - 31 }))),
      reason: "the token has expired",
    },
    {
      name: "a token not yet valid",
      call: async () => base(await s.issuer.sign(claims({ nbf: now() + 120 }))),
      reason: "the token is not yet valid",
    },
    {
      name: "a token issued in the future",
      call: async () => base(await s.issuer.sign(claims({ iat: now() + 120 }))),
      reason: "the token is issued in the future",
    },
    {
      name: "a token without exp",
      call: async () => base(await s.issuer.sign(claims({ exp: undefined }))),
      reason: "the token has no expiry",
    },
    { name: "alg none", call: async () => base(unsigned(claims())), reason: "the token's signing algorithm is not accepted" },
    {
      name: "HS256 keyed with the issuer's public key (algorithm confusion)",
      call: async () => base(await confused(s.issuer, claims())),
      reason: "the token's signing algorithm is not accepted",
    },
    {
      name: "an unknown kid",
      call: async () => base(await s.issuer.sign(claims(), { kid: "made-up" })),
      reason: publicFor("signature: the token's signing key is unknown to its issuer"),
      logged: "signature: the token's signing key is unknown to its issuer",
    },
    {
      name: "a wrong audience",
      call: async () => base(await s.issuer.mint(MAIN, ELSEWHERE)),
      reason: publicFor("audience: the token's audience is not accepted"),
      logged: "audience: the token's audience is not accepted",
    },
    {
      name: "another issuer",
      call: async () => base(await stranger.mint(MAIN, s.t.url)),
      reason: publicFor("issuer: the token's issuer does not match the identity"),
      logged: "issuer: the token's issuer does not match the identity",
    },
    {
      name: "another identity's token",
      call: async () => ({ ...base(await s.issuer.mint("repo:acme/other", s.t.url)) }),
      reason: publicFor("subject: the token's subject does not match the identity"),
      logged: "subject: the token's subject does not match the identity",
    },
    {
      name: "a missing identity",
      call: async () => ({ ...base(await s.issuer.mint(MAIN, s.t.url)), identity: `${team}/0000000000000000` }),
      reason: publicFor("identity: there is no such identity"),
      logged: "identity: there is no such identity",
    },
    {
      name: "an identity that is no uid",
      call: async () => ({ ...base(await s.issuer.mint(MAIN, s.t.url)), identity: "../etc" }),
      reason: publicFor("identity: there is no such identity"),
      logged: "identity: there is no such identity",
    },
    {
      name: "a token signed by another key under the issuer's kid",
      call: async () =>
        base(
          await new SignJWT(claims())
            .setProtectedHeader({ alg: "ES256", kid: s.issuer.kid })
            .sign((await generateKeyPair("ES256")).privateKey),
        ),
      reason: publicFor("signature: the token's signature is not valid"),
      logged: "signature: the token's signature is not valid",
    },
  ];

  for (const c of cases) {
    it(`refuses ${c.name}`, async () => {
      const call = await c.call();
      for (const method of ["GET", "POST"] as const) {
        await expectRefused(await callExchange(s, { ...call, method }), c.reason);
        if (c.logged !== undefined) expect(await loggedReason(s)).toBe(c.logged);
      }
    });
  }

  const answer = async (call: ExchangeCall) => {
    const res = await callExchange(s, call);
    return { status: res.status, headers: [...res.headers].filter(([name]) => name !== "date"), body: await res.text() };
  };

  it("answers a missing identity exactly like an identity that trusts another issuer", async () => {
    const token = await s.issuer.mint(MAIN, s.t.url);
    const missing = await answer({ token, aud: s.t.url, identity: `${team}/0123456789abcdef` });
    const elsewhere = (
      await admin.post(`/iam/v2beta1/identities/${team}`, { name: "elsewhere", claimMatch: { issuer: stranger.url, subject: MAIN } })
    ).body.uid;
    const mismatch = await answer({ token, aud: s.t.url, identity: elsewhere });
    expect(missing).toEqual(mismatch);
    expect(JSON.parse(missing.body).message).toBe(`Unauthenticated: ${NOT_TRUSTED}`);
    expect(missing.status).toBe(401);
  });

  it(
    "answers a token of another issuer exactly like a forged one of the identity's issuer, " + "so which issuer it trusts stays unsaid",
    async () => {
      const otherKey = (await generateKeyPair("ES256")).privateKey;
      const tokens = [
        await stranger.mint(MAIN, s.t.url),
        await new SignJWT(claims()).setProtectedHeader({ alg: "ES256", kid: s.issuer.kid }).sign(otherKey),
        await new SignJWT(claims()).setProtectedHeader({ alg: "ES256", kid: "made-up" }).sign(otherKey),
        await new SignJWT(claims({ iss: "https://issuer.invalid" })).setProtectedHeader({ alg: "ES256", kid: s.issuer.kid }).sign(otherKey),
      ];
      const answers = [];
      for (const token of tokens) answers.push(await answer(base(token)));
      for (const a of answers) expect(a).toEqual(answers[0]);
      expect(JSON.parse(answers[0]!.body).message).toBe(`Unauthenticated: ${NOT_TRUSTED}`);
    },
  );

  it("refuses a token over 16 KiB", async () => {
    const token = await s.issuer.sign(claims({ padding: "x".repeat(16 * 1024) }));
    s.used.add(token);
    // Node's HTTP/1.1 header limit is 16 KiB in all; HTTP/2 carries larger headers to Arbor.
    const { status, headers, body } = await http2Get(
      s.t.url,
      `/sts/exchange?aud=${encodeURIComponent(s.t.url)}&identity=${ci}`,
      `Bearer ${token}`,
    );
    expect({ status, authenticate: headers["www-authenticate"], code: body.code, message: body.message }).toEqual({
      status: 401,
      authenticate: "Bearer",
      code: 16,
      message: "Unauthenticated: the token is too large",
    });
  });

  it("refuses a form body that is not form-encoded, and parameters given twice", async () => {
    const token = await s.issuer.mint(MAIN, s.t.url);
    s.used.add(token);
    const json = await s.t.fetch("/sts/exchange", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ aud: s.t.url, identity: ci }),
    });
    await expectRefused(json, "the request body must be application/x-www-form-urlencoded");
    const twice = await s.t.fetch(`/sts/exchange?aud=${encodeURIComponent(s.t.url)}&aud=x&identity=${ci}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await expectRefused(twice, "aud must be given once");
  });

  it("answers other methods with 405 and Allow", async () => {
    const res = await s.t.fetch("/sts/exchange", { method: "PUT" });
    expect({ status: res.status, allow: res.headers.get("allow"), code: ((await res.json()) as { code: number }).code }).toEqual({
      status: 405,
      allow: "GET, POST",
      code: 12,
    });
  });

  it("never fetches from an issuer the identity does not name", () => {
    expect(stranger.requests.filter((p) => p.startsWith("/.well-known") || p === "/jwks")).toEqual([]);
  });

  it("writes no part of any token used to the log", () => {
    expect(s.used.size).toBeGreaterThan(cases.length);
    const log = JSON.stringify(s.t.logs);
    for (const token of s.used) {
      for (const part of token.split(".").filter((p) => p.length >= 16)) expect(log).not.toContain(part);
    }
  });
});

describe("token exchange without ARBOR_ALLOW_HTTP_LOOPBACK_ISSUERS", () => {
  let s: ExchangeSetup;

  beforeAll(async () => {
    s = await startExchangeSetup(engine, { allowHttpLoopbackIssuers: false });
  });
  afterAll(() => s?.close());

  it("refuses an http issuer, exact or by pattern, when the identity is made", async () => {
    const made = await s.t.organization("strict");
    const admin = restClient(s.t, made.token);
    const refusedExact = await admin.post(`/iam/v2beta1/identities/${made.org.uid}`, {
      name: "exact",
      claimMatch: { issuer: s.issuer.url, subject: MAIN },
    });
    expect({ status: refusedExact.status, field: violatedField(refusedExact.body) }).toEqual({ status: 400, field: "claimMatch.issuer" });
    // Once accepted, since a pattern only had to "not match everything"; a pattern now pins an https origin.
    for (const issuerPattern of ["http://127\\.0\\.0\\.1:[0-9]+", `${s.issuer.url.replace(/\./g, "\\.")}/.*`]) {
      const loose = await admin.post(`/iam/v2beta1/identities/${made.org.uid}`, {
        name: "loose",
        claimMatch: { issuerPattern, subject: MAIN },
      });
      expect({ status: loose.status, code: loose.body.code, field: violatedField(loose.body) }).toEqual({
        status: 400,
        code: 3,
        field: "claimMatch.issuerPattern",
      });
    }
  });
});

describe("token exchange with an issuer on a private address", () => {
  let s: ExchangeSetup;

  beforeAll(async () => {
    s = await startExchangeSetup(engine);
  });
  afterAll(() => s?.close());

  it("refuses a private or link-local literal issuer with code 3 when the identity is made", async () => {
    const made = await s.t.organization("private");
    const admin = restClient(s.t, made.token);
    for (const issuer of ["https://10.0.0.5/dex", "https://169.254.169.254", "https://[fd00::5]"]) {
      const res = await admin.post(`/iam/v2beta1/identities/${made.org.uid}`, { name: "internal", claimMatch: { issuer, subject: MAIN } });
      expect({ status: res.status, code: res.body.code, field: violatedField(res.body) }).toEqual({
        status: 400,
        code: 3,
        field: "claimMatch.issuer",
      });
    }
    const provider = await admin.post(`/iam/v2beta1/identityProviders/${made.org.uid}`, {
      name: "internal",
      defaultRole: builtinRoleUid("viewer"),
      oidc: { issuer: "https://192.168.0.10", clientId: "arbor" },
    });
    expect({ status: provider.status, field: violatedField(provider.body) }).toEqual({ status: 400, field: "oidc.issuer" });
  });

  it("fetches nothing from a host name that resolves to a private address", async () => {
    const resolved: string[] = [];
    const t = await startTestServer(
      engine,
      { allowHttpLoopbackIssuers: true },
      { resolve: async (name) => (resolved.push(name), [{ address: "10.0.0.5", family: 4 }]) },
    );
    try {
      const made = await t.organization("rebind");
      const admin = restClient(t, made.token);
      const issuer = "https://issuer.internal.test";
      const uid = (await admin.post(`/iam/v2beta1/identities/${made.org.uid}`, { name: "internal", claimMatch: { issuer, subject: MAIN } }))
        .body.uid as string;
      const now = Math.floor(Date.now() / 1000);
      const token = await s.issuer.sign({ iss: issuer, sub: MAIN, aud: t.url, iat: now, exp: now + 600 });
      const res = await admin.post(`/iam/v2beta1/identities/${uid}:explainExchange`, { token });
      expect(res.body.checks.at(-1)).toEqual({ check: "signature", passed: false, reason: "the token's issuer cannot be reached" });
      expect(resolved).toEqual(["issuer.internal.test"]);
    } finally {
      await t.close();
    }
  });
});

/** A JWT with `alg: none` and no signature. */
function unsigned(payload: Record<string, unknown>): string {
  const part = (v: object) => Buffer.from(JSON.stringify(v)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(payload)}.`;
}

/** The classic confusion: HS256 with the issuer's public key (as PEM) for the HMAC secret. */
async function confused(issuer: TestIssuer, payload: Record<string, unknown>): Promise<string> {
  const pem = createPublicKey({ key: issuer.publicJwk() as import("node:crypto").JsonWebKey, format: "jwk" }).export({
    type: "spki",
    format: "pem",
  });
  return new SignJWT(payload).setProtectedHeader({ alg: "HS256", kid: issuer.kid, typ: "JWT" }).sign(new TextEncoder().encode(String(pem)));
}

/** A GET over HTTP/2 cleartext. */
function http2Get(
  base: string,
  path: string,
  authorization: string,
): Promise<{ status: number; headers: Record<string, string>; body: Record<string, any> }> {
  return new Promise((resolve, reject) => {
    const client = connect(base);
    client.on("error", reject);
    const req = client.request({ ":method": "GET", ":path": path, authorization });
    let status = 0;
    let headers: Record<string, string> = {};
    const chunks: Buffer[] = [];
    req.on("response", (h) => {
      status = Number(h[":status"]);
      headers = Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]));
    });
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      client.close();
      try {
        resolve({ status, headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, any> });
      } catch (e) {
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
    req.on("error", reject);
    req.end();
  });
}
