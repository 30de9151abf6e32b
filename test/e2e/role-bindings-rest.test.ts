/**
 * The spec's access walk-through over REST, on every engine, and what role bindings do to access:
 * a binding works on the identity's next request, a custom role grants exactly its capabilities,
 * and no one grants more than they hold.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { detailOf, restClient, violatedField, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ISSUER = "https://token.actions.githubusercontent.com";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`role bindings over REST [${engine.name}]`, () => {
    let t: TestServer;
    let owner: RestClient;
    let org: string;
    let group: string;
    let viewer: { uid: string; name: string; description: string };
    let n = 0;

    beforeAll(async () => {
      t = await startTestServer(engine);
      const made = await t.organization("access");
      org = made.org.uid;
      owner = restClient(t, made.token);
      group = (await owner.post(`/iam/v2beta1/groups/${org}`, { name: "engineering", description: "builds things" })).body.uid;
    });
    afterAll(() => t?.close());

    /** Creates an identity in parent through the API; its uid. */
    async function identity(parent: string, name = `bot-${++n}`): Promise<string> {
      const res = await owner.post(`/iam/v2beta1/identities/${parent}`, {
        name,
        description: `the ${name}`,
        claimMatch: { issuer: ISSUER, subject: `repo:acme/${name}:ref:refs/heads/main` },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.uid;
    }

    /** A REST client acting as the identity. */
    async function as(identityUid: string): Promise<RestClient> {
      return restClient(t, (await t.server.tokens.issue(identityUid, t.url)).token);
    }

    /** Creates a custom role in parent with these capabilities (enum names); its uid. */
    async function customRole(parent: string, capabilities: string[], name = `role-${++n}`): Promise<string> {
      const res = await owner.post(`/iam/v2beta1/roles/${parent}`, { name, capabilities });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.uid;
    }

    const bind = (client: RestClient, at: string, identityUid: string, roleUid: string) =>
      client.post(`/iam/v2beta1/roleBindings/${at}`, { identityUid, roleUid });

    it("walks through the spec: group, identity, the viewer role by name, a binding, hydrated", async () => {
      const ci = await identity(group, "ci");
      const roles = await owner.get("/iam/v2beta1/roles");
      expect(roles.status).toBe(200);
      viewer = roles.body.roles.find((r: { name: string }) => r.name === "viewer");
      expect(viewer).toMatchObject({ name: "viewer", description: "Viewer Role (built-in)" });
      expect(viewer.uid).toMatch(/^[0-9a-f]{40}$/);

      const created = await bind(owner, group, ci, viewer.uid);
      expect(created.status).toBe(200);
      const b = created.body;
      expect(Object.keys(b).sort()).toEqual(["createTime", "group", "identity", "role", "uid"]);
      expect(b.uid).toMatch(new RegExp(`^${group}/[0-9a-f]{16}$`));
      expect(b.identity).toEqual({
        uid: ci,
        name: "ci",
        description: "the ci",
        subject: "repo:acme/ci:ref:refs/heads/main",
        issuer: ISSUER,
      });
      expect(b.group).toEqual({ uid: group, name: "engineering", description: "builds things" });
      expect(b.role).toEqual({ uid: viewer.uid, name: "viewer", description: "Viewer Role (built-in)" });
      expect(b.createTime).toMatch(TIME);

      const got = await owner.get(`/iam/v2beta1/roleBindings/${b.uid}`);
      expect(got).toEqual({ status: 200, body: b });
      const listed = await owner.get(`/iam/v2beta1/roleBindings?identity=${ci}`);
      expect(listed.body).toMatchObject({ roleBindings: [b], totalCount: "1", skipped: 0 });
    });

    it("lets anyone list their own bindings, and only their own, without role_bindings.list", async () => {
      const puller = await identity(group);
      const other = await identity(group);
      const pull = (await owner.get("/iam/v2beta1/roles?name=registry.pull")).body.roles[0].uid as string;
      await bind(owner, group, puller, pull);
      await bind(owner, group, other, pull);
      const api = await as(puller);
      const mine = await api.get(`/iam/v2beta1/roleBindings?identity=${puller}`);
      expect(mine.status).toBe(200);
      expect(mine.body.roleBindings.map((b: { identity: { uid: string } }) => b.identity.uid)).toEqual([puller]);
      expect(mine.body.totalCount).toBe("1");
      const theirs = await api.get(`/iam/v2beta1/roleBindings?identity=${other}`);
      expect(theirs.body.totalCount).toBe("0");
      expect((await api.get("/iam/v2beta1/roleBindings")).body.totalCount).toBe("0");
    });

    it("takes effect on the identity's very next request, and is gone on the next after its deletion", async () => {
      const bot = await identity(group);
      const api = await as(bot);
      expect((await api.get(`/iam/v2beta1/groups/${group}`)).status).toBe(403);
      const binding = await bind(owner, group, bot, viewer.uid);
      expect((await api.get(`/iam/v2beta1/groups/${group}`)).status).toBe(200);
      expect((await api.get(`/iam/v2beta1/groups/${org}`)).status).toBe(403);
      expect((await api.post(`/iam/v2beta1/groups/${group}`, { name: "not-allowed" })).status).toBe(403);
      expect(await owner.del(`/iam/v2beta1/roleBindings/${binding.body.uid}`)).toEqual({ status: 200, body: {} });
      expect((await api.get(`/iam/v2beta1/groups/${group}`)).status).toBe(403);
    });

    it("grants a custom role's capabilities exactly, and follows changes to the role", async () => {
      const role = await customRole(group, ["CAP_IAM_GROUPS_LIST"]);
      const bot = await identity(group);
      const api = await as(bot);
      expect((await bind(owner, group, bot, role)).status).toBe(200);
      expect((await api.get(`/iam/v2beta1/groups/${group}`)).status).toBe(200);
      expect((await api.post(`/iam/v2beta1/groups/${group}`, { name: "by-bot" })).status).toBe(403);
      expect((await api.get(`/iam/v2beta1/roles/${role}`)).status).toBe(403);
      expect((await api.get(`/iam/v2beta1/roleBindings?group=${group}`)).body).toMatchObject({ totalCount: "0" });

      const patched = await owner.patch(`/iam/v2beta1/roles/${role}`, { capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_IAM_GROUPS_CREATE"] });
      expect(patched.body.capabilities).toEqual(["CAP_IAM_GROUPS_CREATE", "CAP_IAM_GROUPS_LIST"]);
      expect((await api.post(`/iam/v2beta1/groups/${group}`, { name: "by-bot" })).status).toBe(200);
    });

    it("refuses to delete a bound role with code 9 and the spec's error shape", async () => {
      const role = await customRole(group, ["CAP_REPO_LIST"]);
      const binding = await bind(owner, group, await identity(group), role);
      const refused = await owner.del(`/iam/v2beta1/roles/${role}`);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe(9);
      expect(refused.body.message).toMatch(/^Precondition failed: \S/);
      expect(detailOf(refused.body, "google.rpc.ErrorInfo")).toMatchObject({ reason: "FAILED_PRECONDITION", domain: "iam.localhost" });
      const violation = detailOf(refused.body, "google.rpc.PreconditionFailure")?.violations?.[0];
      expect(violation).toMatchObject({ type: "RESOURCE_IN_USE", description: "cannot delete a role that is bound" });
      expect(refused.body.message).toBe(`Precondition failed: ${violation.description}`);

      await owner.del(`/iam/v2beta1/roleBindings/${binding.body.uid}`);
      expect(await owner.del(`/iam/v2beta1/roles/${role}`)).toEqual({ status: 200, body: {} });
      expect((await owner.get(`/iam/v2beta1/roles/${role}`)).body).toMatchObject({ code: 5, message: `Not found: role ${role}` });
    });

    it("deletes idempotently, but checks permission first", async () => {
      const binding = await bind(owner, group, await identity(group), viewer.uid);
      const path = `/iam/v2beta1/roleBindings/${binding.body.uid}`;
      expect(await owner.del(path)).toEqual({ status: 200, body: {} });
      expect(await owner.del(path)).toEqual({ status: 200, body: {} });
      expect(await owner.del(`/iam/v2beta1/roleBindings/${group}/0000000000000000`)).toEqual({ status: 200, body: {} });
      expect((await owner.get(path)).body).toMatchObject({ code: 5 });
      const stranger = restClient(t, await t.strangerToken());
      expect((await stranger.del(path)).body).toMatchObject({ code: 7 });
    });

    it("lets no one grant capabilities it does not hold", async () => {
      const granter = await identity(group);
      const grantRole = await customRole(group, ["CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_GROUPS_LIST"]);
      const readRole = await customRole(group, ["CAP_IAM_GROUPS_LIST"]);
      await bind(owner, group, granter, grantRole);
      const api = await as(granter);
      const target = await identity(group);

      const refused = await bind(api, group, target, viewer.uid);
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ code: 7, message: "Permission denied: the caller cannot grant capabilities it does not hold" });
      expect(detailOf(refused.body, "google.rpc.ErrorInfo")?.metadata?.missing).toContain("roles.list");
      expect((await bind(api, group, target, readRole)).status).toBe(200);
      expect((await bind(api, group, target, grantRole)).status).toBe(200);
      const above = await bind(api, org, target, readRole);
      expect(above.body.code).toBe(7);
    });

    it("binds a custom role only where it is defined and below", async () => {
      const role = await customRole(group, ["CAP_IAM_GROUPS_LIST"]);
      const sibling = (await owner.post(`/iam/v2beta1/groups/${org}`, { name: `sibling-${++n}` })).body.uid;
      const child = (await owner.post(`/iam/v2beta1/groups/${group}`, { name: `child-${++n}` })).body.uid;
      const bot = await identity(group);
      for (const at of [sibling, org]) {
        const res = await bind(owner, at, bot, role);
        expect(res.status).toBe(400);
        expect(violatedField(res.body)).toBe("roleUid");
      }
      expect((await bind(owner, child, bot, role)).status).toBe(200);
    });

    it("binds an organization's identity only inside it, and a person anywhere, even before first login", async () => {
      const other = await t.organization("elsewhere");
      const foreign = await restClient(t, other.token).post(`/iam/v2beta1/identities/${other.org.uid}`, {
        name: "foreign",
        claimMatch: { issuer: ISSUER, subject: "foreign" },
      });
      const res = await bind(owner, group, foreign.body.uid, viewer.uid);
      expect(res.status).toBe(400);
      expect(violatedField(res.body)).toBe("identityUid");

      const person = "abcdef0123456789abcdef0123456789abcdef01";
      const bound = await bind(owner, group, person, viewer.uid);
      expect(bound.status).toBe(200);
      expect(bound.body.identity).toEqual({ uid: person, name: "", description: "", subject: "", issuer: "" });
      await t.register(person); // their first login: a token of an unregistered uid is refused
      expect((await (await as(person)).get(`/iam/v2beta1/groups/${group}`)).status).toBe(200);
    });

    it.each([
      ["no identityUid", () => ({ roleUid: viewer.uid }), 400, "identityUid"],
      ["no roleUid", () => ({ identityUid: `${org}/00000000000000aa` }), 400, "roleUid"],
      ["a malformed identityUid", () => ({ identityUid: "bob", roleUid: viewer.uid }), 400, "identityUid"],
      ["a malformed roleUid", () => ({ identityUid: `${org}/00000000000000aa`, roleUid: "viewer" }), 400, "roleUid"],
      ["an unknown body field", () => ({ identityUid: `${org}/00000000000000aa`, roleUid: viewer.uid, group: "x" }), 400, undefined],
    ] as const)("refuses %s", async (_name, body, status, field) => {
      const res = await owner.post(`/iam/v2beta1/roleBindings/${group}`, body());
      expect(res.status).toBe(status);
      if (field !== undefined) expect(violatedField(res.body)).toBe(field);
    });

    it("answers NOT_FOUND for a missing role, identity or group, naming it", async () => {
      const bot = await identity(group);
      const noRole = "0".repeat(40);
      expect((await bind(owner, group, bot, noRole)).body).toMatchObject({ code: 5, message: `Not found: role ${noRole}` });
      const noIdentity = `${group}/00000000000000ff`;
      expect((await bind(owner, group, noIdentity, viewer.uid)).body).toMatchObject({
        code: 5,
        message: `Not found: identity ${noIdentity}`,
      });
      const noGroup = `${org}/00000000000000ff`;
      expect((await bind(owner, noGroup, bot, viewer.uid)).body).toMatchObject({ code: 5, message: `Not found: group ${noGroup}` });
      expect((await bind(owner, group, bot, viewer.uid)).status).toBe(200);
      expect((await bind(owner, group, bot, viewer.uid)).body).toMatchObject({ code: 6 });
    });

    it("changes a binding's role or identity with PATCH, under the same rules", async () => {
      const [a, b] = [await identity(group), await identity(group)];
      const role = await customRole(group, ["CAP_IAM_GROUPS_LIST"]);
      const { uid } = (await bind(owner, group, a, viewer.uid)).body;
      const byMask = await owner.patch(`/iam/v2beta1/roleBindings/${uid}?updateMask=roleUid`, { roleUid: role, identityUid: b });
      expect(byMask.status).toBe(200);
      expect(Object.keys(byMask.body).sort()).toEqual(["createTime", "group", "identity", "role", "uid"]);
      expect(byMask.body).toMatchObject({ uid, identity: { uid: a }, role: { uid: role } });
      const byBody = await owner.patch(`/iam/v2beta1/roleBindings/${uid}`, { identityUid: b });
      expect(byBody.body).toMatchObject({ uid, identity: { uid: b }, role: { uid: role } });
      expect((await owner.get(`/iam/v2beta1/roleBindings/${uid}`)).body).toEqual(byBody.body);

      const fromAbove = await customRole(org, ["CAP_IAM_GROUPS_LIST"]);
      const child = (await owner.post(`/iam/v2beta1/groups/${group}`, { name: `patch-child-${++n}` })).body.uid;
      const elsewhere = await customRole(child, ["CAP_IAM_GROUPS_LIST"]);
      expect(violatedField((await owner.patch(`/iam/v2beta1/roleBindings/${uid}`, { roleUid: elsewhere })).body)).toBe("roleUid");
      expect((await owner.patch(`/iam/v2beta1/roleBindings/${uid}`, { roleUid: fromAbove })).status).toBe(200);
      for (const mask of ["createTime", "identity", "uid", "group_uid"]) {
        const res = await owner.patch(`/iam/v2beta1/roleBindings/${uid}?updateMask=${mask}`, {});
        expect(violatedField(res.body), mask).toBe("update_mask");
      }
    });

    it("lists by identity, group and role, in create_time order, narrowed to what the caller may list", async () => {
      const team = (await owner.post(`/iam/v2beta1/groups/${group}`, { name: `list-team-${++n}` })).body.uid;
      const [a, b] = [await identity(group), await identity(group)];
      const role = await customRole(group, ["CAP_IAM_ROLE_BINDINGS_LIST"]);
      const made = [
        (await bind(owner, team, a, viewer.uid)).body,
        (await bind(owner, team, b, viewer.uid)).body,
        (await bind(owner, team, a, role)).body,
      ];
      const uids = (res: { body: Record<string, any> }) => res.body.roleBindings.map((x: { uid: string }) => x.uid);
      expect(uids(await owner.get(`/iam/v2beta1/roleBindings?group=${team}`))).toEqual(made.map((m) => m.uid));
      expect(uids(await owner.get(`/iam/v2beta1/roleBindings?group=${team}&order_by=create_time%20desc`))).toEqual(
        made.map((m) => m.uid).reverse(),
      );
      expect(uids(await owner.get(`/iam/v2beta1/roleBindings?group=${team}&identity=${a}`))).toEqual([made[0]!.uid, made[2]!.uid]);
      expect(uids(await owner.get(`/iam/v2beta1/roleBindings?uidp.children_of=${team}&role=${role}`))).toEqual([made[2]!.uid]);
      const page = await owner.get(`/iam/v2beta1/roleBindings?group=${team}&page_size=2`);
      expect(page.body).toMatchObject({ totalCount: "3" });
      expect(page.body.roleBindings.map((x: Record<string, any>) => x.role.name)).toEqual(["viewer", "viewer"]);
      const next = await owner.get(`/iam/v2beta1/roleBindings?group=${team}&page_size=2&page_token=${page.body.nextPageToken}`);
      expect(uids(next)).toEqual([made[2]!.uid]);

      // a holds role_bindings.list at team only: the bindings at team, nothing above.
      const asA = await as(a);
      const seen = await asA.get("/iam/v2beta1/roleBindings");
      expect(seen.body.totalCount).toBe("3");
      expect(uids(seen).sort()).toEqual(made.map((m) => m.uid).sort());

      for (const param of ["identity", "group", "role"]) {
        const res = await owner.get(`/iam/v2beta1/roleBindings?${param}=nope`);
        expect(violatedField(res.body), param).toBe(param);
      }
      expect(violatedField((await owner.get("/iam/v2beta1/roleBindings?order_by=name")).body)).toBe("order_by");
    });
  });
}
