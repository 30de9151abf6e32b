/**
 * The upstream verifier against a scripted issuer (a fetch stand-in): the URL policy, bounded and
 * same-origin fetches, the discovery document's issuer, caching and refetching of keys, and the
 * claims checks, each with its exact reason. The clock is frozen.
 */
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { UnauthenticatedError } from "../../src/domain/errors.js";
import type { UnauthenticatedReason } from "../../src/domain/unauthenticated-reasons.js";
import { UpstreamVerifier, type UpstreamVerifierOptions } from "../../src/auth/upstream-verifier.js";

const ISSUER = "https://issuer.example";
const NOW = 1_800_000_000;

interface Key {
  kid: string;
  private: CryptoKey;
  jwk: JWK;
}

/** A scripted issuer: each URL answers what `routes` says; every request is recorded. */
class Scripted {
  readonly requests: string[] = [];
  readonly routes = new Map<string, () => Response | Promise<Response>>();
  keys: JWK[] = [];

  constructor(issuer = ISSUER) {
    this.routes.set(`${issuer}/.well-known/openid-configuration`, () => Response.json({ issuer, jwks_uri: `${issuer}/keys` }));
    this.routes.set(`${issuer}/keys`, () => Response.json({ keys: this.keys }));
  }

  readonly fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    this.requests.push(url);
    expect(init?.redirect).toBe("manual");
    const route = this.routes.get(url);
    return route ? route() : new Response("not found", { status: 404 });
  }) as typeof fetch;
}

let key1: Key;
let key2: Key;

async function newKey(kid: string): Promise<Key> {
  const pair = await generateKeyPair("ES256", { extractable: true });
  return { kid, private: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: "ES256", use: "sig" } };
}

/** A token signed by key; kid null leaves the header without one. */
function sign(key: Key, claims: JWTPayload = {}, kid: string | null = key.kid): Promise<string> {
  return new SignJWT({ iss: ISSUER, sub: "workload", aud: "arbor", iat: NOW, exp: NOW + 600, ...claims })
    .setProtectedHeader(kid === null ? { alg: "ES256" } : { alg: "ES256", kid })
    .sign(key.private);
}

function verifier(issuer: Scripted, options: Partial<UpstreamVerifierOptions> & { at?: () => number } = {}) {
  const { at, ...rest } = options;
  return new UpstreamVerifier({ allowHttpLoopback: false, clock: { now: at ?? (() => NOW * 1000) }, ...rest }, issuer.fetch);
}

/** "verified", or the reason code of the refusal (any other error fails the test). */
function reasonOf(p: Promise<unknown>): Promise<UnauthenticatedReason | "verified"> {
  return p.then(
    () => "verified",
    (e: unknown) => {
      if (!(e instanceof UnauthenticatedError)) throw e;
      return e.reason;
    },
  );
}

beforeAll(async () => {
  key1 = await newKey("k1");
  key2 = await newKey("k2");
});

describe("UpstreamVerifier", () => {
  it("verifies through discovery and JWKS, returning issuer, subject, audience and claims", async () => {
    const issuer = new Scripted();
    issuer.keys = [key1.jwk];
    const result = await verifier(issuer).verify(await sign(key1, { aud: ["arbor", "other"], ref: "main" }), { audience: "arbor" });
    expect(result).toMatchObject({ issuer: ISSUER, subject: "workload", audience: ["arbor", "other"] });
    expect(result.claims.ref).toBe("main");
    expect(issuer.requests).toEqual([`${ISSUER}/.well-known/openid-configuration`, `${ISSUER}/keys`]);
  });

  it("caches the documents: a second token costs no fetch", async () => {
    const issuer = new Scripted();
    issuer.keys = [key1.jwk];
    const v = verifier(issuer);
    await v.verify(await sign(key1));
    await v.verify(await sign(key1, { sub: "other" }));
    expect(issuer.requests).toHaveLength(2);
  });

  it("refetches keys for an unknown kid at most once per 30 seconds, and after 10 minutes", async () => {
    const issuer = new Scripted();
    issuer.keys = [key1.jwk];
    let now = NOW * 1000;
    const v = verifier(issuer, { at: () => now });
    await v.verify(await sign(key1));
    issuer.keys = [key1.jwk, key2.jwk];
    expect(await reasonOf(v.verify(await sign(key2)))).toBe("UPSTREAM_UNKNOWN_KEY");
    now += 30_000;
    expect(await reasonOf(v.verify(await sign(key2)))).toBe("verified");
    expect(await reasonOf(v.verify(await sign(key2, {}, "k3")))).toBe("UPSTREAM_UNKNOWN_KEY");
    expect(issuer.requests.filter((u) => u.endsWith("/keys"))).toHaveLength(2);
    issuer.keys = [key2.jwk];
    now += 10 * 60_000;
    expect(await reasonOf(v.verify(await sign(key1, { exp: NOW + 3600 })))).toBe("UPSTREAM_UNKNOWN_KEY");
    expect(issuer.requests.filter((u) => u.endsWith("/openid-configuration"))).toHaveLength(2);
  });

  it("tries every key when the token has no kid", async () => {
    const issuer = new Scripted();
    issuer.keys = [key1.jwk, key2.jwk];
    expect(await reasonOf(verifier(issuer).verify(await sign(key2, {}, null)))).toBe("verified");
  });

  it("pins the issuer and checks audience and nonce when asked", async () => {
    const issuer = new Scripted();
    issuer.keys = [key1.jwk];
    const v = verifier(issuer);
    const token = await sign(key1, { nonce: "n-1" });
    expect(await reasonOf(v.verify(token, { issuer: "https://other.example" }))).toBe("UPSTREAM_ISSUER_NOT_ACCEPTED");
    expect(await reasonOf(v.verify(token, { audience: "else" }))).toBe("UPSTREAM_AUDIENCE");
    expect(await reasonOf(v.verify(token, { audience: (aud) => aud.includes("arbor") }))).toBe("verified");
    expect(await reasonOf(v.verify(token, { nonce: "n-2" }))).toBe("UPSTREAM_NONCE");
    expect(await reasonOf(v.verify(token, { issuer: ISSUER, audience: "arbor", nonce: "n-1" }))).toBe("verified");
  });

  const policy: { name: string; issuer: string; allowHttpLoopback: boolean; reason: UnauthenticatedReason }[] = [
    { name: "http on a public host", issuer: "http://issuer.example", allowHttpLoopback: true, reason: "UPSTREAM_ISSUER_NOT_HTTPS" },
    {
      name: "http on loopback without the setting",
      issuer: "http://127.0.0.1:9",
      allowHttpLoopback: false,
      reason: "UPSTREAM_ISSUER_NOT_HTTPS",
    },
    { name: "a non-URL issuer", issuer: "issuer.example", allowHttpLoopback: true, reason: "UPSTREAM_ISSUER_NOT_HTTPS" },
    {
      name: "credentials in the issuer",
      issuer: "https://user:pw@issuer.example",
      allowHttpLoopback: true,
      reason: "UPSTREAM_ISSUER_NOT_HTTPS",
    },
  ];
  for (const c of policy) {
    it(`refuses ${c.name} before fetching anything`, async () => {
      const issuer = new Scripted(c.issuer);
      const token = await sign(key1, { iss: c.issuer });
      expect(await reasonOf(verifier(issuer, { allowHttpLoopback: c.allowHttpLoopback }).verify(token))).toBe(c.reason);
      expect(issuer.requests).toEqual([]);
    });
  }

  it("accepts http on loopback (127.0.0.0/8, localhost, ::1) with the setting", async () => {
    for (const host of ["http://127.0.0.2:8080", "http://localhost:8080", "http://[::1]:8080"]) {
      const issuer = new Scripted(host);
      issuer.keys = [key1.jwk];
      expect(await reasonOf(verifier(issuer, { allowHttpLoopback: true }).verify(await sign(key1, { iss: host })))).toBe("verified");
    }
  });

  const documents: { name: string; script: (s: Scripted) => void; reason: UnauthenticatedReason }[] = [
    {
      name: "a discovery document for another issuer",
      script: (s) =>
        s.routes.set(`${ISSUER}/.well-known/openid-configuration`, () =>
          Response.json({ issuer: `${ISSUER}/`, jwks_uri: `${ISSUER}/keys` }),
        ),
      reason: "UPSTREAM_DISCOVERY_ISSUER",
    },
    {
      name: "no discovery document",
      script: (s) => s.routes.delete(`${ISSUER}/.well-known/openid-configuration`),
      reason: "UPSTREAM_ISSUER_UNREACHABLE",
    },
    {
      name: "a discovery document that is not JSON",
      script: (s) => s.routes.set(`${ISSUER}/.well-known/openid-configuration`, () => new Response("<html>")),
      reason: "UPSTREAM_NO_DISCOVERY",
    },
    {
      name: "an http jwks_uri",
      script: (s) =>
        s.routes.set(`${ISSUER}/.well-known/openid-configuration`, () =>
          Response.json({ issuer: ISSUER, jwks_uri: "http://issuer.example/keys" }),
        ),
      reason: "UPSTREAM_NO_DISCOVERY",
    },
    {
      name: "a key set that is no JWKS",
      script: (s) => s.routes.set(`${ISSUER}/keys`, () => Response.json({ keys: "none" })),
      reason: "UPSTREAM_NO_KEYS",
    },
    {
      name: "a document over 256 KiB",
      script: (s) => s.routes.set(`${ISSUER}/keys`, () => new Response(JSON.stringify({ keys: [], pad: "x".repeat(256 * 1024) }))),
      reason: "UPSTREAM_NO_KEYS",
    },
    {
      name: "a redirect to another origin",
      script: (s) => {
        s.routes.set(`${ISSUER}/keys`, () => new Response(null, { status: 302, headers: { location: "https://elsewhere.example/keys" } }));
        s.routes.set("https://elsewhere.example/keys", () => Response.json({ keys: s.keys }));
      },
      reason: "UPSTREAM_ISSUER_UNREACHABLE",
    },
    {
      name: "a fetch that does not finish in time",
      script: (s) => s.routes.set(`${ISSUER}/keys`, () => new Promise<Response>(() => {})),
      reason: "UPSTREAM_ISSUER_UNREACHABLE",
    },
  ];
  for (const c of documents) {
    it(`refuses a token whose issuer serves ${c.name}`, async () => {
      const issuer = new Scripted();
      issuer.keys = [key1.jwk];
      c.script(issuer);
      // The stand-in fetch ignores the abort signal, so the verifier must give up by itself.
      const v = verifier(issuer, { fetchTimeoutMs: 200 });
      expect(await reasonOf(raceAbort(v.verify(await sign(key1)), 2_000))).toBe(c.reason);
    });
  }

  it("follows a same-origin redirect", async () => {
    const issuer = new Scripted();
    issuer.keys = [key1.jwk];
    issuer.routes.set(`${ISSUER}/.well-known/openid-configuration`, () =>
      Response.json({ issuer: ISSUER, jwks_uri: `${ISSUER}/old-keys` }),
    );
    issuer.routes.set(`${ISSUER}/old-keys`, () => new Response(null, { status: 301, headers: { location: "/keys" } }));
    expect(await reasonOf(verifier(issuer).verify(await sign(key1)))).toBe("verified");
  });

  it("verifies with given keys for static-key identities, fetching nothing", async () => {
    const issuer = new Scripted();
    const v = verifier(issuer);
    const token = await sign(key1);
    expect(await reasonOf(v.verifyWithKeys(token, { keys: [key1.jwk] }, { issuer: ISSUER, audience: "arbor" }))).toBe("verified");
    expect(await reasonOf(v.verifyWithKeys(token, { keys: [{ ...key2.jwk, kid: "k1" }] }, { issuer: ISSUER }))).toBe("UPSTREAM_SIGNATURE");
    expect(await reasonOf(v.verifyWithKeys(token, { keys: [key2.jwk] }, { issuer: ISSUER }))).toBe("UPSTREAM_UNKNOWN_KEY");
    expect(await reasonOf(v.verifyWithKeys(token, { keys: [key1.jwk] }, { issuer: "https://else.example" }))).toBe(
      "UPSTREAM_ISSUER_NOT_ACCEPTED",
    );
    expect(issuer.requests).toEqual([]);
  });
});

/** The verifier's own timeout must win; this bound only keeps a broken build from hanging. */
function raceAbort<T>(p: Promise<T>, ms: number): Promise<T> {
  return Promise.race([p, new Promise<T>((_, reject) => setTimeout(() => reject(new Error("the verifier did not give up")), ms))]);
}
