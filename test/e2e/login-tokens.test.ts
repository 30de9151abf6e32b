/**
 * The CLI's half of people's login and its defences, on every engine: Arbor's one-time code and
 * PKCE, refresh rotation and replay detection, logout, audiences, state and nonce checks, a
 * login finished on another replica, errors as google.rpc.Status, and no secret in the logs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeJwt } from "jose";
import { userIdentityUid } from "../../src/domain/identities.js";
import { TestBrowser } from "../support/browser.js";
import { engines } from "../support/engines.js";
import {
  browserLogin,
  CLI_REDIRECT,
  DEFAULT_CLIENT,
  finishBrowserLogin,
  login,
  oauthPost,
  ORG_CLIENT,
  REGISTRY_HOST,
  startBrowserLogin,
  startLoginWorld,
  type LoginWorld,
} from "../support/login.js";
import { detailOf } from "../support/rest.js";
import { startTestServer } from "../support/server.js";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`login tokens [${engine.name}]`, () => {
    let w: LoginWorld;
    let n = 0;
    /** Every secret handed out, to look for in the logs at the end. */
    const secrets: string[] = [];
    const person = () => ({ sub: `tok-${++n}`, claims: { email: `tok-${n}@example.com`, email_verified: true } });
    const keep = <T extends Record<string, any>>(answer: T): T => {
      for (const k of ["access_token", "refresh_token", "code"]) if (typeof answer[k] === "string") secrets.push(answer[k]);
      return answer;
    };
    const loggedIn = async () => keep(await login(w, person(), { org: "acme" }));
    const refresh = async (token: string, more: Record<string, string> = {}) => {
      const res = await oauthPost(w, "token", { grant_type: "refresh_token", refresh_token: token, ...more });
      keep(res.body);
      return res;
    };
    const groupsWith = async (token: string) => (await w.t.fetch(`/iam/v2beta1/groups/${w.org.uid}`, { token })).status;

    beforeAll(async () => {
      w = await startLoginWorld(engine);
    });
    afterAll(async () => w?.close());

    it("redeems Arbor's code once, with the verifier of the challenge and the same redirect URI", async () => {
      const tries = [
        {
          name: "a wrong verifier",
          form: (v: string) => ({ code_verifier: `${v}x` }),
          why: "code_verifier does not match the login's code_challenge",
        },
        {
          name: "another redirect URI",
          form: () => ({ redirect_uri: "http://127.0.0.1:2/callback" }),
          why: "redirect_uri is not the one the login began with",
        },
      ];
      for (const t of tries) {
        const { result, verifier } = await browserLogin(w, person(), { org: "acme" });
        const code = result.get("code") as string;
        secrets.push(code);
        const base = { grant_type: "authorization_code", code, code_verifier: verifier, redirect_uri: CLI_REDIRECT };
        const bad = await oauthPost(w, "token", { ...base, ...t.form(verifier) });
        expect({ name: t.name, status: bad.status, code: bad.body.code, message: bad.body.message }).toEqual({
          name: t.name,
          status: 401,
          code: 16,
          message: `Unauthenticated: ${t.why}`,
        });
        // The failed attempt spent the code: the right verifier is too late now.
        const late = await oauthPost(w, "token", base);
        expect(late.body.message).toBe(
          "Unauthenticated: the authorization code is not valid (expired, used or never issued); log in again",
        );
      }
      const { result, verifier } = await browserLogin(w, person(), { org: "acme" });
      const form = {
        grant_type: "authorization_code",
        code: result.get("code") as string,
        code_verifier: verifier,
        redirect_uri: CLI_REDIRECT,
      };
      expect(keep((await oauthPost(w, "token", form)).body).access_token).toBeDefined();
      expect((await oauthPost(w, "token", form)).status).toBe(401);
    });

    it("rotates refresh tokens: each works once and yields a new one for the same person", async () => {
      const first = await loggedIn();
      const sub = decodeJwt(first.access_token).sub;
      const second = await refresh(first.refresh_token);
      expect(second.status).toBe(200);
      expect(second.body.refresh_token).not.toBe(first.refresh_token);
      expect(decodeJwt(second.body.access_token).sub).toBe(sub);
      expect(decodeJwt(second.body.access_token).act).toEqual(decodeJwt(first.access_token).act);
      const third = await refresh(second.body.refresh_token);
      expect(third.status).toBe(200);
      expect(await groupsWith(third.body.access_token)).toBe(200);
    });

    it("revokes the whole login when a rotated refresh token is replayed", async () => {
      const first = await loggedIn();
      const second = await refresh(first.refresh_token);
      expect(second.status).toBe(200);
      const replay = await refresh(first.refresh_token);
      expect([replay.status, replay.body.code, replay.body.message]).toEqual([
        401,
        16,
        "Unauthenticated: the refresh token was already used, so the login it belongs to is revoked; log in again",
      ]);
      // The thief's copy and the rightful holder's newer token alike.
      const after = await refresh(second.body.refresh_token);
      expect([after.status, after.body.message]).toEqual([
        401,
        "Unauthenticated: the refresh token is not valid (revoked, expired or never issued); log in again",
      ]);
    });

    it("revokes the login on logout; an unknown token is revoked without complaint", async () => {
      const answer = await loggedIn();
      const out = await oauthPost(w, "revoke", { token: answer.refresh_token });
      expect([out.status, out.body]).toEqual([200, {}]);
      expect((await refresh(answer.refresh_token)).status).toBe(401);
      expect(await oauthPost(w, "revoke", { token: "arbrt_unknown" })).toEqual({ status: 200, body: {} });
      const missing = await oauthPost(w, "revoke", {});
      expect([missing.status, missing.body.code, missing.body.message]).toEqual([400, 3, "Invalid argument: token: is required"]);
    });

    it("issues tokens for the API or the registry host, nothing else", async () => {
      const answer = await loggedIn();
      const registry = await refresh(answer.refresh_token, { audience: REGISTRY_HOST });
      expect(decodeJwt(registry.body.access_token).aud).toBe(REGISTRY_HOST);
      expect(await groupsWith(registry.body.access_token)).toBe(401);
      const elsewhere = await refresh(registry.body.refresh_token, { audience: "https://elsewhere.example" });
      expect([elsewhere.status, elsewhere.body.code, detailOf(elsewhere.body, "google.rpc.BadRequest")?.fieldViolations[0].field]).toEqual([
        400,
        3,
        "audience",
      ]);
    });

    it("answers bad token requests with a google.rpc.Status naming what is wrong", async () => {
      const cases: [Record<string, string>, string][] = [
        [{}, "grant_type"],
        [{ grant_type: "password" }, "grant_type"],
        [{ grant_type: "authorization_code" }, "code"],
        [{ grant_type: "authorization_code", code: "x" }, "code_verifier"],
        [{ grant_type: "refresh_token" }, "refresh_token"],
      ];
      for (const [form, field] of cases) {
        const res = await oauthPost(w, "token", form);
        expect(res.status).toBe(400);
        expect(detailOf(res.body, "google.rpc.ErrorInfo")).toMatchObject({ reason: "INVALID_ARGUMENT", domain: "iam.localhost" });
        expect(detailOf(res.body, "google.rpc.BadRequest")?.fieldViolations[0].field).toBe(field);
      }
      const json = await w.t.fetch("/oauth/token", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ grant_type: "refresh_token", refresh_token: "arbrt_x" }),
      });
      expect(json.status).toBe(401);
      const wrongMethod = await w.t.fetch("/oauth/token");
      expect([wrongMethod.status, wrongMethod.headers.get("allow")]).toEqual([405, "POST"]);
    });

    it("refuses a callback whose state it did not issue, and a callback replayed", async () => {
      const forged = await new TestBrowser().get(`${w.t.url}/oauth/callback?code=abc&state=made-up`);
      expect(forged.status).toBe(401);
      expect(forged.headers.get("location")).toBeNull();
      expect(await forged.text()).toContain("this login is unknown, has expired or has finished already");
      const pending = await startBrowserLogin(w, person(), { org: "acme" });
      const done = await finishBrowserLogin(pending);
      expect(done.result.get("code")).not.toBeNull();
      secrets.push(done.result.get("code") as string);
      const replayed = await new TestBrowser().get(pending.callback as string);
      expect(replayed.status).toBe(401);
    });

    it("refuses an ID token whose nonce is not the login's", async () => {
      const rewrite = (u: string) => (u.startsWith(`${w.issuer.url}/auth?`) ? u.replace(/([?&]nonce=)[^&]+/, "$1tampered") : u);
      const { result } = await browserLogin(w, person(), { org: "acme", rewrite });
      expect(result.get("error_description")).toBe("Unauthenticated: the token's nonce does not match");
    });

    it("refuses a login whose upstream PKCE challenge was tampered with: the provider will not redeem the code", async () => {
      const rewrite = (u: string) =>
        u.startsWith(`${w.issuer.url}/auth?`) ? u.replace(/([?&]code_challenge=)[^&]+/, `$1${"A".repeat(43)}`) : u;
      const tampered = person();
      const { result } = await browserLogin(w, tampered, { org: "acme", rewrite });
      expect(result.get("error_description")).toBe("Unauthenticated: the identity provider refused the login (invalid_grant)");
      expect(await w.t.server.store.identities.get(userIdentityUid(w.issuer.url, tampered.sub))).toBeUndefined();
    });

    it("passes on the provider's refusal to the CLI", async () => {
      const pending = await startBrowserLogin(w, person(), { org: "acme" });
      const state = new URL(pending.callback as string).searchParams.get("state") as string;
      const res = await new TestBrowser().get(
        `${w.t.url}/oauth/callback?${new URLSearchParams({ state, error: "access_denied", error_description: "the person said no" })}`,
      );
      const back = new URL(res.headers.get("location") as string);
      expect(back.searchParams.get("error_description")).toBe(
        "Unauthenticated: the identity provider did not log you in (access_denied: the person said no)",
      );
    });

    it("finishes on another replica a login one replica began", async () => {
      const replica = await startTestServer(engine, {
        dataDir: w.location.dataDir,
        databaseUrl: w.location.databaseUrl,
        databaseSchema: w.location.schema,
        baseUrl: w.t.url,
        issuerUrl: w.t.url,
        loginIssuer: w.issuer.url,
        loginClientId: DEFAULT_CLIENT.id,
        loginClientSecret: DEFAULT_CLIENT.secret,
        allowHttpLoopbackIssuers: true,
      });
      try {
        const onReplica = (u: string) => u.replace(w.t.url, replica.url);
        const pending = await startBrowserLogin(w, person(), { org: "acme" });
        const done = await finishBrowserLogin(pending, onReplica);
        const code = done.result.get("code") as string;
        const res = await fetch(`${replica.url}/oauth/token`, {
          method: "POST",
          body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: done.verifier, redirect_uri: CLI_REDIRECT }),
        });
        const answer = keep((await res.json()) as Record<string, any>);
        expect(res.status).toBe(200);
        expect(decodeJwt(answer.access_token).act).toMatchObject({ aud: ORG_CLIENT });
        // Signed by a replica, good at every other.
        expect(await groupsWith(answer.access_token)).toBe(200);
      } finally {
        await replica.close();
      }
    });

    it("writes no token, code or refresh token to the server's log", () => {
      const all = [...secrets, ...w.secrets];
      expect(secrets.length).toBeGreaterThan(10);
      expect(w.secrets.length).toBeGreaterThan(30);
      const log = JSON.stringify(w.t.logs);
      expect(log).toContain("/oauth/token");
      for (const secret of all) expect(log.includes(secret), secret.slice(0, 12)).toBe(false);
      expect(log).not.toMatch(/arbrt_|arbcode_|eyJ/);
    });
  });
}
