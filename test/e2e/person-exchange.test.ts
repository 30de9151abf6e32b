/**
 * The exchange without `identity` (DESIGN 1.7), on every engine: a person who logged in through
 * an organization's identity provider or the default login provider exchanges a token of that
 * issuer, issued for {auth_url}, for an Arbor token as themselves. Tokens of any other issuer,
 * for a subject nobody registered, or with a signature that does not verify answer alike, and
 * nothing is fetched from an issuer that is no login provider.
 */
import { decodeJwt, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PERSON_NOT_TRUSTED } from "../../src/auth/person-exchange.js";
import { userIdentityUid } from "../../src/domain/identities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { callExchange, expectRefused, loggedReason, type ExchangeSetup } from "../support/exchange.js";
import { DEFAULT_CLIENT, login, ORG_CLIENT, REGISTRY_HOST, startLoginWorld, type LoginWorld } from "../support/login.js";
import { startLoginIssuer, type LoginIssuer } from "../support/oidc-login-issuer.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { restClient, type RestClient } from "../support/rest.js";

const VIEWER = builtinRoleUid("viewer");

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`the exchange for a person [${engine.name}]`, () => {
    let w: LoginWorld;
    /** The login issuer of organization "beta" alone (the world's is the default and acme's). */
    let beta: LoginIssuer;
    let betaOrg: string;
    let betaAdmin: RestClient;
    let betaProvider: string;
    /** An issuer no one logs in through. */
    let stranger: TestIssuer;
    /** The exchange calls, as test/support/exchange.ts makes them. */
    let s: ExchangeSetup;

    const now = () => Math.floor(Date.now() / 1000);
    const claims = (iss: string, sub: string, extra: Record<string, unknown> = {}) => ({
      iss,
      sub,
      aud: w.t.url,
      iat: now(),
      exp: now() + 600,
      ...extra,
    });
    const exchanged = async (res: Response) => {
      const body = (await res.json()) as { token: string; expiry: string };
      expect(res.status, JSON.stringify(body)).toBe(200);
      return body;
    };
    const wellKnown = (requests: readonly string[]) => requests.filter((p) => p.startsWith("/.well-known") || p.includes("jwks")).length;
    const answer = async (token: string) => {
      const res = await callExchange(s, { token, aud: w.t.url });
      return { status: res.status, headers: [...res.headers].filter(([name]) => name !== "date"), body: await res.text() };
    };

    beforeAll(async () => {
      w = await startLoginWorld(engine);
      beta = await startLoginIssuer();
      await beta.configure([{ client_id: ORG_CLIENT, redirect_uris: [`${w.t.url}/oauth/callback`], token_endpoint_auth_method: "none" }]);
      const made = await w.t.organization("beta");
      betaOrg = made.org.uid;
      betaAdmin = restClient(w.t, made.token);
      const provider = await betaAdmin.post(`/iam/v2beta1/identityProviders/${betaOrg}`, {
        name: "beta",
        defaultRole: VIEWER,
        oidc: { issuer: beta.url, clientId: ORG_CLIENT },
      });
      expect(provider.status, JSON.stringify(provider.body)).toBe(200);
      betaProvider = provider.body.uid as string;
      stranger = await startTestIssuer([w.t.url]);
      s = {
        t: w.t,
        issuer: stranger,
        clock: { now: Date.now, advance: () => undefined, freeze: () => undefined, thaw: () => undefined },
        used: new Set(),
        logMark: 0,
        close: async () => undefined,
      };
      // Alice logs in through the default provider, Bob through beta's.
      await login(w, { sub: "alice", claims: { preferred_username: "alice" } });
      beta.loginAs({ sub: "bob", claims: { preferred_username: "bob" } });
      await login(w, { sub: "bob", claims: { preferred_username: "bob" } }, { org: "beta" });
    });
    afterAll(async () => {
      await stranger?.close();
      await beta?.close();
      await w?.close();
    });

    it("gives a person of an organization's login provider a one-hour token as themselves, naming the upstream token", async () => {
      const bob = userIdentityUid(beta.url, "bob");
      const upstream = await beta.sign(claims(beta.url, "bob"));
      for (const method of ["GET", "POST"] as const) {
        const { token, expiry } = await exchanged(await callExchange(s, { token: upstream, aud: w.t.url, method }));
        const payload = decodeJwt(token);
        expect(payload).toMatchObject({ iss: w.t.url, sub: bob, aud: w.t.url, act: { iss: beta.url, sub: "bob", aud: w.t.url } });
        expect(payload.exp! - payload.iat!).toBe(3600);
        expect(new Date(payload.exp! * 1000).toISOString()).toBe(expiry);
        // The token is Bob's: it reads beta, where his provider's default role made him a viewer.
        const as = restClient(w.t, token);
        expect((await as.get(`/iam/v2beta1/groups/${betaOrg}`)).status).toBe(200);
        expect((await as.get(`/iam/v2beta1/groups/${w.org.uid}`)).status).toBe(403);
      }
      const seen = await w.t.server.store.identities.get(bob);
      expect(Date.now() - (seen?.lastSeenTime ?? 0)).toBeLessThan(10_000);
    });

    it("gives a person of the default login provider a token, for the registry host too", async () => {
      // acme's provider has the default one's issuer: without it, the default provider alone trusts it.
      const acmeProviders = await w.admin.get(`/iam/v2beta1/identityProviders?uidp.children_of=${w.org.uid}`);
      for (const p of acmeProviders.body.identityProviders as { uid: string }[])
        expect((await w.admin.del(`/iam/v2beta1/identityProviders/${p.uid}`)).status).toBe(200);
      const upstream = await w.issuer.sign(claims(w.issuer.url, "alice"));
      for (const aud of [w.t.url, REGISTRY_HOST]) {
        const { token } = await exchanged(await callExchange(s, { token: upstream, aud }));
        expect(decodeJwt(token)).toMatchObject({ sub: userIdentityUid(w.issuer.url, "alice"), aud });
      }
    });

    it("refuses a token not issued for {auth_url}, such as an ID token for a login client, by its audience", async () => {
      for (const aud of [DEFAULT_CLIENT.id, ORG_CLIENT, [ORG_CLIENT, "https://elsewhere.example"]]) {
        await expectRefused(
          await callExchange(s, { token: await beta.sign(claims(beta.url, "bob", { aud })), aud: w.t.url }),
          "the token's audience is not accepted",
        );
        expect(await loggedReason(s)).toBe("audience: the token's audience is not accepted");
      }
    });

    it("refuses what does not name a registered person of a login provider with one answer, whichever part failed", async () => {
      const otherKey = (await generateKeyPair("ES256")).privateKey;
      const cases: [string, string][] = [
        [await stranger.mint("alice", w.t.url), "issuer: the token's issuer is no login provider of this server"],
        [await stranger.sign(claims(w.issuer.url, "alice"), { kid: "login-key" }), "signature: the token's signature is not valid"],
        [
          await new SignJWT(claims(beta.url, "bob")).setProtectedHeader({ alg: "ES256", kid: "login-key" }).sign(otherKey),
          "signature: the token's signature is not valid",
        ],
        [await beta.sign(claims(beta.url, "nobody")), "person: no person is registered with the token's issuer and subject"],
        // Alice is the default provider's person, not beta's.
        [await beta.sign(claims(beta.url, "alice")), "person: no person is registered with the token's issuer and subject"],
      ];
      const answers = [];
      for (const [token, logged] of cases) {
        answers.push(await answer(token));
        expect(await loggedReason(s)).toBe(logged);
      }
      for (const a of answers) expect(a).toEqual(answers[0]);
      expect(answers[0]).toMatchObject({ status: 401 });
      expect(JSON.parse(answers[0]!.body).message).toBe(`Unauthenticated: ${PERSON_NOT_TRUSTED}`);
    });

    it("refuses a token whose checks need no key with their reasons", async () => {
      await expectRefused(await callExchange(s, { token: "not-a-token", aud: w.t.url }), "the token is malformed");
      await expectRefused(
        await callExchange(s, { token: await beta.sign(claims(beta.url, "bob", { iat: now() - 700, exp: now() - 31 })), aud: w.t.url }),
        "the token has expired",
      );
      await expectRefused(
        await callExchange(s, { token: await beta.sign(claims(beta.url, "bob")), aud: "https://elsewhere.example" }),
        "the requested audience is not accepted",
      );
    });

    it("trusts an organization's issuer only while it is that organization's login provider", async () => {
      const token = await beta.sign(claims(beta.url, "bob"));
      expect((await betaAdmin.del(`/iam/v2beta1/identityProviders/${betaProvider}`)).status).toBe(200);
      const before = wellKnown(beta.requests);
      await expectRefused(await callExchange(s, { token, aud: w.t.url }), PERSON_NOT_TRUSTED);
      expect(await loggedReason(s)).toBe("issuer: the token's issuer is no login provider of this server");
      // Not as a provider in a child group, nor as a root group's second provider: logins use neither.
      const team = (await betaAdmin.post(`/iam/v2beta1/groups/${betaOrg}`, { name: "team" })).body.uid as string;
      const oidc = { issuer: beta.url, clientId: ORG_CLIENT };
      expect((await betaAdmin.post(`/iam/v2beta1/identityProviders/${team}`, { name: "in-team", defaultRole: VIEWER, oidc })).status).toBe(
        200,
      );
      const first = await betaAdmin.post(`/iam/v2beta1/identityProviders/${betaOrg}`, {
        name: "first",
        defaultRole: VIEWER,
        oidc: { issuer: stranger.url, clientId: "arbor" },
      });
      expect(first.status).toBe(200);
      expect(
        (await betaAdmin.post(`/iam/v2beta1/identityProviders/${betaOrg}`, { name: "second", defaultRole: VIEWER, oidc })).status,
      ).toBe(200);
      await expectRefused(await callExchange(s, { token, aud: w.t.url }), PERSON_NOT_TRUSTED);
      expect(await loggedReason(s)).toBe("issuer: the token's issuer is no login provider of this server");
      expect(wellKnown(beta.requests)).toBe(before);
      // Once the older one is gone, beta's logins go through beta's issuer again, and so may Bob's token.
      expect((await betaAdmin.del(`/iam/v2beta1/identityProviders/${first.body.uid}`)).status).toBe(200);
      await exchanged(await callExchange(s, { token, aud: w.t.url }));
    });

    it("never fetches from an issuer that is no login provider", () => {
      expect(wellKnown(stranger.requests)).toBe(0);
    });

    it("writes no part of any token used to the log", () => {
      const log = JSON.stringify(w.t.logs);
      for (const token of s.used) {
        for (const part of token.split(".").filter((p) => p.length >= 16)) expect(log).not.toContain(part);
      }
    });
  });
}
