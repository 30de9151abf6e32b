/**
 * The outbox on every engine: every mutating RPC the server registers (the list taken from the
 * services, so a new RPC without a row fails) writes its CloudEvent, with its type, subject,
 * group, actor and body, in the change's transaction; registry pushes and deletes write theirs;
 * no secret reaches an event.
 */
import type { DescMethod, JsonObject } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { parentOf } from "../../src/domain/uid.js";
import type { StoredEvent } from "../../src/domain/events.js";
import { createRegistryIndex } from "../../src/services/registry/registry-index.js";
import { engines } from "../support/engines.js";
import { callRpc, isMutatingRpc, registeredRpcs, rpcName } from "../support/rpc-call.js";
import { startTestServer, type TestServer } from "../support/server.js";

interface W {
  org: string;
  make(path: string, body: unknown): Promise<string>;
  n(): string;
}

const VIEWER = builtinRoleUid("viewer");
const EDITOR = builtinRoleUid("editor");
const SECRET = "client-s3cret-never-shown";
const oidc = { issuer: "https://accounts.example.com", clientId: "arbor", clientSecret: SECRET };
const identity = (w: W) => ({
  name: w.n(),
  claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: `repo:acme/${w.n()}:ref:refs/heads/main` },
});
const group = (w: W) => w.make(`/iam/v2beta1/groups/${w.org}`, { name: w.n() });
const idp = (w: W) => w.make(`/iam/v2beta1/identityProviders/${w.org}`, { name: w.n(), defaultRole: VIEWER, oidc });
const binding = async (w: W) =>
  w.make(`/iam/v2beta1/roleBindings/${w.org}`, {
    identityUid: await w.make(`/iam/v2beta1/identities/${w.org}`, identity(w)),
    roleUid: VIEWER,
  });
const subscription = (w: W) => w.make(`/events/v2beta1/subscriptions/${w.org}`, { sink: "https://sink.example.com/x" });

/** A valid request per mutating RPC, and the uid its event is about (the request's own, else the answer's). */
const REQUESTS: Record<string, (w: W) => Promise<{ request: JsonObject; subject?: string }>> = {
  "arbor.iam.v2beta1.GroupsService/CreateGroup": async (w) => ({ request: { parent: w.org, group: { name: w.n() } } }),
  "arbor.iam.v2beta1.GroupsService/UpdateGroup": async (w) => {
    const uid = await group(w);
    return { request: { group: { uid, description: "changed" }, updateMask: "description" }, subject: uid };
  },
  "arbor.iam.v2beta1.GroupsService/DeleteGroup": async (w) => withUid(await group(w)),
  "arbor.iam.v2beta1.IdentitiesService/CreateIdentity": async (w) => ({ request: { parent: w.org, identity: identity(w) } }),
  "arbor.iam.v2beta1.IdentitiesService/UpdateIdentity": async (w) => {
    const uid = await w.make(`/iam/v2beta1/identities/${w.org}`, identity(w));
    return { request: { identity: { uid, description: "changed" }, updateMask: "description" }, subject: uid };
  },
  "arbor.iam.v2beta1.IdentitiesService/DeleteIdentity": async (w) => withUid(await w.make(`/iam/v2beta1/identities/${w.org}`, identity(w))),
  "arbor.iam.v2beta1.RolesService/CreateRole": async (w) => ({
    request: { parent: w.org, role: { name: w.n(), capabilities: ["CAP_IAM_GROUPS_LIST"] } },
  }),
  "arbor.iam.v2beta1.RolesService/UpdateRole": async (w) => {
    const uid = await w.make(`/iam/v2beta1/roles/${w.org}`, { name: w.n(), capabilities: ["CAP_IAM_GROUPS_LIST"] });
    return { request: { role: { uid, description: "changed" }, updateMask: "description" }, subject: uid };
  },
  "arbor.iam.v2beta1.RolesService/DeleteRole": async (w) =>
    withUid(await w.make(`/iam/v2beta1/roles/${w.org}`, { name: w.n(), capabilities: ["CAP_IAM_GROUPS_LIST"] })),
  "arbor.iam.v2beta1.RoleBindingsService/CreateRoleBinding": async (w) => ({
    request: {
      parent: w.org,
      roleBinding: { identityUid: await w.make(`/iam/v2beta1/identities/${w.org}`, identity(w)), roleUid: VIEWER },
    },
  }),
  "arbor.iam.v2beta1.RoleBindingsService/UpdateRoleBinding": async (w) => {
    const uid = await binding(w);
    return { request: { roleBinding: { uid, roleUid: EDITOR }, updateMask: "roleUid" }, subject: uid };
  },
  "arbor.iam.v2beta1.RoleBindingsService/DeleteRoleBinding": async (w) => withUid(await binding(w)),
  "arbor.iam.v2beta1.IdentityProvidersService/CreateIdentityProvider": async (w) => ({
    request: { parent: w.org, identityProvider: { name: w.n(), defaultRole: VIEWER, oidc } },
  }),
  "arbor.iam.v2beta1.IdentityProvidersService/UpdateIdentityProvider": async (w) => {
    const uid = await idp(w);
    return {
      request: { identityProvider: { uid, oidc: { ...oidc, clientSecret: `${SECRET}-2` } }, updateMask: "oidc.clientSecret" },
      subject: uid,
    };
  },
  "arbor.iam.v2beta1.IdentityProvidersService/DeleteIdentityProvider": async (w) => withUid(await idp(w)),
  "arbor.iam.v2beta1.AccountAssociationsService/CreateAccountAssociation": async (w) => {
    const uid = await group(w);
    return { request: { parent: uid, accountAssociation: { name: "aws", amazon: { account: "123456789012" } } }, subject: uid };
  },
  "arbor.iam.v2beta1.AccountAssociationsService/UpdateAccountAssociation": async (w) => {
    const uid = await group(w);
    await w.make(`/iam/v2beta1/accountAssociations/${uid}`, { name: "aws", amazon: { account: "123456789012" } });
    return { request: { accountAssociation: { uid, description: "changed" }, updateMask: "description" }, subject: uid };
  },
  "arbor.iam.v2beta1.AccountAssociationsService/DeleteAccountAssociation": async (w) => {
    const uid = await group(w);
    await w.make(`/iam/v2beta1/accountAssociations/${uid}`, { name: "aws", amazon: { account: "123456789012" } });
    return withUid(uid);
  },
  "arbor.iam.v2beta1.GroupInvitesService/CreateGroupInvite": async (w) => ({
    request: { parent: w.org, groupInvite: { roleUid: VIEWER, ttl: "3600s" } },
  }),
  "arbor.iam.v2beta1.GroupInvitesService/UpdateGroupInvite": async (w) => {
    const uid = await w.make(`/iam/v2beta1/groupInvites/${w.org}`, { roleUid: VIEWER, ttl: "3600s" });
    return { request: { groupInvite: { uid, ttl: "7200s" }, updateMask: "ttl" }, subject: uid };
  },
  "arbor.iam.v2beta1.GroupInvitesService/DeleteGroupInvite": async (w) =>
    withUid(await w.make(`/iam/v2beta1/groupInvites/${w.org}`, { roleUid: VIEWER, ttl: "3600s" })),
  "arbor.registry.v1.RegistryService/CreateRepo": async (w) => ({ request: { parentId: w.org, repo: { name: w.n() } } }),
  "arbor.registry.v1.RegistryService/UpdateRepo": async (w) => {
    const id = await w.make(`/registry/v1/repos/${w.org}`, { name: w.n() });
    return { request: { repo: { id, description: "changed" } }, subject: id };
  },
  "arbor.registry.v1.RegistryService/DeleteRepo": async (w) => {
    const id = await w.make(`/registry/v1/repos/${w.org}`, { name: w.n() });
    return { request: { id }, subject: id };
  },
  "arbor.events.v2beta1.SubscriptionsService/CreateSubscription": async (w) => ({
    request: { parent: w.org, subscription: { sink: "https://sink.example.com/y" } },
  }),
  "arbor.events.v2beta1.SubscriptionsService/UpdateSubscription": async (w) => {
    const uid = await subscription(w);
    return { request: { subscription: { uid, types: ["dev.arbor.api.iam."] }, updateMask: "types" }, subject: uid };
  },
  "arbor.events.v2beta1.SubscriptionsService/ReplaySubscription": async (w) => {
    const uid = await subscription(w);
    return { request: { uid, fromTime: "2020-01-01T00:00:00Z" }, subject: uid };
  },
  "arbor.events.v2beta1.SubscriptionsService/DeleteSubscription": async (w) => withUid(await subscription(w)),
};

function withUid(uid: string) {
  return { request: { uid }, subject: uid };
}

const MUTATING: DescMethod[] = registeredRpcs().filter(isMutatingRpc);

/** The type an RPC's event must have, written out rather than derived the server's way. */
function expectedType(method: DescMethod): string {
  const area = method.parent.typeName.split(".")[1];
  const [, verb = "", resource = ""] = /^(Create|Update|Delete|Replay)(.+)$/.exec(method.name) ?? [];
  const snake = resource.replace(/([a-z])([A-Z])/g, "$1_$2").toLowerCase();
  const done: Record<string, string> = { Create: "created", Update: "updated", Delete: "deleted", Replay: "replayed" };
  return `dev.arbor.api.${area}.${snake}.${done[verb]}.v1`;
}

describe("the outbox suite's coverage", () => {
  it("has a request for every mutating RPC the server registers, and none for anything else", () => {
    expect(MUTATING.length).toBeGreaterThan(20);
    expect(Object.keys(REQUESTS).sort()).toEqual(MUTATING.map(rpcName).sort());
  });
});

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`the outbox [${engine.name}]`, () => {
    let t: TestServer;
    let token: string;
    const w = {} as W;
    let seq = 0;

    /** Every event of the organization so far, in delivery order. */
    const events = async (): Promise<StoredEvent[]> =>
      t.server.store.outbox.after({ xid: 0, position: 0 }, { groupUid: w.org, includeDescendants: true }, 100_000);

    beforeAll(async () => {
      t = await startTestServer(engine);
      const made = await t.organization("outbox");
      token = made.token;
      w.org = made.org.uid;
      w.n = () => `n${++seq}`;
      w.make = async (path, body) => {
        const res = await t.fetch(path, { method: "POST", token, body: JSON.stringify(body) });
        const json = (await res.json()) as { uid?: string; id?: string };
        if (res.status !== 200) throw new Error(`setup ${path}: ${res.status} ${JSON.stringify(json)}`);
        return (json.uid ?? json.id) as string;
      };
    });
    afterAll(() => t?.close());

    it.each(MUTATING.map((m) => [rpcName(m), m] as const))("%s writes its event in the change's transaction", async (_, method) => {
      const { request, subject } = await (REQUESTS[rpcName(method)] as (w: W) => Promise<{ request: JsonObject; subject?: string }>)(w);
      const outcome = await callRpc(t.url, "rest", token, method, request);
      expect(outcome.code, JSON.stringify(outcome.body)).toBe(0);
      const about = subject ?? ((outcome.body.uid ?? outcome.body.id) as string);
      // Polled: on PostgreSQL a read waits for every transaction open on the database (other
      // test files' too) to end before it shows what committed after them.
      const ofCall = async () => (await events()).filter((e) => e.subject === about && e.type === expectedType(method));
      await expect.poll(async () => (await ofCall()).length, { timeout: 10_000 }).toBe(1);
      const event = (await ofCall())[0] as StoredEvent;
      expect(event).toMatchObject({ type: expectedType(method), subject: about });
      expect(event.groupUid).toBe(/GroupsService\/(Create|Update|Delete)Group$/.test(rpcName(method)) ? about : parentOf(about));
      expect(event.data.actor).toEqual({ subject: expect.stringMatching(/^[0-9a-f]{40}$/) });
      // An invite's code is shown once, to its creator, and never again (debug_redact).
      const code = outcome.body.code as string | undefined;
      if (code !== undefined) expect(JSON.stringify(event)).not.toContain(code);
      if (!method.name.startsWith("Delete"))
        expect(event.data.body).toEqual({ ...outcome.body, ...(code !== undefined && { code: "[redacted]" }) });
      else expect((event.data.body as { uid?: string; id?: string }).uid ?? (event.data.body as { id?: string }).id).toBe(about);
      expect(JSON.stringify(event)).not.toContain(SECRET);
      // What receiving it takes: never nothing, and a read capability wherever the resource has one.
      expect(event.readCaps.length).toBeGreaterThan(0);
      expect(event.readCaps.every((c) => c.endsWith(".list"))).toBe(true);
    });

    it("writes no event for a change that fails", async () => {
      const res = await t.fetch(`/iam/v2beta1/groups/${w.org}`, { method: "POST", token, body: JSON.stringify({ name: "Not A Name" }) });
      expect(res.status).toBe(400);
      // A later change's event shows every earlier commit's.
      const later = await group(w);
      await expect.poll(async () => (await events()).some((e) => e.subject === later), { timeout: 10_000 }).toBe(true);
      expect((await events()).filter((e) => (e.data.body as { name?: string }).name === "Not A Name")).toEqual([]);
    });

    it("writes an event for each registry push and delete that changes a tag, once", async () => {
      const index = createRegistryIndex(t.server.deps);
      const digest = `sha256:${"b".repeat(64)}`;
      await index.pushed({ repository: "outbox/app", tag: "v1", digest, time: 1_700_000_000_000 });
      await index.pushed({ repository: "outbox/app", tag: "v1", digest, time: 1_700_000_000_000 });
      await index.deleted({ repository: "outbox/app", tag: "v1", time: 1_700_000_001_000 });
      const repo = (await index.resolve("outbox/app"))?.repoUid;
      const ofRepo = async () => (await events()).filter((e) => e.subject === repo);
      await expect.poll(async () => (await ofRepo()).length, { timeout: 10_000 }).toBe(2);
      const added = await ofRepo();
      expect(added.map((e) => [e.type, e.subject, e.groupUid])).toEqual([
        ["dev.arbor.api.registry.push.v1", repo, w.org],
        ["dev.arbor.api.registry.delete.v1", repo, w.org],
      ]);
      expect(added[0]?.data.body).toEqual({ repository: "outbox/app", tag: "v1", digest, time: "2023-11-14T22:13:20.000Z" });
    });
  });
}
