/**
 * People's login through a real OIDC provider, on every engine: first login registers the person
 * under the uid derived from issuer and subject and grants the provider's default role; which
 * provider a login goes through; invites redeemed at login (once when single-use, never when
 * expired, unknown or for another email).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import { userIdentityUid } from "../../src/domain/identities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { TestBrowser } from "../support/browser.js";
import { engines } from "../support/engines.js";
import {
  browserLogin,
  CLI_REDIRECT,
  DEFAULT_CLIENT,
  finishBrowserLogin,
  login,
  ORG_CLIENT,
  pkce,
  startBrowserLogin,
  startLoginWorld,
  type LoginWorld,
} from "../support/login.js";
import { restClient } from "../support/rest.js";

const VIEWER = builtinRoleUid("viewer");
const EDITOR = builtinRoleUid("editor");

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`people's login [${engine.name}]`, () => {
    let w: LoginWorld;
    let team: string;
    let n = 0;
    /** A person no other test uses. */
    const person = (claims: Record<string, unknown> = {}) => {
      const sub = `person-${++n}`;
      return { sub, claims: { preferred_username: `Person ${n}`, email: `${sub}@example.com`, email_verified: true, ...claims } };
    };
    const bindingsOf = async (uid: string) =>
      (await w.t.server.store.bindings.forIdentity(uid))
        .map((b) => ({ groupUid: b.groupUid, roleUid: b.roleUid }))
        .sort((a, b) => a.groupUid.localeCompare(b.groupUid));
    const invite = async (body: Record<string, unknown>) => {
      const res = await w.admin.post(`/iam/v2beta1/groupInvites/${team}`, { roleUid: EDITOR, ttl: "3600s", ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body as { uid: string; code: string };
    };
    const refusal = (result: URLSearchParams) => ({
      error: result.get("error"),
      description: result.get("error_description"),
      state: result.get("state"),
    });

    beforeAll(async () => {
      w = await startLoginWorld(engine);
      team = (await w.admin.post(`/iam/v2beta1/groups/${w.org.uid}`, { name: "team" })).body.uid;
    });
    afterAll(async () => w?.close());

    it("registers a person at first login under the uid of issuer and subject, and grants the provider's default role", async () => {
      const alice = { sub: "alice", claims: { preferred_username: "Alice.Smith@Corp", email: "alice@example.com", email_verified: true } };
      const uid = userIdentityUid(w.issuer.url, "alice");
      expect(await w.t.server.store.identities.get(uid)).toBeUndefined();
      const answer = await login(w, alice, { org: "acme" });
      expect(Object.keys(answer).sort()).toEqual(["access_token", "expires_in", "expiry", "refresh_token", "token_type"]);
      expect(answer).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
      expect(answer.refresh_token).toMatch(/^arbrt_[A-Za-z0-9_-]{43}$/);
      const claims = decodeJwt(answer.access_token as string);
      expect(claims).toMatchObject({ iss: w.t.url, sub: uid, aud: w.t.url, act: { iss: w.issuer.url, sub: "alice", aud: ORG_CLIENT } });
      expect(new Date((claims.exp as number) * 1000).toISOString()).toBe(answer.expiry);
      const identity = await w.t.server.store.identities.get(uid);
      expect(identity).toMatchObject({
        uid,
        parentUid: null,
        name: "alice.smith-corp",
        relationship: { kind: "user", issuer: w.issuer.url, subject: "alice" },
      });
      expect(await bindingsOf(uid)).toEqual([{ groupUid: w.org.uid, roleUid: VIEWER }]);
      // The token works, with what the binding grants.
      const api = restClient(w.t, answer.access_token as string);
      expect((await api.get(`/iam/v2beta1/groups/${w.org.uid}`)).status).toBe(200);
      expect((await api.post(`/iam/v2beta1/groups/${w.org.uid}`, { name: "nope" })).status).toBe(403);
    });

    it("recognises a returning person: no second identity, no second grant, even after the default role was taken away", async () => {
      const bob = person();
      const uid = userIdentityUid(w.issuer.url, bob.sub);
      await login(w, bob, { org: "acme" });
      const [binding] = await w.t.server.store.bindings.forIdentity(uid);
      await w.t.server.store.bindings.delete(binding?.uid as string);
      const again = decodeJwt((await login(w, bob, { org: "acme" })).access_token as string);
      expect(again.sub).toBe(uid);
      expect(await bindingsOf(uid)).toEqual([]);
      expect((await w.t.server.store.identities.get(uid))?.lastSeenTime).not.toBeNull();
    });

    it("logs in through the default login provider without an organization, granting nothing", async () => {
      const carol = person();
      const { walk } = await browserLogin(w, carol);
      expect(
        walk.visited.some((u) => u.startsWith(`${w.issuer.url}/auth?`) && new URL(u).searchParams.get("client_id") === DEFAULT_CLIENT.id),
      ).toBe(true);
      const answer = await login(w, carol);
      const uid = userIdentityUid(w.issuer.url, carol.sub);
      expect(decodeJwt(answer.access_token as string)).toMatchObject({ sub: uid, act: { aud: DEFAULT_CLIENT.id } });
      expect(await w.t.server.store.identities.get(uid)).toMatchObject({ name: carol.claims.preferred_username.toLowerCase() });
      expect(await bindingsOf(uid)).toEqual([]);
    });

    it("names the organization by uid too, and takes its oldest identity provider at the root", async () => {
      const newer = await w.admin.post(`/iam/v2beta1/identityProviders/${w.org.uid}`, {
        name: "newer",
        defaultRole: EDITOR,
        oidc: { issuer: w.issuer.url, clientId: "unregistered" },
      });
      expect(newer.status).toBe(200);
      const inTeam = await w.admin.post(`/iam/v2beta1/identityProviders/${team}`, {
        name: "team-idp",
        defaultRole: EDITOR,
        oidc: { issuer: w.issuer.url, clientId: "unregistered" },
      });
      expect(inTeam.status).toBe(200);
      const dave = person();
      const { result } = await browserLogin(w, dave, { org: w.org.uid });
      expect(result.get("code")).not.toBeNull();
      expect(await bindingsOf(userIdentityUid(w.issuer.url, dave.sub))).toEqual([{ groupUid: w.org.uid, roleUid: VIEWER }]);
    });

    it("falls back to the default login provider for an organization without one", async () => {
      const { token } = await w.t.organization("bare");
      expect(token).toBeDefined();
      const erin = person();
      const { walk, result } = await browserLogin(w, erin, { org: "bare" });
      expect(result.get("code")).not.toBeNull();
      expect(walk.visited.some((u) => u.includes("/auth?") && new URL(u).searchParams.get("client_id") === DEFAULT_CLIENT.id)).toBe(true);
    });

    it("answers for an unknown organization exactly as for one without a provider: the default login provider", async () => {
      // Telling them apart would tell anyone without a token which organization names exist.
      await w.t.organization("bare-too");
      const first = async (org: string) => {
        const q = new URLSearchParams({ redirect_uri: CLI_REDIRECT, code_challenge: pkce().challenge, code_challenge_method: "S256", org });
        const res = await new TestBrowser().get(`${w.t.url}/oauth/login?${q}`);
        const location = new URL(res.headers.get("location") ?? "");
        return {
          status: res.status,
          to: location.origin + location.pathname,
          clientId: location.searchParams.get("client_id"),
          body: await res.text(),
        };
      };
      const expected = { status: 302, to: `${w.issuer.url}/auth`, clientId: DEFAULT_CLIENT.id, body: "" };
      expect(await first("bare-too")).toEqual(expected);
      expect(await first("no-such-org")).toEqual(expected);
      expect(await first("0".repeat(40))).toEqual(expected);
      const { result } = await browserLogin(w, person(), { org: "no-such-org" });
      expect(result.get("code")).not.toBeNull();
    });

    it("refuses to send a browser to an authorization endpoint off the issuer's origin", async () => {
      // The organization's owner controls the issuer's discovery document; Arbor's domain must
      // not become their redirector to anywhere they like.
      const elsewhere = createServer((req, res) => {
        const url = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
        const doc = {
          issuer: url,
          authorization_endpoint: "http://localhost:9/phish",
          token_endpoint: `${url}/token`,
          jwks_uri: `${url}/jwks`,
        };
        res
          .writeHead(req.url === "/.well-known/openid-configuration" ? 200 : 404, { "content-type": "application/json" })
          .end(JSON.stringify(doc));
      });
      await new Promise<void>((resolve) => elsewhere.listen(0, "127.0.0.1", resolve));
      try {
        const issuer = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
        const { token } = await w.t.organization("redirector");
        const made = await restClient(w.t, token).post(
          `/iam/v2beta1/identityProviders/${(await w.t.server.store.groups.findOrganization("redirector"))?.uid}`,
          {
            name: "phish",
            defaultRole: VIEWER,
            oidc: { issuer, clientId: "c" },
          },
        );
        expect(made.status, JSON.stringify(made.body)).toBe(200);
        const { result, walk } = await browserLogin(w, person(), { org: "redirector", state: "s1" });
        expect(refusal(result)).toEqual({
          error: "access_denied",
          description:
            "Precondition failed: the identity provider cannot be used: its authorization_endpoint is not at the issuer's origin",
          state: "s1",
        });
        expect(walk.visited.some((u) => u.includes("phish"))).toBe(false);
      } finally {
        await new Promise((resolve) => elsewhere.close(resolve));
      }
    });

    it("creates the invited role binding when an invite code is given at login", async () => {
      const { code } = await invite({});
      const frank = person();
      await login(w, frank, { invite: code });
      const uid = userIdentityUid(w.issuer.url, frank.sub);
      // The invite names the organization: its provider is used and grants its default role too.
      expect(await bindingsOf(uid)).toEqual(
        [
          { groupUid: w.org.uid, roleUid: VIEWER },
          { groupUid: team, roleUid: EDITOR },
        ].sort((a, b) => a.groupUid.localeCompare(b.groupUid)),
      );
      // Both grants are in the audit log, made by the person, in the groups they grant at.
      const events = await w.t.server.store.audit.list(
        { uidp: {}, actorUid: uid },
        { order: [{ field: "uid", desc: false }], offset: 0, limit: 10 },
      );
      expect(
        events.map((e) => [e.method, e.resourceType, e.uid.startsWith(`${e.method.endsWith("RedeemInvite") ? team : w.org.uid}/`)]).sort(),
      ).toEqual([
        ["arbor.login/DefaultGrant", "arbor.iam.v2beta1.RoleBinding", true],
        ["arbor.login/RedeemInvite", "arbor.iam.v2beta1.RoleBinding", true],
        ["arbor.login/Register", "arbor.iam.v2beta1.Identity", true],
      ]);
      expect(events.every((e) => e.actor.upstreamIssuer === w.issuer.url && e.actor.upstreamSubject === frank.sub)).toBe(true);
      // A returning person can redeem one as well; a reusable invite works again.
      const grace = person();
      await login(w, grace, { org: "acme" });
      await login(w, grace, { invite: code });
      expect(await bindingsOf(userIdentityUid(w.issuer.url, grace.sub))).toContainEqual({ groupUid: team, roleUid: EDITOR });
    });

    it("redeems a single-use invite once; the second attempt is refused clearly", async () => {
      const { code, uid } = await invite({ singleUse: true });
      const first = person();
      await login(w, first, { invite: code });
      expect((await w.t.server.store.groupInvites.get(uid))?.redeemTime).not.toBeNull();
      const second = person();
      const { result, walk } = await browserLogin(w, second, { invite: code });
      expect(refusal(result)).toMatchObject({
        error: "access_denied",
        description: "Precondition failed: the invite has already been used; ask for a new one",
      });
      expect(walk.visited.some((u) => u.startsWith(w.issuer.url))).toBe(false);
      expect(await w.t.server.store.identities.get(userIdentityUid(w.issuer.url, second.sub))).toBeUndefined();
    });

    it("lets one of two logins racing with one single-use invite win, and registers nothing for the other", async () => {
      const { code } = await invite({ singleUse: true });
      // Both pass the check at the start; the redemption at the callback decides.
      const [a, b] = [person(), person()];
      const pending = [await startBrowserLogin(w, a, { invite: code }), await startBrowserLogin(w, b, { invite: code })];
      const [ra, rb] = (await Promise.all(pending.map((p) => finishBrowserLogin(p)))).map((r) => r.result);
      const outcomes = [ra, rb].map((r) => (r?.get("code") !== null ? "won" : r?.get("error_description")));
      expect(outcomes.sort()).toEqual(["Precondition failed: the invite has already been used; ask for a new one", "won"]);
      const loser = ra?.get("code") === null ? a : b;
      expect(await w.t.server.store.identities.get(userIdentityUid(w.issuer.url, loser.sub))).toBeUndefined();
    });

    it("refuses an expired invite, at the start and when it expires during the login", async () => {
      const expired = await invite({});
      await w.t.server.store.groupInvites.update(expired.uid, { expirationTime: Date.now() - 1 });
      const { result } = await browserLogin(w, person(), { invite: expired.code });
      expect(refusal(result).description).toBe("Precondition failed: the invite has expired; ask for a new one");

      const expiring = await invite({});
      const henry = person();
      const pending = await startBrowserLogin(w, henry, { invite: expiring.code });
      expect(pending.callback).toBeDefined();
      await w.t.server.store.groupInvites.update(expiring.uid, { expirationTime: Date.now() - 1 });
      const during = await finishBrowserLogin(pending);
      expect(refusal(during.result).description).toBe("Precondition failed: the invite has expired; ask for a new one");
      // Nothing of the login happened: the person is not even registered.
      expect(await w.t.server.store.identities.get(userIdentityUid(w.issuer.url, henry.sub))).toBeUndefined();
    });

    it("refuses an unknown invite code", async () => {
      const { result } = await browserLogin(w, person(), { invite: "arbinv_not-a-real-code" });
      expect(refusal(result).description).toBe(
        "Precondition failed: the invite code is not valid (it may have been deleted); ask for a new one",
      );
    });

    it("redeems an email-restricted invite only for that verified email", async () => {
      const { code } = await invite({ email: "ivy@example.com" });
      const other = await browserLogin(w, person({ email: "mallory@example.com" }), { invite: code });
      expect(refusal(other.result).description).toBe("Permission denied: the invite is for another email address");
      const unverified = await browserLogin(w, person({ email: "ivy@example.com", email_verified: false }), { invite: code });
      expect(refusal(unverified.result).description).toMatch(/^Permission denied: the invite needs a verified email address/);
      const ivy = person({ email: "IVY@example.com" });
      await login(w, ivy, { invite: code });
      expect(await bindingsOf(userIdentityUid(w.issuer.url, ivy.sub))).toContainEqual({ groupUid: team, roleUid: EDITOR });
    });

    it("refuses an invite for another organization than the one named, or for one that does not exist", async () => {
      const { code } = await invite({});
      await w.t.organization("elsewhere");
      for (const org of ["elsewhere", "nowhere"]) {
        const { result } = await browserLogin(w, person(), { invite: code, org });
        expect(refusal(result).description).toBe("Invalid argument: invite: the invite is for another organization than the one named");
      }
    });

    it("refuses, as a page at Arbor, any redirect URI but a loopback listener", async () => {
      const { challenge } = pkce();
      for (const redirect of [
        "https://evil.example/callback",
        "http://evil.example:8080/callback",
        "http://localhost.evil.example:8080/callback",
        "http://127.0.0.1/callback",
        "http://user:pw@127.0.0.1:5000/callback",
        "http://10.0.0.1:5000/callback",
        "javascript:alert(1)",
        "",
      ]) {
        const q = new URLSearchParams({ redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256" });
        const res = await new TestBrowser().get(`${w.t.url}/oauth/login?${q}`);
        expect(res.status, redirect).toBe(400);
        expect(res.headers.get("location"), redirect).toBeNull();
        expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(await res.text()).toContain("Invalid argument: redirect_uri:");
      }
      for (const redirect of ["http://127.0.0.1:5000/callback", "http://[::1]:5000/cb", "http://localhost:5000/"]) {
        const q = new URLSearchParams({ redirect_uri: redirect, code_challenge: challenge, code_challenge_method: "S256" });
        expect((await new TestBrowser().get(`${w.t.url}/oauth/login?${q}`)).status, redirect).toBe(302);
      }
    });

    it("refuses a login without an S256 PKCE challenge, back at the CLI", async () => {
      for (const [params, field] of [
        [{}, "code_challenge_method"],
        [{ code_challenge: pkce().challenge, code_challenge_method: "plain" }, "code_challenge_method"],
        [{ code_challenge: "short", code_challenge_method: "S256" }, "code_challenge"],
      ] as const) {
        const q = new URLSearchParams({ redirect_uri: CLI_REDIRECT, ...params });
        const res = await new TestBrowser().get(`${w.t.url}/oauth/login?${q}`);
        expect(res.status).toBe(302);
        const back = new URL(res.headers.get("location") as string);
        expect(back.origin + back.pathname).toBe(CLI_REDIRECT);
        expect(back.searchParams.get("error_description")).toMatch(new RegExp(`^Invalid argument: ${field}: `));
      }
    });
  });
}

for (const engine of engines.slice(0, 1)) {
  describe.skipIf(engine.skipReason !== undefined)(`people's login without a default provider [${engine.name}]`, () => {
    let w: LoginWorld;
    beforeAll(async () => {
      w = await startLoginWorld(engine, { loginIssuer: undefined, loginClientId: undefined, loginClientSecret: undefined });
    });
    afterAll(async () => w?.close());

    it("answers byte for byte the same for an unknown organization and one without a provider, naming neither", async () => {
      const { org: bare } = await w.t.organization("bare");
      const answer = async (org: string) => {
        const q = new URLSearchParams({
          redirect_uri: CLI_REDIRECT,
          code_challenge: pkce().challenge,
          code_challenge_method: "S256",
          state: "s",
          org,
        });
        const res = await new TestBrowser().get(`${w.t.url}/oauth/login?${q}`);
        return { status: res.status, headers: [...res.headers].filter(([k]) => k !== "date"), body: await res.text() };
      };
      const [unknown, withoutProvider, byUid] = [await answer("no-such-org"), await answer("bare"), await answer(bare.uid)];
      expect(withoutProvider).toEqual(unknown);
      expect(byUid).toEqual(unknown);
      expect(unknown.status).toBe(302);
      const back = new URL(new Map(unknown.headers).get("location") ?? "");
      expect(back.origin + back.pathname).toBe(CLI_REDIRECT);
      expect(Object.fromEntries(back.searchParams)).toEqual({
        error: "access_denied",
        error_description: "Precondition failed: login is not available for this organization; ask its administrators",
        state: "s",
      });
      // The organization with a provider goes to it: that much a login must reveal.
      expect(new Map((await answer("acme")).headers).get("location")).toMatch(new RegExp(`^${w.issuer.url}/auth\\?`));
    });
  });
}
