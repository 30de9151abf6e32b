/**
 * Rate limits as the spec has them for the beta ("not enforced"), on a real server with its
 * default settings and a real upstream issuer: successful calls to the endpoints that take
 * credentials are never limited, however many come from one address; refused credentials are
 * throttled per client address, and refusals of really signed tokens per identity and workload,
 * each refusal a 429 with Retry-After that punishes no other address or identity.
 */
import { randomUUID } from "node:crypto";
import { generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { callExchange, REGISTRY_HOST, startExchangeSetup, type ExchangeSetup } from "../support/exchange.js";
import { fetchFrom, type Answer } from "../support/from-address.js";
import { login, oauthPost, startLoginWorld, type LoginWorld } from "../support/login.js";
import { detailOf, restClient } from "../support/rest.js";

const engine = engines[0]!;
const MAIN = "repo:acme/app:ref:refs/heads/main";
const FORK = "repo:acme/app:ref:refs/heads/fork";
const ADDRESS_MESSAGE = /^Resource exhausted: too many failed authentication attempts from this address; retry in \d+s$/;
const IDENTITY_MESSAGE = /^Resource exhausted: too many failed authentication attempts for this identity; retry in \d+s$/;

describe("rate limits and the throttle of failed authentication, by default", () => {
  let s: ExchangeSetup;
  let ci: string;
  let forkCi: string;
  let main: string;
  let fork: string;
  let registryToken: string;
  const defaults = resolveConfig({ env: {} });

  /** An exchange from address: the token as Bearer, aud and identity in the query. */
  const exchangeFrom = (address: string, token: string, identity: string) =>
    fetchFrom(address, `${s.t.url}/sts/exchange?${new URLSearchParams({ aud: s.t.url, identity })}`, {
      headers: { authorization: `Bearer ${token}` },
    });
  /** A registry token request from address, with password as the Arbor token (HTTP Basic, user _token). */
  const registryFrom = (address: string, password: string) =>
    fetchFrom(address, `${s.t.url}/registry/token?service=${encodeURIComponent(REGISTRY_HOST)}&scope=repository:acme/app:pull`, {
      headers: { authorization: `Basic ${Buffer.from(`_token:${password}`).toString("base64")}` },
    });
  /** A refresh at /oauth/token from address. */
  const refreshFrom = (address: string, refreshToken: string) =>
    fetchFrom(address, `${s.t.url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken }).toString(),
    });
  /** Asserts a throttle refusal: 429, Retry-After, code 8 with RetryInfo, and this message. */
  const expectThrottled = (a: Answer, message: RegExp) => {
    const body = a.json() as Record<string, any>;
    expect({ status: a.status, code: body.code, message: body.message }).toEqual({
      status: 429,
      code: 8,
      message: expect.stringMatching(message),
    });
    expect(Number(a.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(detailOf(body, "google.rpc.RetryInfo")?.retryDelay).toMatch(/^\d+s$/);
  };

  beforeAll(async () => {
    s = await startExchangeSetup(engine);
    const made = await s.t.organization("acme");
    const admin = restClient(s.t, made.token);
    const team = (await admin.post(`/iam/v2beta1/groups/${made.org.uid}`, { name: "team" })).body.uid as string;
    const identity = async (name: string, subject: string) => {
      const res = await admin.post(`/iam/v2beta1/identities/${team}`, { name, claimMatch: { issuer: s.issuer.url, subject } });
      expect(res.status).toBe(200);
      expect(
        (await admin.post(`/iam/v2beta1/roleBindings/${team}`, { identityUid: res.body.uid, roleUid: builtinRoleUid("viewer") })).status,
      ).toBe(200);
      return res.body.uid as string;
    };
    ci = await identity("ci", MAIN);
    forkCi = await identity("fork-ci", FORK);
    main = await s.issuer.mint(MAIN, s.t.url);
    fork = await s.issuer.mint(FORK, s.t.url);
    registryToken = (await s.t.server.tokens.issue(ci, REGISTRY_HOST)).token;
  });
  afterAll(() => s?.close());
  // These tests count exactly: the server's clock stands still but where they move it.
  const frozen = (body: () => Promise<void>) => async () => {
    s.clock.freeze();
    try {
      await body();
    } finally {
      s.clock.thaw();
    }
  };

  it("leaves the general rate limits off and throttles only refused credentials", () => {
    expect([defaults.rateLimitPerAddress, defaults.rateLimitPerIdentity, defaults.exchangeRateLimit]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect([defaults.authFailuresPerAddress, defaults.authFailuresPerIdentity]).toEqual([
      { count: 100, periodMs: 60_000 },
      { count: 30, periodMs: 60_000 },
    ]);
  });

  // The clock stands still through them: to the server's budgets, all 2,000 come at one instant.
  it(
    "never limits successful calls: 1,000 exchanges and 1,000 registry tokens from one address within a minute all succeed",
    frozen(async () => {
      const statuses = new Map<number, number>();
      const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
      // Four at a time, as a small CI fleet behind one NAT address would.
      for (let i = 0; i < 1_000; i += 4) {
        const batch = await Promise.all([0, 1, 2, 3].map(() => callExchange(s, { token: main, aud: s.t.url, identity: ci })));
        for (const res of batch) {
          count(res.status);
          await res.arrayBuffer();
        }
      }
      for (let i = 0; i < 1_000; i += 4) {
        const batch = await Promise.all([0, 1, 2, 3].map(() => registryFrom("127.0.0.1", registryToken)));
        for (const a of batch) count(a.status);
      }
      expect(Object.fromEntries(statuses)).toEqual({ 200: 2_000 });
    }),
    120_000,
  );

  it(
    "refuses an address past 100 refused credentials with 429 before checking anything, " +
      "on every credential endpoint; other addresses go on",
    frozen(async () => {
      const [hostile, other] = ["127.0.0.2", "127.0.0.3"];
      for (let i = 0; i < 100; i++) {
        // Each attempt names another identity: only the address's budget is spent.
        expect((await exchangeFrom(hostile, "not-a-token", randomUUID())).status).toBe(401);
      }
      expectThrottled(await exchangeFrom(hostile, "not-a-token", randomUUID()), ADDRESS_MESSAGE);
      // Refused before it is checked: while the budget refills, a good token from there waits too.
      expectThrottled(await exchangeFrom(hostile, main, ci), ADDRESS_MESSAGE);
      const registry = await registryFrom(hostile, registryToken);
      expect({ status: registry.status, errors: registry.json().errors }).toEqual({
        status: 429,
        errors: [{ code: "TOOMANYREQUESTS", message: expect.stringMatching(ADDRESS_MESSAGE) }],
      });
      expect(Number(registry.headers["retry-after"])).toBeGreaterThanOrEqual(1);
      expectThrottled(await refreshFrom(hostile, "not-a-refresh-token"), ADDRESS_MESSAGE);
      // Another address is not punished: its good token succeeds, its bad one is told why.
      expect((await exchangeFrom(other, main, ci)).status).toBe(200);
      expect((await exchangeFrom(other, "not-a-token", ci)).status).toBe(401);
      expect((await registryFrom(other, registryToken)).status).toBe(200);
      expect((await refreshFrom(other, "not-a-refresh-token")).status).toBe(401);
      // The budget refills at 100 a minute.
      s.clock.advance(60_000);
      expect((await exchangeFrom(hostile, main, ci)).status).toBe(200);
    }),
  );

  it(
    "counts refused registry tokens and refresh tokens against the address too",
    frozen(async () => {
      const registryAddress = "127.0.0.4";
      for (let i = 0; i < 100; i++) expect((await registryFrom(registryAddress, `garbage-${i}`)).status).toBe(401);
      expect((await registryFrom(registryAddress, "garbage")).status).toBe(429);
      const oauthAddress = "127.0.0.5";
      for (let i = 0; i < 100; i++) expect((await refreshFrom(oauthAddress, `garbage-${i}`)).status).toBe(401);
      expectThrottled(await refreshFrom(oauthAddress, "garbage"), ADDRESS_MESSAGE);
      // Malformed requests are no authentication attempts: they spend nothing.
      const malformed = await fetchFrom("127.0.0.6", `${s.t.url}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "grant_type=password",
      });
      expect(malformed.status).toBe(400);
      s.clock.advance(60_000);
    }),
  );

  it(
    "throttles a workload whose really signed token keeps failing, across addresses, and no other workload or identity",
    frozen(async () => {
      // Tokens forged in the name of the main workload (signed with another key) spend only their
      // addresses' budgets: nobody can shut a workload out by sending tokens in its name.
      const { privateKey } = await generateKeyPair("ES256");
      const now = Math.floor(s.clock.now() / 1000);
      for (let i = 0; i < 40; i++) {
        const forged = await new SignJWT({})
          .setProtectedHeader({ alg: "ES256", kid: s.issuer.kid })
          .setIssuer(s.issuer.url)
          .setSubject(MAIN)
          .setAudience(s.t.url)
          .setIssuedAt(now)
          .setExpirationTime(now + 600)
          .sign(privateKey);
        expect((await exchangeFrom(`127.0.1.${i % 2}`, forged, ci)).status).toBe(401);
      }
      expect((await exchangeFrom("127.0.1.9", main, ci)).status).toBe(200);
      // The fork's real token does not match the identity: 30 refusals, from three addresses.
      for (let i = 0; i < 30; i++) expect((await exchangeFrom(`127.0.2.${i % 3}`, fork, ci)).status).toBe(401);
      expectThrottled(await exchangeFrom("127.0.2.9", fork, ci), IDENTITY_MESSAGE);
      // The identity's other workload, and the fork at the identity it matches, are not punished.
      expect((await exchangeFrom("127.0.2.9", main, ci)).status).toBe(200);
      expect((await exchangeFrom("127.0.2.9", fork, forkCi)).status).toBe(200);
      s.clock.advance(60_000);
      expect((await exchangeFrom("127.0.2.9", fork, ci)).status).toBe(401);
    }),
  );
});

describe("people's login tokens, by default", () => {
  let w: LoginWorld;

  beforeAll(async () => {
    w = await startLoginWorld(engine);
  });
  afterAll(() => w?.close());

  it("never limits successful refreshes: 500 from one address in a row all succeed", async () => {
    let refreshToken = (await login(w, { sub: "fleet", claims: { email: "fleet@example.com", email_verified: true } }, { org: "acme" }))
      .refresh_token as string;
    const statuses: number[] = [];
    for (let i = 0; i < 500; i++) {
      const res = await oauthPost(w, "token", { grant_type: "refresh_token", refresh_token: refreshToken });
      statuses.push(res.status);
      refreshToken = res.body.refresh_token as string;
    }
    w.secrets.push(refreshToken);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});
