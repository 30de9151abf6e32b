/**
 * The Docker token endpoint and the notifications endpoint on every engine, over HTTP: which
 * actions each caller's role bindings grant (partial grants, inheritance down the groups, other
 * organizations, first pushes), the token's claims and its x5c signature, and every refusal with
 * its status and Docker error code.
 */
import { importX509, jwtVerify, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registryNotificationsSecret } from "../../src/auth/registry-keys.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { restClient, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const HOST = "registry.test:5000";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`the registry token endpoint [${engine.name}]`, () => {
    let t: TestServer;
    let admin: RestClient;
    let orgUid: string;
    const arbor: Record<string, string> = {};

    /** Asks for scopes as who (an Arbor token for the registry), HTTP Basic with user _token. */
    const ask = (token: string, scopes: string[], query: Record<string, string> = { service: HOST }, init: RequestInit = {}) => {
      const q = new URLSearchParams(query);
      for (const s of scopes) q.append("scope", s);
      const headers = new Headers(init.headers);
      if (token !== "") headers.set("authorization", `Basic ${Buffer.from(`_token:${token}`).toString("base64")}`);
      return fetch(`${t.url}/registry/token?${q}`, { ...init, headers });
    };
    const granted = async (who: string, scopes: string[]) => {
      const res = await ask(arbor[who] as string, scopes);
      const body = (await res.json()) as Record<string, any>;
      expect(res.status, JSON.stringify(body)).toBe(200);
      return (JSON.parse(Buffer.from((body.token as string).split(".")[1] as string, "base64url").toString()) as { access: unknown[] })
        .access;
    };
    const refusal = async (res: Response) => ({
      status: res.status,
      body: (await res.json()) as { errors: { code: string; message: string }[] },
    });

    beforeAll(async () => {
      t = await startTestServer(engine, { registryHost: HOST });
      const acme = await t.organization("acme");
      orgUid = acme.org.uid;
      admin = restClient(t, acme.token);
      const team = (await admin.post(`/iam/v2beta1/groups/${orgUid}`, { name: "team" })).body.uid as string;
      await admin.post(`/iam/v2beta1/groups/${team}`, { name: "sub" });
      const globex = await t.organization("globex");
      const member = async (client: RestClient, group: string, name: string, role: string) => {
        const uid = (
          await client.post(`/iam/v2beta1/identities/${group}`, { name, claimMatch: { issuer: "https://ci.example", subject: name } })
        ).body.uid as string;
        expect((await client.post(`/iam/v2beta1/roleBindings/${group}`, { identityUid: uid, roleUid: builtinRoleUid(role) })).status).toBe(
          200,
        );
        arbor[name] = (await t.server.tokens.issue(uid, HOST)).token;
        return uid;
      };
      await member(admin, team, "pusher", "registry.push");
      await member(admin, team, "puller", "registry.pull");
      await member(admin, team, "editor", "editor");
      await member(restClient(t, globex.token), globex.org.uid, "outsider", "owner");
      arbor.apiAudience = (await t.server.tokens.issue(acme.org.uid, t.url)).token;
    });
    afterAll(async () => {
      await t?.close();
    });

    it("issues a five-minute ES256 token with the grants, signed by the certificate in x5c", async () => {
      const res = await ask(arbor.pusher as string, ["repository:acme/team/app:pull,push"]);
      const body = (await res.json()) as Record<string, any>;
      expect(res.status).toBe(200);
      expect(body).toEqual({ token: expect.any(String), access_token: body.token, expires_in: 300, issued_at: expect.any(String) });
      const header = decodeProtectedHeader(body.token as string);
      expect(header).toMatchObject({ alg: "ES256", typ: "JWT", x5c: [expect.any(String)] });
      const cert = `-----BEGIN CERTIFICATE-----\n${(header.x5c as string[])[0]}\n-----END CERTIFICATE-----`;
      const { payload } = await jwtVerify(body.token as string, await importX509(cert, "ES256"), {
        issuer: `${t.url}/registry`,
        audience: HOST,
      });
      expect(payload).toMatchObject({
        sub: expect.stringMatching(/^[0-9a-f]{40}\//),
        access: [{ type: "repository", name: "acme/team/app", actions: ["pull", "push"] }],
      });
      expect([(payload.exp as number) - (payload.iat as number), payload.nbf]).toEqual([300, payload.iat]);
      expect(Date.parse(body.issued_at as string) / 1000).toBe(payload.iat);
    });

    it("grants each action where the role bindings allow it, and nothing elsewhere", async () => {
      const cases: [string, string, string[]][] = [
        ["pusher", "repository:acme/team/app:pull,push", ["pull", "push"]],
        ["pusher", "repository:acme/team/sub/deep:push", ["push"]],
        ["pusher", "repository:acme/app:pull,push", []],
        ["pusher", "repository:acme/team/app:delete", []],
        ["pusher", "repository:acme/team/app:*", []],
        ["puller", "repository:acme/team/app:pull,push", ["pull"]],
        ["editor", "repository:acme/team/app:pull,push,delete", ["pull", "push", "delete"]],
        ["editor", "repository:acme/team/app:*", ["*"]],
        ["pusher", "repository:acme/nope/app:pull", []],
        ["pusher", "repository:globex/app:pull", []],
        ["outsider", "repository:acme/team/app:pull", []],
        ["outsider", "repository:globex/app:pull,push", ["pull", "push"]],
        ["pusher", "repository:acme/team/Bad_Name!:pull", []],
        ["pusher", "repository:acme/team/app:fly", []],
        ["editor", "registry:catalog:*", []],
      ];
      for (const [who, scope, actions] of cases) {
        const [access] = (await granted(who, [scope])) as { actions: string[] }[];
        expect(access?.actions, `${who} ${scope}`).toEqual(actions);
      }
    });

    it("answers several scopes at once, merging repeats", async () => {
      expect(await granted("puller", ["repository:acme/team/a:pull repository:acme/team/b:push", "repository:acme/team/a:push"])).toEqual([
        { type: "repository", name: "acme/team/a", actions: ["pull"] },
        { type: "repository", name: "acme/team/b", actions: [] },
      ]);
      expect(await granted("puller", [])).toEqual([]);
    });

    it("accepts the token as Bearer and through the OAuth2 password grant", async () => {
      const bearer = await fetch(`${t.url}/registry/token?service=${HOST}&scope=repository:acme/team/a:pull`, {
        headers: { authorization: `Bearer ${arbor.puller}` },
      });
      expect(bearer.status).toBe(200);
      const form = new URLSearchParams({
        grant_type: "password",
        username: "_token",
        password: arbor.puller as string,
        service: HOST,
        scope: "repository:acme/team/a:pull",
        client_id: "docker",
      });
      const posted = await fetch(`${t.url}/registry/token`, { method: "POST", body: form });
      expect(posted.status).toBe(200);
      expect(await posted.json()).toMatchObject({ access_token: expect.any(String), expires_in: 300 });
    });

    it("refuses missing and bad credentials with 401, WWW-Authenticate: Basic and Docker's error JSON", async () => {
      const wrongUser = await fetch(`${t.url}/registry/token?service=${HOST}`, {
        headers: { authorization: `Basic ${Buffer.from(`alice:${arbor.puller}`).toString("base64")}` },
      });
      const cases: [Response, RegExp][] = [
        [await ask("", ["repository:acme/team/a:pull"]), /user _token/],
        [await ask("not.a.token", []), /malformed/],
        [await ask(arbor.apiAudience as string, []), /audience/],
        [wrongUser, /user name must be _token/],
        [await fetch(`${t.url}/registry/token?service=${HOST}`, { headers: { authorization: "Digest x" } }), /Basic .* or Bearer/],
      ];
      for (const [res, message] of cases) {
        expect(res.headers.get("www-authenticate")).toBe('Basic realm="arbor"');
        const { status, body } = await refusal(res);
        expect([status, body.errors[0]?.code]).toEqual([401, "UNAUTHORIZED"]);
        expect(body.errors[0]?.message).toMatch(message);
      }
    });

    it("refuses the token of a deleted identity with 401", async () => {
      const uid = (
        await admin.post(`/iam/v2beta1/identities/${orgUid}`, {
          name: "leaver",
          claimMatch: { issuer: "https://ci.example", subject: "leaver" },
        })
      ).body.uid as string;
      const token = (await t.server.tokens.issue(uid, HOST)).token;
      expect((await ask(token, ["repository:acme/team/a:pull"])).status).toBe(200);
      expect((await admin.del(`/iam/v2beta1/identities/${uid}`)).status).toBe(200);
      const r = await refusal(await ask(token, ["repository:acme/team/a:pull"]));
      expect([r.status, r.body.errors[0]?.code]).toEqual([401, "UNAUTHORIZED"]);
      expect(r.body.errors[0]?.message).toMatch(/identity does not exist/);
    });

    it("refuses another service, a malformed scope, an unsupported grant and other methods", async () => {
      const cases: [Response, number, string, RegExp][] = [
        [
          await ask(arbor.puller as string, [], { service: "other.example" }),
          400,
          "INVALID_ARGUMENT",
          /service: "other.example" is not the registry/,
        ],
        [await ask(arbor.puller as string, [], {}), 400, "INVALID_ARGUMENT", /service: .*required/],
        [await ask(arbor.puller as string, ["repository:acme"]), 400, "INVALID_ARGUMENT", /scope: "repository:acme" is not of the form/],
        [
          await fetch(`${t.url}/registry/token`, {
            method: "POST",
            body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "x", service: HOST }),
          }),
          400,
          "INVALID_ARGUMENT",
          /grant_type/,
        ],
      ];
      for (const [res, status, code, message] of cases) {
        const r = await refusal(res);
        expect([r.status, r.body.errors[0]?.code]).toEqual([status, code]);
        expect(r.body.errors[0]?.message).toMatch(message);
      }
      const put = await fetch(`${t.url}/registry/token`, { method: "PUT" });
      expect([put.status, put.headers.get("allow")]).toEqual([405, "GET, POST"]);
    });

    describe("notifications", () => {
      const post = (body: unknown, secret: string | undefined) =>
        fetch(`${t.url}/registry/notifications`, {
          method: "POST",
          headers: {
            "content-type": "application/vnd.docker.distribution.events.v1+json",
            ...(secret !== undefined && { authorization: `Bearer ${secret}` }),
          },
          body: typeof body === "string" ? body : JSON.stringify(body),
        });
      const event = (action: string, target: Record<string, unknown>) => ({
        id: "e1",
        timestamp: "2026-01-02T03:04:05.123Z",
        action,
        target,
      });
      const manifest = "application/vnd.oci.image.manifest.v1+json";
      const digest = `sha256:${"ab".repeat(32)}`;

      it("refuses a delivery without the secret", async () => {
        for (const secret of [undefined, "wrong"]) {
          const res = await post({ events: [] }, secret);
          expect(res.status).toBe(401);
          expect(await res.json()).toMatchObject({ code: 16, message: expect.stringContaining("notifications secret") });
        }
        expect((await fetch(`${t.url}/registry/notifications`)).status).toBe(405);
      });

      it("refuses malformed bodies with the field at fault", async () => {
        const secret = await registryNotificationsSecret(t.server.store.settings);
        const cases: [unknown, string][] = [
          ["{", "body"],
          [{ nothing: true }, "events"],
          [{ events: [event("push", { mediaType: manifest, digest, tag: "v1" })] }, "events[0].target.repository"],
          [
            { events: [{ ...event("push", { mediaType: manifest, repository: "acme/team/x", digest }), timestamp: "yesterday" }] },
            "events[0].timestamp",
          ],
          [{ events: [event("push", { mediaType: manifest, repository: "acme/team/x", digest: "nope" })] }, "events[0].target.digest"],
        ];
        for (const [body, field] of cases) {
          const res = await post(body, secret);
          const json = (await res.json()) as Record<string, any>;
          expect([res.status, json.code], JSON.stringify(json)).toEqual([400, 3]);
          expect(json.message).toContain(`Invalid argument: ${field}:`);
        }
      });

      it("indexes manifest pushes and deletes, and ignores blobs and pulls", async () => {
        const secret = await registryNotificationsSecret(t.server.store.settings);
        const events = [
          event("push", { mediaType: "application/octet-stream", repository: "acme/team/notified", digest }),
          event("pull", { mediaType: manifest, repository: "acme/team/notified", digest, tag: "v1" }),
          event("push", { mediaType: manifest, repository: "acme/team/notified", digest, tag: "v1" }),
          event("push", { mediaType: manifest, repository: "acme/gone/notified", digest, tag: "v1" }),
        ];
        const res = await post({ events }, secret);
        expect([res.status, await res.json()]).toEqual([200, { indexed: 2, skipped: 0 }]);
        const repos = await admin.get(`/registry/v2beta1/repos?uidp.descendants_of=${orgUid}`);
        const repo = (repos.body.repos as Record<string, any>[]).find((r) => r.name === "notified");
        expect(repo).toBeDefined();
        const tags = async () =>
          (await admin.get(`/registry/v2beta1/tags?uidp.children_of=${repo?.uid}`)).body.tags as Record<string, any>[];
        expect(await tags()).toMatchObject([{ name: "v1", digest }]);
        const later = { ...event("delete", { repository: "acme/team/notified", digest }), timestamp: "2026-01-02T03:05:00Z" };
        expect((await post({ events: [later] }, secret)).status).toBe(200);
        expect(await tags()).toEqual([]);
      });
    });
  });
}

describe("the registry token endpoint without a registry configured", () => {
  it("answers FAILED_PRECONDITION naming ARBOR_REGISTRY_HOST", async () => {
    const t = await startTestServer(engines[0] as (typeof engines)[number]);
    try {
      const res = await fetch(`${t.url}/registry/token?service=registry.test:5000`);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        errors: [{ code: "FAILED_PRECONDITION", message: expect.stringContaining("ARBOR_REGISTRY_HOST") }],
      });
    } finally {
      await t.close();
    }
  });
});
