/**
 * No escalation under concurrency (DESIGN 1.8). The guard reads, inside each call's transaction,
 * what a change hands out; two calls racing must not each pass on what the other has not yet
 * committed. A role's capabilities growing while an invite or an identity provider of it is made:
 * the role's guard finds no place where it is handed out (the invite is not committed yet), and the
 * invite's guard reads the role's old capabilities (the growth is not committed yet). Both would
 * commit, and the invite would hand out what neither caller held.
 *
 * The role update here is the attacker's call as the invoker runs it (the change, the guard, then
 * the commit), held open between its guard and its commit; the other call is a real REST request
 * made in that window.
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Capability, capabilityName } from "../../src/domain/capabilities.js";
import { Authorizer } from "../../src/auth/authorizer.js";
import type { LoginProvider } from "../../src/auth/login-provider.js";
import { registerLogin } from "../../src/auth/login-registration.js";
import { createEscalationGuard } from "../../src/services/iam/escalation-guard.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const GRANTED = [Capability.CAP_IAM_GROUPS_LIST];
const GROWN = [Capability.CAP_IAM_GROUPS_LIST, Capability.CAP_IAM_ROLES_DELETE, Capability.CAP_AUDIT_READ];
const ATTACKER = [
  Capability.CAP_IAM_GROUPS_LIST,
  Capability.CAP_IAM_ROLES_UPDATE,
  Capability.CAP_IAM_ROLE_BINDINGS_CREATE,
  Capability.CAP_IAM_GROUP_INVITES_CREATE,
  Capability.CAP_IAM_IDENTITY_PROVIDERS_CREATE,
];
/** How long the held call waits for the racing one; a racing call that waits for it is what is wanted. */
const WINDOW_MS = 1500;

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`no escalation by racing calls [${engine.name}]`, () => {
    let t: TestServer;
    let counter = 0;
    beforeAll(async () => {
      t = await startTestServer(engine, { allowHttpLoopbackIssuers: true });
    });
    afterAll(async () => {
      await t?.close();
    });

    async function post(path: string, token: string, body: unknown): Promise<Response> {
      return t.fetch(path, { method: "POST", token, body: JSON.stringify(body), headers: { "content-type": "application/json" } });
    }

    /** An organization's group A, a custom role there granting GRANTED, and an attacker holding ATTACKER at A. */
    async function world() {
      const { org, token: admin } = await t.organization(`race-${++counter}`);
      const make = async (path: string, body: unknown) => ((await (await post(path, admin, body)).json()) as { uid: string }).uid;
      const a = await make(`/iam/v2beta1/groups/${org.uid}`, { name: "a" });
      const role = await make(`/iam/v2beta1/roles/${a}`, { name: "r", capabilities: GRANTED.map((c) => Capability[c]) });
      const own = await make(`/iam/v2beta1/roles/${a}`, { name: "mine", capabilities: ATTACKER.map((c) => Capability[c]) });
      const claimMatch = { issuer: "https://token.actions.githubusercontent.com", subject: "repo:acme/x:ref:refs/heads/main" };
      const me = await make(`/iam/v2beta1/identities/${a}`, { name: "me", claimMatch });
      await make(`/iam/v2beta1/roleBindings/${a}`, { identityUid: me, roleUid: own });
      return { a, role, own, me, admin, token: (await t.server.tokens.issue(me, t.url)).token };
    }

    /**
     * The attacker grows role's capabilities to GROWN as the invoker would run UpdateRole, and
     * while that call sits between its guard and its commit, makes the racing request.
     */
    async function raceRoleGrowth(w: Awaited<ReturnType<typeof world>>, racing: () => Promise<Response>): Promise<Response> {
      const store = t.server.store;
      const permissions = await new Authorizer(store.bindings, store.identities, { allowOrgCreation: false }).permissionsOf(w.me);
      let response: Promise<Response> | undefined;
      await store.atomically(async (tx) => {
        await store.roles.update(w.role, { capabilities: GROWN.map(capabilityName) }, Date.now());
        await createEscalationGuard(store).check({ uid: w.me, permissions }, tx.authorityChanges);
        response = racing();
        await Promise.race([response, new Promise((resolve) => setTimeout(resolve, WINDOW_MS))]);
      });
      return response as Promise<Response>;
    }

    async function expectRefusedGrowth(res: Response, w: Awaited<ReturnType<typeof world>>) {
      const body = (await res.json()) as { code: number; message: string; details?: { metadata?: Record<string, string> }[] };
      expect(res.status, JSON.stringify(body)).toBe(403);
      expect(body.code).toBe(7);
      expect(body.message).toContain("the caller cannot grant capabilities it does not hold");
      const info = body.details?.find((d) => d.metadata !== undefined)?.metadata;
      // Refused by the guard, or (when it reads the role after the growth) by the service's early check.
      expect(info).toMatchObject({
        group: w.a,
        role: w.role,
        missing: [Capability.CAP_IAM_ROLES_DELETE, Capability.CAP_AUDIT_READ].map(capabilityName).join(","),
      });
    }

    it("an invite of a role made while the role grows does not commit with the growth", async () => {
      const w = await world();
      const res = await raceRoleGrowth(w, () => post(`/iam/v2beta1/groupInvites/${w.a}`, w.token, { roleUid: w.role, ttl: "3600s" }));
      await expectRefusedGrowth(res, w);
      const invites = await t.server.store.groupInvites.list(
        { uidp: { childrenOf: w.a } },
        { order: [{ field: "uid", desc: false }], offset: 0, limit: 10 },
      );
      expect(invites).toEqual([]);
    });

    it("an identity provider giving a role that grows meanwhile does not commit with the growth", async () => {
      const w = await world();
      const provider = {
        name: "corp",
        defaultRole: w.role,
        oidc: { issuer: "https://accounts.example.com", clientId: "arbor", clientSecret: "s3cret" },
      };
      const res = await raceRoleGrowth(w, () => post(`/iam/v2beta1/identityProviders/${w.a}`, w.token, provider));
      await expectRefusedGrowth(res, w);
      const providers = await t.server.store.identityProviders.list(
        { uidp: { childrenOf: w.a } },
        { order: [{ field: "uid", desc: false }], offset: 0, limit: 10 },
      );
      expect(providers).toEqual([]);
    });

    it("a login grants the provider's default role as the provider has it when the login commits, not when it began", async () => {
      const w = await world();
      const created = await post(`/iam/v2beta1/identityProviders/${w.a}`, w.admin, {
        name: "corp",
        defaultRole: w.role,
        oidc: { issuer: "https://accounts.example.com", clientId: "arbor", clientSecret: "s3cret" },
      });
      expect(created.status, await created.clone().text()).toBe(200);
      const providerUid = ((await created.json()) as { uid: string }).uid;
      // The provider as a login read it when it began, before its exchange with the upstream issuer.
      const begun: LoginProvider = {
        uid: providerUid,
        issuer: "https://accounts.example.com",
        clientId: "arbor",
        clientSecret: "s3cret",
        scopes: ["openid"],
        defaultGrant: { groupUid: w.a, roleUid: w.role },
      };
      // Meanwhile the provider is pointed at another role, and the first role, now handed out
      // nowhere, could grow past what whoever switched it holds.
      const switched = await t.fetch(`/iam/v2beta1/identityProviders/${providerUid}?updateMask=defaultRole`, {
        method: "PATCH",
        token: w.admin,
        body: JSON.stringify({ defaultRole: w.own }),
        headers: { "content-type": "application/json" },
      });
      expect(switched.status, await switched.text()).toBe(200);
      const person = { issuer: "https://accounts.example.com", subject: `person-${counter}`, claims: {} };
      const { identityUid } = await registerLogin(t.server.deps, person, begun, null);
      const bound = await t.server.store.bindings.list(
        { uidp: {}, identity: identityUid },
        { order: [{ field: "uid", desc: false }], offset: 0, limit: 10 },
      );
      expect(bound.map((b) => b.roleUid)).toEqual([w.own]);

      // A provider gone by the login's end refuses it.
      expect((await t.fetch(`/iam/v2beta1/identityProviders/${providerUid}`, { method: "DELETE", token: w.admin })).status).toBe(200);
      await expect(registerLogin(t.server.deps, { ...person, subject: `other-${counter}` }, begun, null)).rejects.toMatchObject({
        message: expect.stringContaining("the identity provider changed during the login"),
      });
    });

    it("a role does not grow while an invite of it is being made", async () => {
      const w = await world();
      const store = t.server.store;
      const permissions = await new Authorizer(store.bindings, store.identities, { allowOrgCreation: false }).permissionsOf(w.me);
      let response: Promise<Response> | undefined;
      const grow = { capabilities: GROWN.map((c) => Capability[c]) };
      // The attacker's CreateGroupInvite as the invoker runs it, held between its guard and its commit.
      await store.atomically(async (tx) => {
        const now = Date.now();
        const invite = { uid: `${w.a}/${randomBytes(8).toString("hex")}`, parentUid: w.a, roleUid: w.role, email: "", singleUse: false };
        await store.groupInvites.insert({
          ...invite,
          codeHash: randomBytes(32).toString("hex"),
          keyId: randomBytes(8).toString("hex"),
          expirationTime: now + 3_600_000,
          createTime: now,
          redeemTime: null,
        });
        await createEscalationGuard(store).check({ uid: w.me, permissions }, tx.authorityChanges);
        response = t.fetch(`/iam/v2beta1/roles/${w.role}?updateMask=capabilities`, {
          method: "PATCH",
          token: w.token,
          body: JSON.stringify(grow),
          headers: { "content-type": "application/json" },
        });
        await Promise.race([response, new Promise((resolve) => setTimeout(resolve, WINDOW_MS))]);
      });
      await expectRefusedGrowth(await (response as Promise<Response>), w);
      expect((await store.roles.get(w.role))?.capabilities).toEqual(GRANTED.map(capabilityName));
    });
  });
}
