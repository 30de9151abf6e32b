/**
 * The token exchange's refusals by reason code, with a frozen clock and static-key identities (no
 * issuer is fetched): what an anonymous caller is told, as a code, and that the message is that
 * code's sentence. The wire text itself is asserted end to end (test/e2e/token-exchange-refusals).
 */
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWTPayload } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { TokenExchange, type ExchangeRequest } from "../../src/auth/exchange.js";
import type { Tokens } from "../../src/auth/tokens.js";
import { UpstreamVerifier } from "../../src/auth/upstream-verifier.js";
import { UnauthenticatedError } from "../../src/domain/errors.js";
import type { IdentityRecord, Relationship } from "../../src/domain/identities.js";
import { reasonSentence, type UnauthenticatedReason } from "../../src/domain/unauthenticated-reasons.js";

const NOW = 1_800_000_000;
const AUTH_URL = "https://arbor.example";
const ISSUER = "https://ci.example";
const UID = `${"a".repeat(40)}/${"b".repeat(16)}`;

let key: CryptoKey;
let otherKey: CryptoKey;
let keys: string;

function sign(claims: JWTPayload = {}, by: CryptoKey = key): Promise<string> {
  return new SignJWT({ iss: ISSUER, sub: "deploy", aud: AUTH_URL, iat: NOW, exp: NOW + 600, ...claims })
    .setProtectedHeader({ alg: "ES256", kid: "k1" })
    .sign(by);
}

function exchangeFor(relationship: Relationship | undefined): TokenExchange {
  const identity: IdentityRecord | undefined = relationship && {
    uid: UID,
    parentUid: UID.slice(0, 40),
    name: "deploy",
    description: "",
    relationship,
    lastSeenTime: null,
    createTime: 0,
    updateTime: 0,
  };
  const clock = { now: () => NOW * 1000 };
  return new TokenExchange({
    identities: { get: async (uid) => (uid === UID ? identity : undefined), touch: async () => true },
    tokens: {} as Tokens,
    verifier: new UpstreamVerifier({ allowHttpLoopback: false, clock }, (async () => Response.error()) as typeof fetch),
    clock,
    authUrl: () => AUTH_URL,
    audiences: () => [AUTH_URL],
    isLoginIssuer: async () => false,
  });
}

const staticKeys = (over: Partial<Extract<Relationship, { kind: "staticKeys" }>> = {}): Relationship => ({
  kind: "staticKeys",
  issuer: ISSUER,
  subject: "deploy",
  issuerKeys: keys,
  expirationTime: (NOW + 3600) * 1000,
  ...over,
});

async function refusal(exchange: TokenExchange, req: ExchangeRequest): Promise<UnauthenticatedError> {
  const e: unknown = await exchange.exchange(req).then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof UnauthenticatedError)) throw new Error(`expected a refusal, got ${String(e)}`);
  return e;
}

beforeAll(async () => {
  const pair = await generateKeyPair("ES256", { extractable: true });
  key = pair.privateKey;
  otherKey = (await generateKeyPair("ES256")).privateKey;
  keys = JSON.stringify({ keys: [{ ...(await exportJWK(pair.publicKey)), kid: "k1", alg: "ES256", use: "sig" }] });
});

describe("token exchange refusals, by reason", () => {
  const cases: {
    name: string;
    relationship: () => Relationship | undefined;
    req: () => Promise<Partial<ExchangeRequest>>;
    reason: UnauthenticatedReason;
  }[] = [
    { name: "no aud", relationship: () => staticKeys(), req: async () => ({ audience: undefined }), reason: "EXCHANGE_AUDIENCE_MISSING" },
    {
      name: "an aud that is not Arbor's",
      relationship: () => staticKeys(),
      req: async () => ({ audience: "https://else.example" }),
      reason: "EXCHANGE_AUDIENCE",
    },
    {
      name: "a token that is no JWT",
      relationship: () => staticKeys(),
      req: async () => ({ token: "not-a-token" }),
      reason: "UPSTREAM_MALFORMED",
    },
    {
      name: "an expired token",
      relationship: () => staticKeys(),
      req: async () => ({ token: await sign({ exp: NOW - 60 }) }),
      reason: "UPSTREAM_EXPIRED",
    },
    { name: "no such identity", relationship: () => undefined, req: async () => ({}), reason: "EXCHANGE_NOT_TRUSTED" },
    {
      name: "another issuer",
      relationship: () => staticKeys({ issuer: "https://else.example" }),
      req: async () => ({}),
      reason: "EXCHANGE_NOT_TRUSTED",
    },
    {
      name: "expired static keys",
      relationship: () => staticKeys({ expirationTime: (NOW - 1) * 1000 }),
      req: async () => ({}),
      reason: "EXCHANGE_NOT_TRUSTED",
    },
    {
      name: "a signature by another key",
      relationship: () => staticKeys(),
      req: async () => ({ token: await sign({}, otherKey) }),
      reason: "EXCHANGE_NOT_TRUSTED",
    },
    { name: "another subject", relationship: () => staticKeys({ subject: "other" }), req: async () => ({}), reason: "EXCHANGE_SUBJECT" },
    {
      name: "a token for another audience",
      relationship: () => staticKeys(),
      req: async () => ({ token: await sign({ aud: "https://else.example" }) }),
      reason: "UPSTREAM_AUDIENCE",
    },
    {
      name: "no identity, an issuer no one logs in through",
      relationship: () => staticKeys(),
      req: async () => ({ identity: undefined }),
      reason: "EXCHANGE_PERSON_NOT_TRUSTED",
    },
  ];

  for (const c of cases) {
    it(c.name, async () => {
      const req: ExchangeRequest = { token: await sign(), audience: AUTH_URL, identity: UID, ...(await c.req()) };
      const e = await refusal(exchangeFor(c.relationship()), req);
      expect({ reason: e.reason, message: e.message }).toEqual({
        reason: c.reason,
        message: `Unauthenticated: ${reasonSentence(c.reason)}`,
      });
    });
  }

  it("keeps the failed check's own reason as the cause, for the log", async () => {
    const e = await refusal(exchangeFor(staticKeys({ subject: "other" })), { token: await sign(), audience: AUTH_URL, identity: UID });
    expect(e.cause).toBe(`subject: ${reasonSentence("EXCHANGE_SUBJECT")}`);
  });
});
