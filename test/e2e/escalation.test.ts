/**
 * The escalation suite (DESIGN 1.8, "No escalation"). Every mutating RPC, taken from the services
 * the server registers (not a hand list: an RPC without attacks here fails the suite), is tried
 * by a set of callers (an editor of the organization, an editor of a group, an owner of a group,
 * and one custom role per mutating capability holding only that capability), with requests aimed
 * at the most powerful things in reach: an identity bound owner at the organization, a bound
 * custom role, the caller's own role, identity providers and invites. After every call that is
 * allowed, the oracle (test/support/powers.ts, reading the store) checks that no identity,
 * invite or identity provider now hands out anything the caller did not hold. Every case runs
 * over REST and over gRPC, on every engine.
 *
 * Then the paths the attacks found, each by name, with the refusal it must get.
 */
import type { DescMethod, JsonObject } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_CAPABILITIES, capabilityName, Capability } from "../../src/domain/capabilities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { escalations, powersIn } from "../support/powers.js";
import { callRpc, isMutatingRpc, registeredRpcs, rpcName, type RpcOutcome, type Transport } from "../support/rpc-call.js";
import { startTestServer, type TestServer } from "../support/server.js";

const OWNER = builtinRoleUid("owner");
const EDITOR = builtinRoleUid("editor");
const VIEWER = builtinRoleUid("viewer");
const ATTACKER_ISSUER = "https://attacker.example";
const ATTACKER_JWKS = JSON.stringify({
  keys: [
    {
      kty: "EC",
      crv: "P-256",
      x: "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
      y: "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0",
      kid: "a",
    },
  ],
});
const oidc = (issuer: string) => ({ issuer, clientId: "arbor", clientSecret: "s3cret" });
const takeover = { claimMatch: { issuer: ATTACKER_ISSUER, subject: "me" } };

/** A caller: where it is bound, and to what. */
interface CallerSpec {
  name: string;
  /** A built-in role's uid, or capabilities of a custom role made for it in the organization. */
  role: string | Capability[];
  at: "org" | "a";
}

/** One organization as a caller finds it; every caller gets its own. */
interface World {
  t: TestServer;
  admin: string;
  org: string;
  a: string;
  a1: string;
  me: string;
  token: string;
  /** The caller's own custom role; undefined when it holds a built-in one. */
  myRole: string | undefined;
  /** An identity in the organization bound owner there. */
  crown: string;
  /** An identity in A's subgroup bound owner at the organization. */
  crownBelow: string;
  /** An identity in A bound viewer at A and to boundRole at A; viewerBinding is the former. */
  viewerA: string;
  viewerBinding: string;
  boundRole: string;
  make(path: string, body: unknown): Promise<string>;
  seq(): number;
}

const SINK = "https://sink.example.com/arbor";

type Attack = (w: World) => Promise<JsonObject | undefined>;

const n = (w: World) => `x${w.seq()}`;
const claims = (w: World) => ({
  claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: `repo:acme/${n(w)}:ref:refs/heads/main` },
});
const freshIdentity = (w: World, parent = w.a) => w.make(`/iam/v2beta1/identities/${parent}`, { name: n(w), ...claims(w) });
const freshRole = (w: World, capabilities = ["CAP_IAM_GROUPS_LIST"]) => w.make(`/iam/v2beta1/roles/${w.a}`, { name: n(w), capabilities });
const allCapabilities = ALL_CAPABILITIES.map((c) => Capability[c]);

/** Requests per mutating RPC, aimed at what would escalate if the RPC let it through. */
const ATTACKS: Record<string, Attack[]> = {
  "arbor.iam.v2beta1.GroupsService/CreateGroup": [
    async (w) => ({ parent: w.a, group: { name: n(w) } }),
    async (w) => ({ parent: "", group: { name: n(w) } }),
  ],
  "arbor.iam.v2beta1.GroupsService/UpdateGroup": [async (w) => ({ group: { uid: w.a, name: n(w) }, updateMask: "name" })],
  "arbor.iam.v2beta1.GroupsService/DeleteGroup": [async (w) => ({ uid: await w.make(`/iam/v2beta1/groups/${w.a}`, { name: n(w) }) })],

  "arbor.iam.v2beta1.IdentitiesService/CreateIdentity": [async (w) => ({ parent: w.a, identity: { name: n(w), ...takeover } })],
  "arbor.iam.v2beta1.IdentitiesService/UpdateIdentity": [
    async (w) => ({ identity: { uid: w.crown, ...takeover }, updateMask: "claimMatch" }),
    async (w) => ({ identity: { uid: w.crownBelow, ...takeover }, updateMask: "claimMatch" }),
    async (w) => ({ identity: { uid: w.crown, claimMatch: { subject: "me" } }, updateMask: "claimMatch.subject" }),
    async (w) => ({
      identity: { uid: w.crown, staticKeys: { issuer: ATTACKER_ISSUER, subject: "me", issuerKeys: ATTACKER_JWKS } },
      updateMask: "staticKeys",
    }),
    async (w) => ({ identity: { uid: w.viewerA, ...takeover }, updateMask: "claimMatch" }),
    async (w) => ({ identity: { uid: w.crown, description: "renamed" }, updateMask: "description" }),
  ],
  "arbor.iam.v2beta1.IdentitiesService/DeleteIdentity": [async (w) => ({ uid: await freshIdentity(w) })],

  "arbor.iam.v2beta1.RolesService/CreateRole": [async (w) => ({ parent: w.a, role: { name: n(w), capabilities: allCapabilities } })],
  "arbor.iam.v2beta1.RolesService/UpdateRole": [
    async (w) =>
      w.myRole === undefined ? undefined : { role: { uid: w.myRole, capabilities: allCapabilities }, updateMask: "capabilities" },
    async (w) => {
      // A role of the caller's own, defined where the caller works.
      const role = await freshRole(w, ["CAP_IAM_GROUPS_LIST"]);
      await w.make(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: w.me, roleUid: role });
      return { role: { uid: role, capabilities: allCapabilities }, updateMask: "capabilities" };
    },
    async (w) => ({ role: { uid: w.boundRole, capabilities: allCapabilities }, updateMask: "capabilities" }),
    async (w) => {
      const role = await freshRole(w);
      await w.make(`/iam/v2beta1/identityProviders/${w.a}`, { name: n(w), defaultRole: role, oidc: oidc("https://accounts.example.com") });
      return { role: { uid: role, capabilities: allCapabilities }, updateMask: "capabilities" };
    },
    async (w) => {
      const role = await freshRole(w);
      await w.make(`/iam/v2beta1/groupInvites/${w.a}`, { roleUid: role, ttl: "3600s" });
      return { role: { uid: role, capabilities: allCapabilities }, updateMask: "capabilities" };
    },
    async (w) => ({
      role: { uid: await freshRole(w, ["CAP_IAM_GROUPS_LIST", "CAP_IAM_ROLES_LIST"]), capabilities: ["CAP_IAM_GROUPS_LIST"] },
      updateMask: "capabilities",
    }),
  ],
  "arbor.iam.v2beta1.RolesService/DeleteRole": [async (w) => ({ uid: await freshRole(w) })],

  "arbor.iam.v2beta1.RoleBindingsService/CreateRoleBinding": [
    async (w) => ({ parent: w.a, roleBinding: { identityUid: w.me, roleUid: OWNER } }),
    async (w) => ({ parent: w.org, roleBinding: { identityUid: w.viewerA, roleUid: OWNER } }),
    async (w) => ({ parent: w.a1, roleBinding: { identityUid: w.viewerA, roleUid: w.myRole ?? VIEWER } }),
  ],
  "arbor.iam.v2beta1.RoleBindingsService/UpdateRoleBinding": [
    async (w) => ({ roleBinding: { uid: w.viewerBinding, roleUid: OWNER }, updateMask: "roleUid" }),
    async (w) => {
      const uid = await w.make(`/iam/v2beta1/roleBindings/${w.org}`, { identityUid: await freshIdentity(w), roleUid: OWNER });
      return { roleBinding: { uid, identityUid: w.me }, updateMask: "identityUid" };
    },
    async (w) => {
      const uid = await w.make(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: await freshIdentity(w), roleUid: OWNER });
      return { roleBinding: { uid, roleUid: w.myRole ?? VIEWER }, updateMask: "roleUid" };
    },
  ],
  "arbor.iam.v2beta1.RoleBindingsService/DeleteRoleBinding": [
    async (w) => ({ uid: await w.make(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: await freshIdentity(w), roleUid: VIEWER }) }),
  ],

  "arbor.iam.v2beta1.IdentityProvidersService/CreateIdentityProvider": [
    async (w) => ({ parent: w.a, identityProvider: { name: n(w), defaultRole: OWNER, oidc: oidc(ATTACKER_ISSUER) } }),
    async (w) => ({ parent: w.a, identityProvider: { name: n(w), defaultRole: w.myRole ?? VIEWER, oidc: oidc(ATTACKER_ISSUER) } }),
  ],
  "arbor.iam.v2beta1.IdentityProvidersService/UpdateIdentityProvider": [
    async (w) => {
      const uid = await w.make(`/iam/v2beta1/identityProviders/${w.a}`, {
        name: n(w),
        defaultRole: VIEWER,
        oidc: oidc("https://accounts.example.com"),
      });
      return { identityProvider: { uid, defaultRole: OWNER }, updateMask: "defaultRole" };
    },
    async (w) => {
      const uid = await w.make(`/iam/v2beta1/identityProviders/${w.a}`, {
        name: n(w),
        defaultRole: EDITOR,
        oidc: oidc("https://accounts.example.com"),
      });
      return { identityProvider: { uid, oidc: oidc(ATTACKER_ISSUER) }, updateMask: "oidc.issuer,oidc.clientSecret" };
    },
    async (w) => {
      const uid = await w.make(`/iam/v2beta1/identityProviders/${w.a}`, {
        name: n(w),
        defaultRole: OWNER,
        oidc: oidc("https://accounts.example.com"),
      });
      return { identityProvider: { uid, description: "renamed" }, updateMask: "description" };
    },
  ],
  "arbor.iam.v2beta1.IdentityProvidersService/DeleteIdentityProvider": [
    async (w) => ({
      uid: await w.make(`/iam/v2beta1/identityProviders/${w.a}`, {
        name: n(w),
        defaultRole: OWNER,
        oidc: oidc("https://accounts.example.com"),
      }),
    }),
  ],

  "arbor.iam.v2beta1.AccountAssociationsService/CreateAccountAssociation": [
    async (w) => ({
      parent: await w.make(`/iam/v2beta1/groups/${w.a}`, { name: n(w) }),
      accountAssociation: { name: "aws", amazon: { account: "123456789012" } },
    }),
  ],
  "arbor.iam.v2beta1.AccountAssociationsService/UpdateAccountAssociation": [
    async (w) => {
      const group = await w.make(`/iam/v2beta1/groups/${w.a}`, { name: n(w) });
      await w.make(`/iam/v2beta1/accountAssociations/${group}`, { name: "aws", amazon: { account: "123456789012" } });
      return { accountAssociation: { uid: group, amazon: { account: "210987654321" } }, updateMask: "amazon" };
    },
  ],
  "arbor.iam.v2beta1.AccountAssociationsService/DeleteAccountAssociation": [
    async (w) => {
      const group = await w.make(`/iam/v2beta1/groups/${w.a}`, { name: n(w) });
      await w.make(`/iam/v2beta1/accountAssociations/${group}`, { name: "aws", amazon: { account: "123456789012" } });
      return { uid: group };
    },
  ],

  "arbor.iam.v2beta1.GroupInvitesService/CreateGroupInvite": [
    async (w) => ({ parent: w.a, groupInvite: { roleUid: OWNER, ttl: "3600s" } }),
    async (w) => ({ parent: w.a, groupInvite: { roleUid: w.myRole ?? VIEWER, ttl: "3600s" } }),
  ],
  "arbor.iam.v2beta1.GroupInvitesService/UpdateGroupInvite": [
    async (w) => {
      const uid = await w.make(`/iam/v2beta1/groupInvites/${w.a}`, {
        roleUid: OWNER,
        ttl: "60s",
        singleUse: true,
        email: "one@example.com",
      });
      return { groupInvite: { uid, ttl: "86400s", singleUse: false, email: "" }, updateMask: "ttl,singleUse,email" };
    },
  ],
  "arbor.iam.v2beta1.GroupInvitesService/DeleteGroupInvite": [
    async (w) => ({ uid: await w.make(`/iam/v2beta1/groupInvites/${w.a}`, { roleUid: OWNER, ttl: "3600s" }) }),
  ],

  "arbor.registry.v1.RegistryService/CreateRepo": [async (w) => ({ parentId: w.a, repo: { name: n(w) } })],
  "arbor.registry.v1.RegistryService/UpdateRepo": [
    async (w) => ({ repo: { id: await w.make(`/registry/v1/repos/${w.a}`, { name: n(w) }), description: "changed" } }),
  ],
  "arbor.registry.v1.RegistryService/DeleteRepo": [async (w) => ({ id: await w.make(`/registry/v1/repos/${w.a}`, { name: n(w) }) })],

  // A subscription hands nothing out: what it receives is checked against its creator at delivery,
  // and whoever gives it another sink becomes its creator (docs/events.md).
  "arbor.events.v2beta1.SubscriptionsService/CreateSubscription": [
    async (w) => ({ parent: w.org, subscription: { sink: SINK, includeDescendants: true } }),
  ],
  "arbor.events.v2beta1.SubscriptionsService/UpdateSubscription": [
    async (w) => ({
      subscription: { uid: await w.make(`/events/v2beta1/subscriptions/${w.a}`, { sink: SINK }), includeDescendants: true },
      updateMask: "includeDescendants",
    }),
  ],
  "arbor.events.v2beta1.SubscriptionsService/ReplaySubscription": [
    async (w) => ({ uid: await w.make(`/events/v2beta1/subscriptions/${w.a}`, { sink: SINK }), fromTime: "2020-01-01T00:00:00Z" }),
  ],
  "arbor.events.v2beta1.SubscriptionsService/DeleteSubscription": [
    async (w) => ({ uid: await w.make(`/events/v2beta1/subscriptions/${w.a}`, { sink: SINK }) }),
  ],
};

const mutatingCapabilities = ALL_CAPABILITIES.filter((c) => /\.(create|update|delete|push)$/.test(capabilityName(c)));
const CALLERS: CallerSpec[] = [
  { name: "editor of the organization", role: EDITOR, at: "org" },
  { name: "editor of a group", role: EDITOR, at: "a" },
  { name: "owner of a group", role: OWNER, at: "a" },
  ...mutatingCapabilities.map((c): CallerSpec => ({ name: `custom role with ${capabilityName(c)} only`, role: [c], at: "a" })),
];

const MUTATING: DescMethod[] = registeredRpcs().filter(isMutatingRpc);

describe("the escalation suite's coverage", () => {
  it("has attacks for every mutating RPC the server registers, and none for anything else", () => {
    expect(MUTATING.length).toBeGreaterThan(20);
    expect(Object.keys(ATTACKS).sort()).toEqual(MUTATING.map(rpcName).sort());
  });
});

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`no escalation [${engine.name}]`, () => {
    let t: TestServer;
    let counter = 0;
    const allowed = new Set<string>();
    beforeAll(async () => {
      t = await startTestServer(engine, { allowHttpLoopbackIssuers: true });
    });
    afterAll(async () => {
      await t?.close();
    });

    async function worldFor(caller: CallerSpec): Promise<World> {
      const { org, token: admin } = await t.organization(`esc-${++counter}`);
      const make = async (path: string, body: unknown): Promise<string> => {
        const res = await t.fetch(path, {
          method: "POST",
          token: admin,
          body: JSON.stringify(body),
          headers: { "content-type": "application/json" },
        });
        const json = (await res.json()) as Record<string, string>;
        if (!res.ok) throw new Error(`${path}: ${JSON.stringify(json)}`);
        return json.uid ?? json.id ?? "";
      };
      let seq = 0;
      const w = { t, admin, org: org.uid, make, seq: () => ++seq } as World;
      w.a = await make(`/iam/v2beta1/groups/${org.uid}`, { name: "a" });
      w.a1 = await make(`/iam/v2beta1/groups/${w.a}`, { name: "a1" });
      w.crown = await freshIdentity(w, org.uid);
      await make(`/iam/v2beta1/roleBindings/${org.uid}`, { identityUid: w.crown, roleUid: OWNER });
      w.crownBelow = await freshIdentity(w, w.a1);
      await make(`/iam/v2beta1/roleBindings/${org.uid}`, { identityUid: w.crownBelow, roleUid: OWNER });
      w.viewerA = await freshIdentity(w);
      w.viewerBinding = await make(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: w.viewerA, roleUid: VIEWER });
      w.boundRole = await freshRole(w);
      await make(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: w.viewerA, roleUid: w.boundRole });
      w.myRole =
        typeof caller.role === "string"
          ? undefined
          : await make(`/iam/v2beta1/roles/${org.uid}`, { name: "mine", capabilities: caller.role.map((c) => Capability[c]) });
      w.me = await freshIdentity(w);
      const at = caller.at === "org" ? org.uid : w.a;
      await make(`/iam/v2beta1/roleBindings/${at}`, { identityUid: w.me, roleUid: w.myRole ?? caller.role });
      w.token = (await t.server.tokens.issue(w.me, t.url)).token;
      return w;
    }

    // Each caller's attacks go over one transport, REST and gRPC by turns, the other way round on
    // the next engine: every caller meets every RPC over both transports across the engines.
    const parity = engines.indexOf(engine) % 2;
    for (const transport of ["rest", "grpc"] as Transport[]) {
      const callers = CALLERS.filter((_, i) => i % 2 === (transport === "rest" ? parity : 1 - parity));
      it(`lets no caller hand out what it does not hold, over ${transport} (${callers.length} callers)`, { timeout: 240_000 }, async () => {
        const found: string[] = [];
        for (const caller of callers) {
          const w = await worldFor(caller);
          for (const method of MUTATING) {
            for (const attack of ATTACKS[rpcName(method)] ?? []) {
              const request = await attack(w);
              if (request === undefined) continue;
              const before = await powersIn(t.server.store, w.org);
              const outcome: RpcOutcome = await callRpc(t.url, transport, w.token, method, request);
              if (outcome.code !== 0) {
                // A refusal is fine; an internal error is not.
                expect([3, 5, 6, 7, 9], `${caller.name}: ${rpcName(method)} ${JSON.stringify(outcome.body)}`).toContain(outcome.code);
                continue;
              }
              allowed.add(rpcName(method));
              const held = before.grants.get(w.me) ?? new Set<string>();
              for (const e of escalations(before, await powersIn(t.server.store, w.org), held)) {
                found.push(`${caller.name}: ${rpcName(method)} ${JSON.stringify(request)}: ${e}`);
              }
            }
          }
        }
        expect(found).toEqual([]);
      });
    }

    it("let every mutating RPC through for someone, so no attack is refused only for being malformed", () => {
      expect(MUTATING.map(rpcName).filter((rpc) => !allowed.has(rpc))).toEqual([]);
    });

    describe.each(["rest", "grpc"] as Transport[])("the paths found, over %s", (transport) => {
      const rpc = (name: string) => MUTATING.find((m) => rpcName(m).endsWith(name)) as DescMethod;
      const as = (w: World, name: string, request: JsonObject) => callRpc(t.url, transport, w.token, rpc(name), request);
      const refused = (outcome: RpcOutcome) => expect(outcome.code, JSON.stringify(outcome.body)).toBe(7);
      const identity = async (w: World, uid: string) => (await t.server.store.identities.get(uid))?.relationship;

      it("an editor cannot take over an identity bound owner, at the organization or above its own group", async () => {
        for (const [caller, target] of [
          [CALLERS[0], "crown"],
          [CALLERS[1], "crownBelow"],
        ] as const) {
          const w = await worldFor(caller as CallerSpec);
          const uid = w[target];
          const kept = await identity(w, uid);
          refused(await as(w, "UpdateIdentity", { identity: { uid, ...takeover }, updateMask: "claimMatch" }));
          refused(await as(w, "UpdateIdentity", { identity: { uid, claimMatch: { subject: "me" } }, updateMask: "claimMatch.subject" }));
          const keys = { issuer: ATTACKER_ISSUER, subject: "me", issuerKeys: ATTACKER_JWKS };
          refused(await as(w, "UpdateIdentity", { identity: { uid, staticKeys: keys }, updateMask: "staticKeys" }));
          expect(await identity(w, uid)).toEqual(kept);
          // What the editor holds itself it may still hand to an identity it re-keys.
          expect((await as(w, "UpdateIdentity", { identity: { uid: w.viewerA, ...takeover }, updateMask: "claimMatch" })).code).toBe(0);
          // And its name and description decide nothing.
          expect((await as(w, "UpdateIdentity", { identity: { uid, description: "noted" }, updateMask: "description" })).code).toBe(0);
        }
      });

      it("roles.update cannot add to a bound role what the caller lacks, and the next request has gained nothing", async () => {
        const w = await worldFor({ name: "roles.update", role: [Capability.CAP_IAM_ROLES_UPDATE], at: "a" });
        // The caller's own role, defined where it holds roles.update.
        const mine = await freshRole(w, ["CAP_IAM_ROLES_UPDATE"]);
        await w.make(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: w.me, roleUid: mine });
        const grows = ["CAP_IAM_ROLES_UPDATE", "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_AUDIT_READ"];
        refused(await as(w, "UpdateRole", { role: { uid: mine, capabilities: grows }, updateMask: "capabilities" }));
        expect((await t.server.store.roles.get(mine))?.capabilities).toEqual(["roles.update"]);
        refused(await as(w, "CreateRoleBinding", { parent: w.a, roleBinding: { identityUid: w.viewerA, roleUid: mine } }));
        // Taking a capability away hands nothing out.
        const shrinkable = await freshRole(w, ["CAP_IAM_GROUPS_LIST", "CAP_IAM_ROLES_LIST"]);
        await w.make(`/iam/v2beta1/roleBindings/${w.a}`, { identityUid: w.viewerA, roleUid: shrinkable });
        expect(
          (await as(w, "UpdateRole", { role: { uid: shrinkable, capabilities: ["CAP_IAM_GROUPS_LIST"] }, updateMask: "capabilities" }))
            .code,
        ).toBe(0);
      });

      it("an identity provider cannot give everyone who logs in a role the caller could not bind", async () => {
        const w = await worldFor({
          name: "providers",
          role: [
            Capability.CAP_IAM_IDENTITY_PROVIDERS_CREATE,
            Capability.CAP_IAM_IDENTITY_PROVIDERS_UPDATE,
            Capability.CAP_IAM_ROLE_BINDINGS_CREATE,
          ],
          at: "a",
        });
        refused(
          await as(w, "CreateIdentityProvider", {
            parent: w.a,
            identityProvider: { name: "evil", defaultRole: OWNER, oidc: oidc(ATTACKER_ISSUER) },
          }),
        );
        const viewerDefault = await w.make(`/iam/v2beta1/identityProviders/${w.a}`, {
          name: "corp",
          defaultRole: VIEWER,
          oidc: oidc("https://accounts.example.com"),
        });
        refused(
          await as(w, "UpdateIdentityProvider", {
            identityProvider: { uid: viewerDefault, defaultRole: OWNER },
            updateMask: "defaultRole",
          }),
        );
        const ownerDefault = await w.make(`/iam/v2beta1/identityProviders/${w.a}`, {
          name: "admins",
          defaultRole: OWNER,
          oidc: oidc("https://accounts.example.com"),
        });
        refused(
          await as(w, "UpdateIdentityProvider", {
            identityProvider: { uid: ownerDefault, oidc: oidc(ATTACKER_ISSUER) },
            updateMask: "oidc.issuer,oidc.clientSecret",
          }),
        );
        expect((await t.server.store.identityProviders.get(ownerDefault))?.oidc.issuer).toBe("https://accounts.example.com");
        const noted = await as(w, "UpdateIdentityProvider", {
          identityProvider: { uid: ownerDefault, description: "noted" },
          updateMask: "description",
        });
        expect(noted.code, JSON.stringify(noted.body)).toBe(0);
        // With a role whose capabilities the caller holds, the same calls go through.
        const own = { parent: w.a, identityProvider: { name: "mine", defaultRole: w.myRole as string, oidc: oidc(ATTACKER_ISSUER) } };
        expect((await as(w, "CreateIdentityProvider", own)).code).toBe(0);
      });
    });
  });
}
