/**
 * Delivery to a real receiver on loopback, on every engine: the receiver reads each request with
 * the CloudEvents SDK and verifies its token against Arbor's JWKS. Events arrive in order, with
 * their attributes and a token for the sink; a replay sends them again from an event or a time;
 * a sink that is down receives the backlog in order
 * once up; a 400 drops that event and no other; another organization's subscription sees
 * nothing; a creator who loses access stops its subscription's deliveries; whoever gives it another
 * sink becomes its creator, so deliveries carry only what that identity may read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { startEventReceiver, type EventReceiver } from "../support/event-receiver.js";
import { restClient, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const SUBS = "/events/v2beta1/subscriptions";
const GROUP_TYPES = ["dev.arbor.api.iam.group."];
const WAIT = { timeout: 15_000, interval: 50 };

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`event delivery [${engine.name}]`, () => {
    let t: TestServer;
    let api: RestClient;
    let org: string;
    let n = 0;
    const receivers: EventReceiver[] = [];

    const receiver = async () => {
      const r = await startEventReceiver(t.server.tokens.issuer, `/sink-${++n}`);
      receivers.push(r);
      return r;
    };
    const subscribe = async (as: RestClient, parent: string, sink: string, extra: object = {}) => {
      const res = await as.post(`${SUBS}/${parent}`, { sink, types: GROUP_TYPES, includeDescendants: true, ...extra });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.uid as string;
    };
    const group = async (name = `g-${++n}`, parent = org, as = api) => {
      const res = await as.post(`/iam/v2beta1/groups/${parent}`, { name });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.uid as string;
    };
    const subjects = (r: EventReceiver) => r.accepted.map((x) => x.event.subject);

    beforeAll(async () => {
      t = await startTestServer(engine, { allowHttpLoopbackSinks: true });
      const made = await t.organization("delivery");
      org = made.org.uid;
      api = restClient(t, made.token);
    });
    afterAll(async () => {
      await t?.close();
      for (const r of receivers) await r.close();
    });

    it("delivers each change in order, verifiable with Arbor's keys", async () => {
      const sink = await receiver();
      const sub = await subscribe(api, org, sink.url);
      const made = [await group(), await group(), await group(), await group(), await group()];
      await expect.poll(() => subjects(sink), WAIT).toEqual(made);
      expect(sink.refused).toEqual([]);
      const first = sink.accepted[0];
      expect(first?.claims).toMatchObject({ iss: t.server.tokens.issuer, sub, aud: sink.url });
      expect((first?.claims.exp ?? 0) - (first?.claims.iat ?? 0)).toBeLessThanOrEqual(300);
      expect(first?.event).toMatchObject({
        specversion: "1.0",
        type: "dev.arbor.api.iam.group.created.v1",
        source: t.url,
        subject: made[0],
        group: made[0],
      });
      expect(first?.event.data).toMatchObject({ actor: { subject: expect.any(String) }, body: { uid: made[0], name: expect.any(String) } });
      // Arbor records a delivery once the sink has answered, so the subscription shows it just after.
      await expect.poll(async () => (await api.get(`${SUBS}/${sub}`)).body, WAIT).toMatchObject({ lastError: "", pending: "0" });
      expect((await api.get(`${SUBS}/${sub}`)).body.lastDeliveryTime).toBeDefined();
    });

    it("replays from an event or a time, and refuses an event it does not hold", async () => {
      const sink = await receiver();
      const sub = await subscribe(api, org, sink.url);
      const made = [await group(), await group(), await group()];
      await expect.poll(() => subjects(sink), WAIT).toEqual(made);
      const second = sink.accepted[1]?.event;
      const replayed = await api.post(`${SUBS}/${sub}:replay`, { fromEventId: second?.id });
      expect(replayed.status, JSON.stringify(replayed.body)).toBe(200);
      await expect.poll(() => subjects(sink), WAIT).toEqual([...made, made[1], made[2]]);
      const first = sink.accepted[0]?.event.time as string;
      expect((await api.post(`${SUBS}/${sub}:replay`, { fromTime: first })).status).toBe(200);
      await expect.poll(() => subjects(sink), WAIT).toEqual([...made, made[1], made[2], ...made]);
      const unknown = await api.post(`${SUBS}/${sub}:replay`, { fromEventId: "no-such-event" });
      expect({ status: unknown.status, code: unknown.body.code }).toEqual({ status: 404, code: 5 });
      const none = await api.post(`${SUBS}/${sub}:replay`, {});
      expect({ status: none.status, code: none.body.code }).toEqual({ status: 400, code: 3 });
    });

    it("keeps the backlog while the sink is down and delivers it in order once it is up", async () => {
      const sink = await receiver();
      sink.answer = () => 503;
      const sub = await subscribe(api, org, sink.url);
      const made = [await group(), await group(), await group()];
      await expect.poll(() => sink.all.length, WAIT).toBeGreaterThan(0);
      await expect.poll(async () => (await api.get(`${SUBS}/${sub}`)).body.lastError, WAIT).toMatch(/answered 503/);
      expect(Number((await api.get(`${SUBS}/${sub}`)).body.pending)).toBeGreaterThanOrEqual(3);
      sink.answer = () => 200;
      await expect.poll(() => subjects(sink), WAIT).toEqual(made);
      expect(sink.all.every((x) => x.event.subject === made[0] || x.status === 200)).toBe(true);
    });

    it("drops an event the sink answers 400, and only that one", async () => {
      const sink = await receiver();
      const bad = `bad-${++n}`;
      sink.answer = (e) => ((e.data as { body: { name: string } }).body.name === bad ? 400 : 200);
      const sub = await subscribe(api, org, sink.url);
      const dropped = await group(bad);
      const next = await group();
      await expect.poll(() => subjects(sink), WAIT).toEqual([next]);
      expect(sink.all.filter((x) => x.event.subject === dropped).map((x) => x.status)).toEqual([400]);
      // The sink has the next event before Arbor records its answer: the error clears just after.
      await expect.poll(async () => (await api.get(`${SUBS}/${sub}`)).body.lastError, WAIT).toBe("");
    });

    it("never shows one organization's events to another's subscription", async () => {
      const other = await t.organization("elsewhere");
      const otherApi = restClient(t, other.token);
      const theirs = await receiver();
      await subscribe(otherApi, other.org.uid, theirs.url);
      const ours = await receiver();
      await subscribe(api, org, ours.url);
      const mine = await group();
      const their = await group(`g-${++n}`, other.org.uid, otherApi);
      await expect.poll(() => subjects(ours), WAIT).toEqual([mine]);
      await expect.poll(() => subjects(theirs), WAIT).toEqual([their]);
    });

    it("stops delivering once the subscription's creator may no longer read the changes", async () => {
      const identity = await api.post(`/iam/v2beta1/identities/${org}`, {
        name: `creator-${++n}`,
        claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: `repo:acme/c${n}:ref:refs/heads/main` },
      });
      const binding = await api.post(`/iam/v2beta1/roleBindings/${org}`, {
        identityUid: identity.body.uid,
        roleUid: builtinRoleUid("editor"),
      });
      const creator = restClient(t, (await t.server.tokens.issue(identity.body.uid as string, t.url)).token);
      const sink = await receiver();
      const sub = await subscribe(creator, org, sink.url);
      const before = await group();
      await expect.poll(() => subjects(sink), WAIT).toEqual([before]);
      expect((await api.del(`/iam/v2beta1/roleBindings/${binding.body.uid}`)).status).toBe(200);
      const after = await group();
      // Passed over, not held: the subscription catches up with nothing sent.
      await expect.poll(async () => (await api.get(`${SUBS}/${sub}`)).body.pending, WAIT).toBe("0");
      expect(subjects(sink)).toEqual([before]);
      expect(subjects(sink)).not.toContain(after);
    });

    it("carries what whoever last chose its sink may read: subscriptions.update alone redirects nothing readable", async () => {
      const role = await api.post(`/iam/v2beta1/roles/${org}`, {
        name: `redirector-${++n}`,
        capabilities: ["CAP_EVENTS_SUBSCRIPTIONS_UPDATE", "CAP_EVENTS_SUBSCRIPTIONS_LIST"],
      });
      expect(role.status, JSON.stringify(role.body)).toBe(200);
      const identity = await api.post(`/iam/v2beta1/identities/${org}`, {
        name: `redirector-${n}`,
        claimMatch: { issuer: "https://token.actions.githubusercontent.com", subject: `repo:acme/r${n}:ref:refs/heads/main` },
      });
      const bound = await api.post(`/iam/v2beta1/roleBindings/${org}`, { identityUid: identity.body.uid, roleUid: role.body.uid });
      expect(bound.status, JSON.stringify(bound.body)).toBe(200);
      const redirector = restClient(t, (await t.server.tokens.issue(identity.body.uid as string, t.url)).token);
      const owners = await receiver();
      const sub = await subscribe(api, org, owners.url);
      const ownerUid = (await api.get(`${SUBS}/${sub}`)).body.creator as string;
      const first = await group();
      await expect.poll(() => subjects(owners), WAIT).toEqual([first]);

      // The owner changes what it carries and replays it: the owner stays its creator.
      const widened = await api.patch(`${SUBS}/${sub}?updateMask=types,sink`, {
        types: [...GROUP_TYPES, "dev.arbor.api.iam.role."],
        sink: owners.url,
      });
      expect(widened.status, JSON.stringify(widened.body)).toBe(200);
      expect(widened.body.creator).toBe(ownerUid);

      // Someone holding only subscriptions.update points it at their own receiver and replays it all.
      const theirs = await receiver();
      const moved = await redirector.patch(`${SUBS}/${sub}?updateMask=sink`, { sink: theirs.url });
      expect(moved.status, JSON.stringify(moved.body)).toBe(200);
      expect(moved.body.creator).toBe(identity.body.uid);
      expect((await redirector.post(`${SUBS}/${sub}:replay`, { fromTime: "2000-01-01T00:00:00Z" })).status).toBe(200);
      const later = await group();
      // Everything is passed over: the redirector may read no group.
      await expect.poll(async () => (await api.get(`${SUBS}/${sub}`)).body.pending, WAIT).toBe("0");
      expect(subjects(theirs)).toEqual([]);
      expect(subjects(owners)).not.toContain(later);
    });
  });
}
