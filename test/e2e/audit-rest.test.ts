/**
 * The audit log over REST, on every engine: every successful change through the API is one
 * event (who, what, when, before and after), newest first; reads, refused changes and
 * ExplainExchange write none; invite codes never reach it; only holders of audit.read (owners)
 * read it, and only for their own subtree.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminIdentityUid } from "../../src/domain/identities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines, type EngineContext, type TestLocation } from "../support/engines.js";
import { execRaw } from "../support/raw-sql.js";
import { restClient, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer, storeAt } from "../support/server.js";

const EVENTS = "/audit/v1beta1/events";
const GROUPS = "/iam/v2beta1/groups";

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`audit log over REST [${engine.name}]`, () => {
    let t: TestServer;
    let owner: RestClient;
    let org: string;
    let viewer: RestClient;
    let otherOwner: RestClient;
    let inviteCode: string;

    const events = async (query: string, as = owner) => {
      const res = await as.get(`${EVENTS}?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    };

    beforeAll(async () => {
      t = await startTestServer(engine);
      const made = await t.organization("audited");
      org = made.org.uid;
      owner = restClient(t, made.token);
      const other = await t.organization("elsewhere");
      otherOwner = restClient(t, other.token);
      const ci = await owner.post(`/iam/v2beta1/identities/${org}`, {
        name: "ci",
        claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: "repo:acme/app:ref:refs/heads/main" },
      });
      expect(ci.status, JSON.stringify(ci.body)).toBe(200);
      const binding = await owner.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: ci.body.uid, roleUid: builtinRoleUid("viewer") });
      expect(binding.status).toBe(200);
      viewer = restClient(t, (await t.server.tokens.issue(ci.body.uid, t.url)).token);
    });
    afterAll(async () => {
      await t?.close();
    });

    it("records a create, an update and a delete with before and after, newest first", async () => {
      const created = await owner.post(`${GROUPS}/${org}`, { name: "team", description: "first" });
      const uid = created.body.uid as string;
      await owner.patch(`${GROUPS}/${uid}`, { description: "second" });
      expect((await owner.del(`${GROUPS}/${uid}`)).status).toBe(200);

      const page = await events(`resource_uid=${uid}`);
      expect(page.totalCount).toBe("3");
      const [deleted, updated, made] = page.events;
      expect(made).toMatchObject({
        method: "arbor.iam.v2beta1.GroupsService/CreateGroup",
        action: "create",
        resourceType: "arbor.iam.v2beta1.Group",
        resourceUid: uid,
        actor: { uid: adminIdentityUid(org) },
        after: { uid, name: "team", description: "first" },
      });
      expect(made.before).toBeUndefined();
      expect(made.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
      expect(updated).toMatchObject({ action: "update", before: { description: "first" }, after: { description: "second" } });
      expect(updated.uid).toMatch(new RegExp(`^${uid}/[0-9a-f]{16}$`));
      expect(deleted).toMatchObject({ action: "delete", resourceType: "arbor.iam.v2beta1.Group", before: { uid, description: "second" } });
      expect(deleted.after).toBeUndefined();
      expect(Date.parse(deleted.createTime)).toBeGreaterThanOrEqual(Date.parse(made.createTime));

      const one = await owner.get(`${EVENTS}/${updated.uid}`);
      expect(one).toEqual({ status: 200, body: updated });
    });

    it("records nothing for reads, refused changes and ExplainExchange", async () => {
      const before = (await events(`uidp.descendants_of=${org}&page_size=1`)).totalCount;
      await owner.get(`${GROUPS}?uidp.descendants_of=${org}`);
      expect((await owner.post(`${GROUPS}/${org}`, { name: "Not Valid!" })).status).toBe(400);
      expect((await viewer.post(`${GROUPS}/${org}`, { name: "sneaky" })).status).toBe(403);
      const ci = (await owner.get(`/iam/v2beta1/identities?uidp.children_of=${org}&name=ci`)).body.identities[0];
      const explained = await owner.post(`/iam/v2beta1/identities/${ci.uid}:explainExchange`, { token: "not-a-jwt" });
      expect(explained.status).toBeLessThan(500);
      expect((await events(`uidp.descendants_of=${org}&page_size=1`)).totalCount).toBe(before);
    });

    it("never writes an invite code: the event shows it redacted and no row holds it", async () => {
      const invite = await owner.post(`/iam/v2beta1/groupInvites/${org}`, { roleUid: builtinRoleUid("viewer"), ttl: "600s" });
      expect(invite.status, JSON.stringify(invite.body)).toBe(200);
      inviteCode = invite.body.code;
      const [event] = (await events(`resource_uid=${invite.body.uid}`)).events;
      expect(event.after.code).toBe("[redacted]");
      expect(event.after.keyId).toBe(invite.body.keyId);
      // Everything the store holds, as it holds it (before and after are its JSON columns, parsed).
      const rows = await t.server.deps.store.audit.list({ uidp: {} }, { order: [{ field: "uid", desc: false }], offset: 0, limit: 10_000 });
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(inviteCode);
    });

    it("is read by owners only, each within their own organization", async () => {
      const mine = await events(`uidp.descendants_of=${org}`);
      expect(Number(mine.totalCount)).toBeGreaterThan(3);
      // A viewer holds no audit.read: the list is empty and a get is refused.
      expect((await events("", viewer)).events).toEqual([]);
      expect((await viewer.get(`${EVENTS}/${mine.events[0].uid}`)).status).toBe(403);
      // Another organization's owner sees only their own organization's events.
      const theirs = await events("", otherOwner);
      expect(theirs.events.every((e: { uid: string }) => !e.uid.startsWith(org))).toBe(true);
      expect((await otherOwner.get(`${EVENTS}/${mine.events[0].uid}`)).status).toBe(403);
    });

    it("filters by actor and method and pages like every list", async () => {
      const byMethod = await events(`method=arbor.iam.v2beta1.GroupsService/CreateGroup&uidp.descendants_of=${org}`);
      expect(byMethod.events.length).toBeGreaterThan(0);
      expect(byMethod.events.every((e: { method: string }) => e.method.endsWith("/CreateGroup"))).toBe(true);
      const byActor = await events(`actor_uid=${adminIdentityUid(org)}&page_size=2`);
      expect(byActor.events).toHaveLength(2);
      const next = await events(`actor_uid=${adminIdentityUid(org)}&page_size=2&page_token=${encodeURIComponent(byActor.nextPageToken)}`);
      expect(next.events[0].uid).not.toBe(byActor.events[0].uid);
      expect(Date.parse(next.events[0].createTime)).toBeLessThanOrEqual(Date.parse(byActor.events[1].createTime));
      const bad = await owner.get(`${EVENTS}?order_by=name`);
      expect(bad.status).toBe(400);
    });

    it("counts every filter exactly: totalCount is the number of events its pages hold", async () => {
      const team = (await owner.post(`${GROUPS}/${org}`, { name: "counted" })).body.uid as string;
      await owner.post(`${GROUPS}/${team}`, { name: "inner" });
      await owner.patch(`${GROUPS}/${team}`, { description: "counted" });
      const all = async (query: string, as: RestClient) => {
        let seen = 0;
        let page = await events(`${query}&page_size=5`, as);
        const total = page.totalCount as string;
        for (;;) {
          seen += page.events.length;
          // Every page of one list carries the same total.
          expect(page.totalCount).toBe(total);
          if (page.nextPageToken === undefined || page.nextPageToken === "") break;
          page = await events(`${query}&page_size=5&page_token=${encodeURIComponent(page.nextPageToken)}`, as);
        }
        return { total: Number(total), seen };
      };
      const queries = [
        "",
        "method=arbor.iam.v2beta1.GroupsService/CreateGroup",
        `actor_uid=${adminIdentityUid(org)}`,
        `resource_uid=${team}`,
        `uidp.descendants_of=${org}`,
        `uidp.descendants_of=${team}`,
        `uidp.children_of=${org}`,
        `uidp.descendants_of=${org}&method=arbor.iam.v2beta1.GroupsService/UpdateGroup`,
        `method=arbor.iam.v2beta1.GroupsService/CreateGroup&actor_uid=${adminIdentityUid(org)}`,
      ];
      for (const query of queries) {
        for (const as of [owner, otherOwner, viewer]) {
          const { total, seen } = await all(query, as);
          expect(total, query).toBe(seen);
          if (as === owner) expect(total, query).toBeGreaterThan(0);
        }
      }
    });
  });
}

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`a change and its audit event [${engine.name}]`, () => {
    let t: TestServer;
    let location: TestLocation;
    const raw = () => ({ engine: engine.name, options: () => location.options }) as EngineContext;

    beforeAll(async () => {
      location = await engine.location();
      const o = location.options;
      t = await startTestServer(engine, storeAt(o));
    });
    afterAll(async () => {
      await t?.close();
      await location?.dispose();
    });

    it("land together: when the event cannot be written, the change is rolled back and the call fails", async () => {
      const made = await t.organization("atomic");
      const owner = restClient(t, made.token);
      expect((await owner.post(`${GROUPS}/${made.org.uid}`, { name: "kept" })).status).toBe(200);
      await execRaw(raw(), "alter table audit_events rename to audit_events_away");
      try {
        const refused = await owner.post(`${GROUPS}/${made.org.uid}`, { name: "unrecorded" });
        expect(refused.status).toBe(500);
        expect(refused.body).toMatchObject({ code: 13, message: "Internal error" });
        const renamed = await owner.patch(
          `${GROUPS}/${(await owner.get(`${GROUPS}?uidp.children_of=${made.org.uid}&name=kept`)).body.groups[0].uid}`,
          { description: "changed" },
        );
        expect(renamed.status).toBe(500);
      } finally {
        await execRaw(raw(), "alter table audit_events_away rename to audit_events");
      }
      const groups = (await owner.get(`${GROUPS}?uidp.children_of=${made.org.uid}`)).body.groups as { name: string; description: string }[];
      expect(groups).toEqual([expect.objectContaining({ name: "kept", description: "" })]);
      const events = (await owner.get(`${EVENTS}?uidp.descendants_of=${made.org.uid}`)).body.events as { method: string }[];
      expect(events.map((e) => e.method)).toEqual(["arbor.iam.v2beta1.GroupsService/CreateGroup"]);
    });
  });
}
