/**
 * Headless login (RFC 8628) through a real OIDC provider, on every engine: the device
 * authorization, the verification page (confirmation, CSRF, no framing), the provider's login,
 * the polls with each RFC 8628 error, tokens taken once, expiry on the server's clock, the limits
 * on codes in progress and on wrong codes, and the fail-fast answer when there is no provider.
 */
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userIdentityUid } from "../../src/domain/identities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { TestBrowser } from "../support/browser.js";
import { authorizeDevice, confirmDevice, openPage, pollDevice } from "../support/device-login.js";
import { engines } from "../support/engines.js";
import { movableClock, type MovableClock } from "../support/exchange.js";
import { DEFAULT_CLIENT, oauthPost, ORG_CLIENT, startLoginWorld, type LoginWorld } from "../support/login.js";
import { restClient } from "../support/rest.js";
import { startTestServer, storeAt } from "../support/server.js";

const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

/** The OAuth error of a poll's answer, with its HTTP status. */
const oauthError = (res: { status: number; body: Record<string, any> }) => ({ status: res.status, error: res.body.error });

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`headless login [${engine.name}]`, () => {
    let w: LoginWorld;
    let clock: MovableClock;
    let n = 0;
    /** The codes and tokens handled here, to look for in the log. */
    const secrets: string[] = [];
    const person = () => ({
      sub: `device-${++n}`,
      claims: { preferred_username: `Device ${n}`, email: `device-${n}@example.com`, email_verified: true },
    });
    /** The next poll is in time. */
    const later = () => clock.advance(5_000);

    beforeAll(async () => {
      clock = movableClock();
      w = await startLoginWorld(engine, {}, { clock });
    });
    afterAll(async () => w?.close());

    it("logs a person in: code, page, confirmation, provider, then the same tokens as a browser login, once", async () => {
      const grant = await authorizeDevice(w, { org: "acme" });
      secrets.push(grant.device_code, grant.user_code);
      expect(Object.keys(grant).sort()).toEqual([
        "device_code",
        "expires_in",
        "interval",
        "user_code",
        "verification_uri",
        "verification_uri_complete",
      ]);
      expect(grant).toMatchObject({ expires_in: 600, interval: 5, verification_uri: `${w.t.url}/oauth/device` });
      expect(grant.user_code).toMatch(USER_CODE);
      expect(grant.device_code).toMatch(/^arbdev_[A-Za-z0-9_-]{43}$/);
      expect(grant.verification_uri_complete).toBe(`${w.t.url}/oauth/device?user_code=${grant.user_code}`);
      expect(oauthError(await pollDevice(w, grant.device_code))).toEqual({ status: 400, error: "authorization_pending" });

      const alice = person();
      const done = await confirmDevice(w, grant.verification_uri_complete, alice);
      expect(done.response.status, done.html).toBe(200);
      expect(done.html).toContain("Your device is logged in to Arbor");
      // The person went through the organization's provider, with Arbor's callback.
      expect(
        done.visited.some((u) => u.startsWith(`${w.issuer.url}/auth`) && new URL(u).searchParams.get("client_id") === ORG_CLIENT),
      ).toBe(true);

      later();
      const answer = await pollDevice(w, grant.device_code);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
      expect(Object.keys(answer.body).sort()).toEqual(["access_token", "expires_in", "expiry", "refresh_token", "token_type"]);
      const uid = userIdentityUid(w.issuer.url, alice.sub);
      expect(decodeJwt(answer.body.access_token)).toMatchObject({
        iss: w.t.url,
        sub: uid,
        aud: w.t.url,
        act: { iss: w.issuer.url, sub: alice.sub, aud: ORG_CLIENT },
      });
      expect((await restClient(w.t, answer.body.access_token).get(`/iam/v2beta1/groups/${w.org.uid}`)).status).toBe(200);
      // The refresh token works as a browser login's does.
      const refreshed = await oauthPost(w, "token", { grant_type: "refresh_token", refresh_token: answer.body.refresh_token });
      expect(refreshed.status).toBe(200);

      // Single use: the device code, and the user code, are spent.
      later();
      expect(oauthError(await pollDevice(w, grant.device_code))).toEqual({ status: 401, error: "invalid_grant" });
      const again = await confirmDevice(w, grant.verification_uri_complete, person());
      expect(again.response.status).toBe(401);
      expect(again.html).toContain("this code is not valid");
    });

    it("redeems an invite given with the device authorization, and refuses a used one at once", async () => {
      const team = (await w.admin.post(`/iam/v2beta1/groups/${w.org.uid}`, { name: "device-team" })).body.uid as string;
      const invite = (
        await w.admin.post(`/iam/v2beta1/groupInvites/${team}`, { roleUid: builtinRoleUid("editor"), ttl: "3600s", singleUse: true })
      ).body as { code: string };
      const grant = await authorizeDevice(w, { invite: invite.code });
      const bob = person();
      expect((await confirmDevice(w, grant.verification_uri_complete, bob)).html).toContain("Your device is logged in to Arbor");
      later();
      expect((await pollDevice(w, grant.device_code)).status).toBe(200);
      const bindings = await w.t.server.store.bindings.forIdentity(userIdentityUid(w.issuer.url, bob.sub));
      expect(bindings.map((b) => [b.groupUid, b.roleUid])).toContainEqual([team, builtinRoleUid("editor")]);
      const used = await oauthPost(w, "device_authorization", { invite: invite.code });
      expect([used.status, used.body.message]).toEqual([400, "Precondition failed: the invite has already been used; ask for a new one"]);
    });

    it("shows the code and asks the person to confirm it: opening the link alone logs nobody in", async () => {
      const grant = await authorizeDevice(w);
      const browser = new TestBrowser();
      const toProvider = () => w.issuer.requests.filter((p) => p === "/auth").length;
      const before = toProvider();
      const page = await openPage(browser, grant.verification_uri_complete);
      expect(toProvider()).toBe(before);
      expect(page.response.status).toBe(200);
      expect(page.userCode).toBe(grant.user_code);
      expect(page.html).toContain("Continue only if you started this login yourself and your terminal shows this very code.");
      expect(page.response.headers.get("x-frame-options")).toBe("DENY");
      expect(page.response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(page.response.headers.get("set-cookie")).toMatch(
        /^arbor-device=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=1800; HttpOnly; SameSite=Strict$/,
      );
      later();
      expect(oauthError(await pollDevice(w, grant.device_code))).toEqual({ status: 400, error: "authorization_pending" });
      // Without ?user_code= the form is empty, for the person to type it (any case, with or without the dash).
      const typed = grant.user_code.toLowerCase().replace("-", "");
      const done = await confirmDevice(w, `${w.t.url}/oauth/device`, person(), { userCode: typed });
      expect(done.html).toContain("Your device is logged in to Arbor");
      later();
      expect((await pollDevice(w, grant.device_code)).status).toBe(200);
    });

    it("refuses a form posted from anywhere but its own page, and the login stays pending", async () => {
      const grant = await authorizeDevice(w);
      const post = async (browser: TestBrowser, form: Record<string, string>, headers: Record<string, string> = {}) => {
        const res = await browser.post(`${w.t.url}/oauth/device`, form, headers);
        return { status: res.status, location: res.headers.get("location"), text: await res.text() };
      };
      const browser = new TestBrowser();
      const { csrf } = await openPage(browser, grant.verification_uri_complete);
      const forged = [
        // Another site's form: the browser says so, and its origin is not Arbor's.
        await post(browser, { csrf, user_code: grant.user_code }, { "sec-fetch-site": "cross-site" }),
        await post(browser, { csrf, user_code: grant.user_code }, { "sec-fetch-site": "", origin: "https://evil.example" }),
        // A form without the page's token, or with another's, or from a browser without the cookie.
        await post(browser, { user_code: grant.user_code }),
        await post(browser, { csrf: "x".repeat(43), user_code: grant.user_code }),
        await post(new TestBrowser(), { csrf, user_code: grant.user_code }),
      ];
      for (const answer of forged) {
        expect(answer.status).toBe(403);
        expect(answer.location).toBeNull();
        expect(answer.text).toContain("this form was not sent from Arbor&#39;s verification page");
      }
      later();
      expect(oauthError(await pollDevice(w, grant.device_code))).toEqual({ status: 400, error: "authorization_pending" });
    });

    it("tells a client that polls too soon to slow down, five seconds more each time", async () => {
      const grant = await authorizeDevice(w);
      expect(oauthError(await pollDevice(w, grant.device_code))).toEqual({ status: 400, error: "authorization_pending" });
      const soon = await pollDevice(w, grant.device_code);
      expect(oauthError(soon)).toEqual({ status: 400, error: "slow_down" });
      expect(soon.body).toMatchObject({
        code: 9,
        error_description: "Precondition failed: polled sooner than the interval; wait 10s between polls",
      });
      // 5 s is no longer enough: the interval is 10 s now, then 15 s.
      later();
      expect(oauthError(await pollDevice(w, grant.device_code))).toEqual({ status: 400, error: "slow_down" });
      clock.advance(15_000);
      expect(oauthError(await pollDevice(w, grant.device_code))).toEqual({ status: 400, error: "authorization_pending" });
    });

    it("answers access_denied with the reason when the person's login is refused, then forgets the code", async () => {
      const grant = await authorizeDevice(w);
      // The person declines at the provider: it sends the browser back with an error.
      const declined = (u: string) =>
        u.startsWith(`${w.t.url}/oauth/callback?`)
          ? `${w.t.url}/oauth/callback?error=access_denied&error_description=no&state=${new URL(u).searchParams.get("state")}`
          : u;
      const done = await confirmDevice(w, grant.verification_uri_complete, person(), { rewrite: declined });
      expect(done.response.status).toBe(401);
      later();
      const refused = await pollDevice(w, grant.device_code);
      expect(oauthError(refused)).toEqual({ status: 400, error: "access_denied" });
      expect(refused.body.error_description).toBe(
        "Precondition failed: the login was refused: Unauthenticated: the identity provider did not log you in (access_denied: no)",
      );
      later();
      expect(oauthError(await pollDevice(w, grant.device_code))).toEqual({ status: 401, error: "invalid_grant" });
    });

    it("refuses unknown device codes, missing ones and unknown grant types in OAuth's terms too", async () => {
      expect(oauthError(await pollDevice(w, "arbdev_nope"))).toEqual({ status: 401, error: "invalid_grant" });
      expect(oauthError(await oauthPost(w, "token", { grant_type: "urn:ietf:params:oauth:grant-type:device_code" }))).toEqual({
        status: 400,
        error: "invalid_request",
      });
      expect(oauthError(await oauthPost(w, "token", { grant_type: "password" }))).toEqual({ status: 400, error: "unsupported_grant_type" });
      const wrong = await confirmDevice(w, `${w.t.url}/oauth/device?user_code=BCDF-GHJK`, person());
      expect(wrong.response.status).toBe(401);
      const malformed = await confirmDevice(w, `${w.t.url}/oauth/device?user_code=AEIOU`, person());
      expect(malformed.response.status).toBe(400);
      expect(malformed.html).toContain("user_code: must be the 8 letters shown on your device");
    });

    it("publishes the device authorization endpoint in its discovery document", async () => {
      const doc = (await (await w.t.fetch("/.well-known/openid-configuration")).json()) as Record<string, unknown>;
      expect(doc).toMatchObject({
        device_authorization_endpoint: `${w.t.url}/oauth/device_authorization`,
        token_endpoint: `${w.t.url}/oauth/token`,
        grant_types_supported: expect.arrayContaining(["urn:ietf:params:oauth:grant-type:device_code"]),
      });
    });

    it("finishes on another replica: the page and the callback there, the polls here", async () => {
      const replica = await startTestServer(engine, {
        ...storeAt(w.location),
        baseUrl: w.t.url,
        issuerUrl: w.t.url,
        loginIssuer: w.issuer.url,
        loginClientId: DEFAULT_CLIENT.id,
        loginClientSecret: DEFAULT_CLIENT.secret,
        allowHttpLoopbackIssuers: true,
      });
      try {
        const grant = await authorizeDevice(w, { org: "acme" });
        const onReplica = (u: string) => u.replace(w.t.url, replica.url);
        const done = await confirmDevice(w, onReplica(grant.verification_uri_complete), person(), { rewrite: onReplica });
        expect(done.visited.at(-1)).toMatch(new RegExp(`^${replica.url}/oauth/callback\\?`));
        expect(done.html).toContain("Your device is logged in to Arbor");
        later();
        const answer = await pollDevice(w, grant.device_code);
        expect(answer.status).toBe(200);
        secrets.push(grant.device_code, grant.user_code, answer.body.access_token, answer.body.refresh_token);
      } finally {
        await replica.close();
      }
    });

    it("writes no device code, user code or token to the server's log", () => {
      expect(secrets.length).toBeGreaterThan(3);
      const log = JSON.stringify(w.t.logs);
      expect(log).toContain("/oauth/device");
      for (const secret of secrets) expect(log.includes(secret), secret.slice(0, 12)).toBe(false);
      expect(log).not.toMatch(/arbdev_|arbrt_|eyJ/);
    });

    // Last: the server's clock then runs ahead of the provider's.
    it("expires a code after ten minutes: expired_token to the CLI, and the page refuses it", async () => {
      const grant = await authorizeDevice(w);
      clock.advance(600_000);
      const page = await confirmDevice(w, grant.verification_uri_complete, person());
      expect(page.response.status).toBe(401);
      expect(oauthError(await pollDevice(w, grant.device_code))).toEqual({ status: 400, error: "expired_token" });
      expect(oauthError(await pollDevice(w, grant.device_code))).toEqual({ status: 401, error: "invalid_grant" });
    });
  });

  describe.skipIf(engine.skipReason !== undefined)(`headless login, bounded [${engine.name}]`, () => {
    let w: LoginWorld;
    beforeAll(async () => {
      w = await startLoginWorld(engine, { loginAttemptsPerAddress: 3, authFailuresPerAddress: { count: 3, periodMs: 60_000 } });
    });
    afterAll(async () => w?.close());

    it("bounds the codes in progress from one address", async () => {
      for (let i = 0; i < 3; i++) await authorizeDevice(w);
      const refused = await oauthPost(w, "device_authorization", {});
      expect(refused.status).toBe(429);
      expect(refused.body.message).toBe(
        "Resource exhausted: too many logins are in progress from your network address; finish or abandon them, or try again in 10 minutes",
      );
    });

    it("bounds wrong codes entered from one address: past the budget even the right code waits", async () => {
      const answers: number[] = [];
      for (const code of ["BCDF-GHJK", "BCDF-GHJL", "BCDF-GHJM"])
        answers.push((await confirmDevice(w, `${w.t.url}/oauth/device?user_code=${code}`, { sub: "guesser" })).response.status);
      expect(answers).toEqual([401, 401, 401]);
      const last = await confirmDevice(w, `${w.t.url}/oauth/device?user_code=BCDF-GHJN`, { sub: "guesser" });
      expect(last.response.status).toBe(429);
      expect(last.html).toContain("too many failed authentication attempts from this address");
    });
  });

  describe.skipIf(engine.skipReason !== undefined)(`headless login without a provider [${engine.name}]`, () => {
    let w: LoginWorld;
    beforeAll(async () => {
      w = await startLoginWorld(engine, { loginIssuer: undefined, loginClientId: undefined, loginClientSecret: undefined });
      await w.t.organization("bare");
    });
    afterAll(async () => w?.close());

    it("says at once why no login can begin, for the device flow and the browser flow's preflight alike", async () => {
      for (const endpoint of ["device_authorization", "preflight"] as const) {
        const server = await oauthPost(w, endpoint, {});
        expect([server.status, server.body.message]).toEqual([
          400,
          "Precondition failed: this server has no default login provider (ARBOR_LOGIN_ISSUER); " +
            "name an organization to log in through its identity provider",
        ]);
        expect(server.body.details).toContainEqual(
          expect.objectContaining({ violations: [expect.objectContaining({ type: "NO_LOGIN_PROVIDER" })] }),
        );
        for (const org of ["bare", "no-such-org"]) {
          const named = await oauthPost(w, endpoint, { org });
          expect([named.status, named.body.message]).toEqual([
            400,
            "Precondition failed: login is not available for this organization; ask its administrators",
          ]);
        }
      }
      // The organization with a provider can log in.
      expect((await oauthPost(w, "preflight", { org: "acme" })).body).toEqual({});
      expect((await authorizeDevice(w, { org: "acme" })).user_code).toMatch(USER_CODE);
    });
  });
}
