/**
 * Identity providers over REST, on every engine: CRUD, lists, updates with and without a mask,
 * every error with its code and field, and the client secret, which no response ever carries.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { restClient, violatedField, type JsonResponse, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const VIEWER = builtinRoleUid("viewer");
const BASE = "/iam/v2beta1/identityProviders";

/** Every secret this file ever sends: none may come back in any response. */
const secrets = new Set<string>();

/** A client that records every response body, to be scanned for secrets. */
function recording(client: RestClient, seen: JsonResponse[]): RestClient {
  const keep = async (p: Promise<JsonResponse>) => {
    const res = await p;
    seen.push(res);
    return res;
  };
  return {
    get: (path) => keep(client.get(path)),
    post: (path, body) => keep(client.post(path, body)),
    patch: (path, body) => keep(client.patch(path, body)),
    del: (path) => keep(client.del(path)),
  };
}

function secret(name: string): string {
  const s = `s3cret-${name}-${Math.random().toString(36).slice(2)}`;
  secrets.add(s);
  return s;
}

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`identity providers over REST [${engine.name}]`, () => {
    let t: TestServer;
    let api: RestClient;
    const responses: JsonResponse[] = [];
    let org: string;
    let team: string;
    let sub: string;
    let other: string;
    let orgRole: string;
    let otherRole: string;
    let n = 0;

    const oidc = (name: string, more: Record<string, unknown> = {}) => ({
      issuer: `https://${name}.login.example.com/`,
      clientId: `${name}-client`,
      clientSecret: secret(name),
      additionalScopes: ["groups", "email"],
      groupsClaim: "groups",
      ...more,
    });
    const body = (name: string, more: Record<string, unknown> = {}) => ({
      name,
      description: `the ${name} provider`,
      defaultRole: VIEWER,
      oidc: oidc(name),
      ...more,
    });
    const storedSecret = async (uid: string) => (await t.server.store.identityProviders.get(uid))?.oidc.clientSecret;

    beforeAll(async () => {
      t = await startTestServer(engine);
      const made = await t.organization("idp-org");
      org = made.org.uid;
      api = recording(restClient(t, made.token), responses);
      team = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "team" })).body.uid;
      sub = (await api.post(`/iam/v2beta1/groups/${team}`, { name: "sub" })).body.uid;
      other = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "other" })).body.uid;
      orgRole = (await api.post(`/iam/v2beta1/roles/${org}`, { name: "org-reader", capabilities: ["CAP_IAM_GROUPS_LIST"] })).body.uid;
      otherRole = (await api.post(`/iam/v2beta1/roles/${other}`, { name: "other-reader", capabilities: ["CAP_IAM_GROUPS_LIST"] })).body.uid;
      expect(orgRole).toMatch(/\//);
    });
    afterAll(() => t?.close());

    let created: Record<string, any>;

    it("creates a provider in a group, showing everything but the secret", async () => {
      const sent = body("okta");
      const { status, body: p } = await api.post(`${BASE}/${team}`, sent);
      expect(status, JSON.stringify(p)).toBe(200);
      expect(p.uid).toMatch(new RegExp(`^${team}/[0-9a-f]{16}$`));
      expect(p).toMatchObject({ name: "okta", description: "the okta provider", defaultRole: VIEWER });
      expect(p.oidc).toEqual({
        issuer: "https://okta.login.example.com/",
        clientId: "okta-client",
        additionalScopes: ["groups", "email"],
        groupsClaim: "groups",
      });
      expect(p.createTime).toMatch(TIME);
      expect(p.updateTime).toBe(p.createTime);
      expect(await storedSecret(p.uid)).toBe(sent.oidc.clientSecret);
      created = p;
    });

    it("gets it by uid, exactly as created", async () => {
      expect(await api.get(`${BASE}/${created.uid}`)).toEqual({ status: 200, body: created });
    });

    it("accepts a custom role of the group's ancestors as the default role, and built-in ones", async () => {
      const res = await api.post(`${BASE}/${sub}`, body("keycloak", { defaultRole: orgRole }));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.defaultRole).toBe(orgRole);
      const elsewhere = await api.post(`${BASE}/${team}`, body("elsewhere", { defaultRole: otherRole }));
      expect({ status: elsewhere.status, field: violatedField(elsewhere.body) }).toEqual({ status: 400, field: "defaultRole" });
      expect(elsewhere.body.message).toBe(
        `Invalid argument: defaultRole: role ${otherRole} is defined in group ${other}; ` +
          `use a built-in role or one defined in group ${team} or above it`,
      );
    });

    it("lists with filters, orders, pages and skip", async () => {
      for (const name of ["delta", "alpha", "charlie", "bravo"]) expect((await api.post(`${BASE}/${other}`, body(name))).status).toBe(200);
      const names = async (q: string) => {
        const res = await api.get(`${BASE}?${q}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body;
      };
      const all = await names(`uidp.descendants_of=${org}`);
      expect(all.totalCount).toBe("6");
      expect(all.identityProviders.map((p: { name: string }) => p.name)).toEqual([
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "keycloak",
        "okta",
      ]);
      expect(all.skipped).toBe(0);
      expect(
        (await names(`uidp.children_of=${other}&order_by=name%20desc`)).identityProviders.map((p: { name: string }) => p.name),
      ).toEqual(["delta", "charlie", "bravo", "alpha"]);
      expect((await names(`uidp.children_of=${other}&order_by=created_at`)).identityProviders.map((p: { name: string }) => p.name)).toEqual(
        ["delta", "alpha", "charlie", "bravo"],
      );
      const byName = await names(`name=okta`);
      expect(byName.identityProviders.map((p: { uid: string }) => p.uid)).toEqual([created.uid]);
      expect((await names(`uidp.descendants_of=${team}`)).totalCount).toBe("2");
      const seen: string[] = [];
      let token = "";
      do {
        const page = await names(`uidp.descendants_of=${org}&page_size=4${token ? `&page_token=${encodeURIComponent(token)}` : ""}`);
        seen.push(...page.identityProviders.map((p: { name: string }) => p.name));
        token = page.nextPageToken ?? "";
      } while (token !== "");
      expect(seen).toEqual(["alpha", "bravo", "charlie", "delta", "keycloak", "okta"]);
      const skipped = await names(`uidp.descendants_of=${org}&page_size=2&skip=4`);
      expect(skipped).toMatchObject({ skipped: 4, totalCount: "6" });
      expect(skipped.identityProviders.map((p: { name: string }) => p.name)).toEqual(["keycloak", "okta"]);
      expect(violatedField((await api.get(`${BASE}?order_by=issuer`)).body)).toBe("order_by");
    });

    it("patches only the fields sent without a mask, keeping the secret", async () => {
      const before = await storedSecret(created.uid);
      const res = await api.patch(`${BASE}/${created.uid}`, { description: "changed" });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({
        name: "okta",
        description: "changed",
        oidc: { issuer: created.oidc.issuer, groupsClaim: "groups" },
      });
      expect(res.body.updateTime >= res.body.createTime).toBe(true);
      expect(await storedSecret(created.uid)).toBe(before);
    });

    it("takes back what GET gave (with a change) without wiping the secret", async () => {
      const before = await storedSecret(created.uid);
      const { body: current } = await api.get(`${BASE}/${created.uid}`);
      const res = await api.patch(`${BASE}/${created.uid}`, { ...current, oidc: { ...current.oidc, groupsClaim: "roles" } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.oidc.groupsClaim).toBe("roles");
      expect(await storedSecret(created.uid)).toBe(before);
    });

    it("changes one OIDC field by a nested body key, leaving the others", async () => {
      const res = await api.patch(`${BASE}/${created.uid}`, { oidc: { clientId: "okta-client-2" } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.oidc).toMatchObject({ issuer: created.oidc.issuer, clientId: "okta-client-2", groupsClaim: "roles" });
    });

    it("requires the client secret again when the issuer changes, in every form of update", async () => {
      const before = await storedSecret(created.uid);
      const moved = "https://attacker.example.net/";
      for (const [query, sent] of [
        ["", { oidc: { issuer: moved } }],
        ["?updateMask=oidc.issuer", { oidc: { issuer: moved, clientSecret: secret("ignored-by-mask") } }],
        ["?updateMask=oidc", { oidc: { issuer: moved, clientId: "okta-client-2" } }],
        ["?updateMask=*", body("okta", { oidc: { issuer: moved, clientId: "okta-client-2" } })],
      ] as const) {
        const res = await api.patch(`${BASE}/${created.uid}${query}`, sent);
        expect({ status: res.status, code: res.body.code, field: violatedField(res.body), message: res.body.message }, query).toEqual({
          status: 400,
          code: 3,
          field: "oidc.clientSecret",
          message: "Invalid argument: oidc.clientSecret: the client secret must be sent again when the issuer changes",
        });
      }
      // Nothing changed: the secret still belongs to the issuer it was given for.
      const stored = await t.server.store.identityProviders.get(created.uid);
      expect({ issuer: stored?.oidc.issuer, secret: stored?.oidc.clientSecret }).toEqual({ issuer: created.oidc.issuer, secret: before });
      // With a new secret (or with the secret cleared) the issuer may change.
      const next = secret("moved");
      const ok = await api.patch(`${BASE}/${created.uid}`, { oidc: { issuer: "https://okta.example.org", clientSecret: next } });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.oidc).toMatchObject({ issuer: "https://okta.example.org", clientId: "okta-client-2", groupsClaim: "roles" });
      expect(await storedSecret(created.uid)).toBe(next);
      // A public client has no secret to lose: its issuer changes freely.
      const pub = await api.post(`${BASE}/${team}`, body("public", { oidc: oidc("public", { clientSecret: "" }) }));
      expect(pub.status, JSON.stringify(pub.body)).toBe(200);
      expect((await api.patch(`${BASE}/${pub.body.uid}`, { oidc: { issuer: "https://elsewhere.example.org" } })).status).toBe(200);
      expect((await api.del(`${BASE}/${pub.body.uid}`)).status).toBe(200);
    });

    it("with updateMask=description ignores the other fields sent", async () => {
      const res = await api.patch(`${BASE}/${created.uid}?updateMask=description`, {
        name: "ignored",
        description: "masked",
        oidc: { clientSecret: secret("ignored") },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ name: "okta", description: "masked" });
      expect(await storedSecret(created.uid)).not.toMatch(/ignored/);
    });

    it("sets the secret when the mask names oidc.client_secret, and clears it when empty", async () => {
      const next = secret("rotated");
      const set = await api.patch(`${BASE}/${created.uid}?updateMask=oidc.clientSecret`, { oidc: { clientSecret: next } });
      expect(set.status, JSON.stringify(set.body)).toBe(200);
      expect(await storedSecret(created.uid)).toBe(next);
      const cleared = await api.patch(`${BASE}/${created.uid}?updateMask=oidc.client_secret`, { oidc: { clientSecret: "" } });
      expect(cleared.status).toBe(200);
      expect(await storedSecret(created.uid)).toBe("");
      const again = secret("again");
      expect((await api.patch(`${BASE}/${created.uid}`, { oidc: { clientSecret: again } })).status).toBe(200);
      expect(await storedSecret(created.uid)).toBe(again);
    });

    it("replaces oidc as a whole with updateMask=oidc, keeping the secret when none is sent", async () => {
      const before = await storedSecret(created.uid);
      const res = await api.patch(`${BASE}/${created.uid}?updateMask=oidc`, {
        oidc: { issuer: "https://okta.example.org", clientId: "whole" },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.oidc).toEqual({ issuer: "https://okta.example.org", clientId: "whole", additionalScopes: [], groupsClaim: "" });
      expect(await storedSecret(created.uid)).toBe(before);
      const star = await api.patch(
        `${BASE}/${created.uid}?updateMask=*`,
        body("okta", { oidc: { issuer: "https://okta.example.org", clientId: "star" } }),
      );
      expect(star.status, JSON.stringify(star.body)).toBe(200);
      expect(await storedSecret(created.uid)).toBe(before);
    });

    it("changes the default role under the same rules as on create", async () => {
      const ok = await api.patch(`${BASE}/${created.uid}`, { defaultRole: orgRole });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.defaultRole).toBe(orgRole);
      const elsewhere = await api.patch(`${BASE}/${created.uid}`, { defaultRole: otherRole });
      expect({ status: elsewhere.status, field: violatedField(elsewhere.body) }).toEqual({ status: 400, field: "defaultRole" });
      const missing = await api.patch(`${BASE}/${created.uid}`, { defaultRole: `${org}/00000000000000ff` });
      expect({ status: missing.status, code: missing.body.code, message: missing.body.message }).toEqual({
        status: 404,
        code: 5,
        message: `Not found: role ${org}/00000000000000ff`,
      });
    });

    it("keeps a role that is a provider's default from deletion", async () => {
      const res = await api.del(`/iam/v2beta1/roles/${orgRole}`);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 9 });
      expect((await api.get(`/iam/v2beta1/roles/${orgRole}`)).status).toBe(200);
    });

    it.each<[string, () => string, () => unknown, number, number, string | undefined]>([
      ["a name breaking the pattern", () => `${BASE}/${team}`, () => ({ ...body("x"), name: "Okta!" }), 400, 3, "name"],
      ["no name", () => `${BASE}/${team}`, () => ({ ...body("x"), name: undefined }), 400, 3, "name"],
      [
        "a description over 512 characters",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), description: "d".repeat(513) }),
        400,
        3,
        "description",
      ],
      ["no default role", () => `${BASE}/${team}`, () => ({ ...body("x"), defaultRole: undefined }), 400, 3, "defaultRole"],
      ["a malformed default role", () => `${BASE}/${team}`, () => ({ ...body("x"), defaultRole: "viewer" }), 400, 3, "defaultRole"],
      [
        "a custom role of a sibling group",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), defaultRole: otherRole }),
        400,
        3,
        "defaultRole",
      ],
      [
        "a missing built-in-looking role",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), defaultRole: "f".repeat(40) }),
        404,
        5,
        undefined,
      ],
      ["no oidc", () => `${BASE}/${team}`, () => ({ ...body("x"), oidc: undefined }), 400, 3, "oidc"],
      ["no issuer", () => `${BASE}/${team}`, () => ({ ...body("x"), oidc: oidc("x", { issuer: "" }) }), 400, 3, "oidc.issuer"],
      [
        "an http issuer",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), oidc: oidc("x", { issuer: "http://login.example.com" }) }),
        400,
        3,
        "oidc.issuer",
      ],
      [
        "a loopback http issuer (not allowed by default)",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), oidc: oidc("x", { issuer: "http://127.0.0.1:5556" }) }),
        400,
        3,
        "oidc.issuer",
      ],
      [
        "an issuer with a query",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), oidc: oidc("x", { issuer: "https://login.example.com/?tenant=1" }) }),
        400,
        3,
        "oidc.issuer",
      ],
      [
        "an issuer with a fragment",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), oidc: oidc("x", { issuer: "https://login.example.com/#a" }) }),
        400,
        3,
        "oidc.issuer",
      ],
      ["no client id", () => `${BASE}/${team}`, () => ({ ...body("x"), oidc: oidc("x", { clientId: "" }) }), 400, 3, "oidc.clientId"],
      [
        "a client id over 256 characters",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), oidc: oidc("x", { clientId: "c".repeat(257) }) }),
        400,
        3,
        "oidc.clientId",
      ],
      [
        "a scope with a space",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), oidc: oidc("x", { additionalScopes: ["read write"] }) }),
        400,
        3,
        "oidc.additionalScopes[0]",
      ],
      [
        "21 scopes",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), oidc: oidc("x", { additionalScopes: Array.from({ length: 21 }, (_, i) => `s${i}`) }) }),
        400,
        3,
        "oidc.additionalScopes",
      ],
      [
        "a groups claim over 128 characters",
        () => `${BASE}/${team}`,
        () => ({ ...body("x"), oidc: oidc("x", { groupsClaim: "g".repeat(129) }) }),
        400,
        3,
        "oidc.groupsClaim",
      ],
      ["a sibling's name", () => `${BASE}/${team}`, () => body("okta"), 409, 6, undefined],
      ["a missing group", () => `${BASE}/${org}/00000000000000ee`, () => body("x"), 404, 5, undefined],
      ["a malformed parent", () => `${BASE}/nope`, () => body("x"), 400, 3, "parent"],
    ])("refuses %s on create", async (_name, path, sent, status, code, field) => {
      const res = await api.post(path(), sent());
      expect({ status: res.status, code: res.body.code, field: violatedField(res.body) }).toEqual({ status, code, field });
      if (field !== undefined) expect(res.body.message.startsWith(`Invalid argument: ${field}: `)).toBe(true);
    });

    it.each<[string, string, unknown, number, string | undefined]>([
      ["an output-only field in the mask", "?updateMask=createTime", {}, 400, "update_mask"],
      ["an unknown field in the mask", "?updateMask=oidc.colour", {}, 400, "update_mask"],
      ["an invalid name", "", { name: "UPPER" }, 400, "name"],
      ["an https issuer changed to http", "", { oidc: { issuer: "http://login.example.com" } }, 400, "oidc.issuer"],
      ["an empty issuer named in the mask", "?updateMask=oidc.issuer", {}, 400, "oidc.issuer"],
      ["an empty client id in a whole oidc", "?updateMask=oidc", { oidc: { issuer: "https://a.example.com" } }, 400, "oidc.clientId"],
      ["a scope with a quote", "", { oidc: { additionalScopes: ['a"b'] } }, 400, "oidc.additionalScopes[0]"],
    ])("refuses %s on update", async (_name, query, sent, status, field) => {
      const res = await api.patch(`${BASE}/${created.uid}${query}`, sent);
      expect({ status: res.status, field: violatedField(res.body) }).toEqual({ status, field });
    });

    it("answers NOT_FOUND for a missing provider on get, update and delete", async () => {
      const missing = `${team}/0000000000000000`;
      for (const res of [
        await api.get(`${BASE}/${missing}`),
        await api.patch(`${BASE}/${missing}`, { description: "x" }),
        await api.del(`${BASE}/${missing}`),
      ]) {
        expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
          status: 404,
          code: 5,
          message: `Not found: identity provider ${missing}`,
        });
      }
    });

    it("denies callers without access, whether or not the provider exists", async () => {
      const stranger = restClient(t, await t.strangerToken());
      expect((await stranger.get(`${BASE}/${created.uid}`)).status).toBe(403);
      expect((await stranger.get(`${BASE}/${team}/0000000000000000`)).status).toBe(403);
      expect((await stranger.post(`${BASE}/${team}`, body("x"))).status).toBe(403);
      const listed = await stranger.get(`${BASE}?uidp.descendants_of=${org}`);
      expect(listed.body).toMatchObject({ identityProviders: [], totalCount: "0" });
    });

    it("deletes a provider answering {}, then it is gone", async () => {
      const uid = (await api.post(`${BASE}/${team}`, body("doomed"))).body.uid;
      expect(await api.del(`${BASE}/${uid}`)).toEqual({ status: 200, body: {} });
      expect((await api.get(`${BASE}/${uid}`)).status).toBe(404);
      expect((await api.del(`${BASE}/${uid}`)).status).toBe(404);
    });

    it("goes with its group", async () => {
      const doomed = (await api.post(`/iam/v2beta1/groups/${org}`, { name: `doomed-${++n}` })).body.uid;
      const uid = (await api.post(`${BASE}/${doomed}`, body("with-group"))).body.uid;
      expect((await api.del(`/iam/v2beta1/groups/${doomed}`)).status).toBe(200);
      expect((await api.get(`${BASE}/${uid}`)).status).toBe(404);
      expect(await t.server.store.identityProviders.get(uid)).toBeUndefined();
    });

    it("never sent a client secret back, in any response of this file", () => {
      expect(responses.length).toBeGreaterThan(40);
      expect(secrets.size).toBeGreaterThan(10);
      for (const res of responses) {
        const text = JSON.stringify(res.body);
        for (const s of secrets) expect(text).not.toContain(s);
        const providers = [res.body, ...((res.body.identityProviders as unknown[] | undefined) ?? [])] as Record<string, any>[];
        for (const p of providers) if (p.oidc) expect(p.oidc.clientSecret ?? "").toBe("");
      }
    });
  });

  describe.skipIf(engine.skipReason !== undefined)(`identity providers with loopback http issuers allowed [${engine.name}]`, () => {
    let t: TestServer;
    let api: RestClient;
    let org: string;

    beforeAll(async () => {
      t = await startTestServer(engine, { allowHttpLoopbackIssuers: true });
      const made = await t.organization("loopback-org");
      org = made.org.uid;
      api = restClient(t, made.token);
    });
    afterAll(() => t?.close());

    it.each(["http://127.0.0.1:5556/dex", "http://localhost:8080/", "http://[::1]:9000"])("accepts %s", async (issuer) => {
      const res = await api.post(`${BASE}/${org}`, {
        name: `local-${issuer.length}-${issuer.charCodeAt(7)}`,
        defaultRole: VIEWER,
        oidc: { issuer, clientId: "dev" },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.oidc.issuer).toBe(issuer);
    });

    it("still refuses http elsewhere", async () => {
      const res = await api.post(`${BASE}/${org}`, {
        name: "remote",
        defaultRole: VIEWER,
        oidc: { issuer: "http://login.example.com", clientId: "dev" },
      });
      expect({ status: res.status, field: violatedField(res.body) }).toEqual({ status: 400, field: "oidc.issuer" });
    });
  });
}
