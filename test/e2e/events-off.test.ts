/**
 * ARBOR_EVENTS=off on every engine (docs/events.md#turning-events-off): a change made through the
 * API, or a registry push, writes its audit event and no outbox row; subscriptions cannot be
 * created or replayed (FAILED_PRECONDITION, EVENTS_OFF) but can still be listed and deleted.
 * The same calls on a server with events on (the default) write one row each.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegistryIndex } from "../../src/services/registry/registry-index.js";
import { engines } from "../support/engines.js";
import { restClient, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const SUBSCRIPTIONS = "/events/v2beta1/subscriptions";
const digest = `sha256:${"c".repeat(64)}`;

for (const engine of engines) {
  for (const events of [true, false]) {
    describe.skipIf(engine.skipReason !== undefined)(`events ${events ? "on" : "off"} [${engine.name}]`, () => {
      let t: TestServer;
      let api: RestClient;
      let org: string;

      /** Every outbox row of the organization, committed or not yet settled. */
      const rows = () => t.server.store.outbox.pending({ xid: 0, position: 0 }, { groupUid: org, includeDescendants: true });

      beforeAll(async () => {
        t = await startTestServer(engine, { events });
        const made = await t.organization(`events-${events ? "on" : "off"}`);
        org = made.org.uid;
        api = restClient(t, made.token);
      });
      afterAll(() => t?.close());

      it(`a change through the API writes its audit event and ${events ? "one outbox row" : "no outbox row"}`, async () => {
        expect(await rows()).toBe(0);
        const { status, body } = await api.post(`/iam/v2beta1/groups/${org}`, { name: "team" });
        expect(status, JSON.stringify(body)).toBe(200);
        expect(await t.server.store.audit.count({ uidp: { descendantsOf: org }, resourceUid: body.uid as string })).toBe(1);
        expect(await rows()).toBe(events ? 1 : 0);
      });

      it(`a registry push writes ${events ? "one outbox row" : "no outbox row"}`, async () => {
        const before = await rows();
        const index = createRegistryIndex(t.server.deps);
        await index.pushed({ repository: `events-${events ? "on" : "off"}/app`, tag: "v1", digest, time: 1_700_000_000_000 });
        expect((await index.resolve(`events-${events ? "on" : "off"}/app`))?.repoUid).toBeDefined();
        expect((await rows()) - before).toBe(events ? 1 : 0);
      });

      it(events ? "creates a subscription" : "refuses to create a subscription, and says why", async () => {
        const { status, body } = await api.post(`${SUBSCRIPTIONS}/${org}`, { sink: "https://siem.example.com/in" });
        if (events) {
          expect(status, JSON.stringify(body)).toBe(200);
          return;
        }
        expect(status).toBe(400);
        expect(body.code).toBe(9); // FAILED_PRECONDITION
        expect(body.message).toMatch(/events are off on this server \(ARBOR_EVENTS=off\)/);
        expect(JSON.stringify(body.details)).toContain("EVENTS_OFF");
        expect(await rows()).toBe(0);
      });

      if (!events)
        it("refuses to replay a subscription", async () => {
          const { status, body } = await api.post(`${SUBSCRIPTIONS}/${org}/0000000000000001:replay`, { fromTime: "2026-01-01T00:00:00Z" });
          expect(status).toBe(400);
          expect(JSON.stringify(body.details)).toContain("EVENTS_OFF");
        });

      it("still lists subscriptions", async () => {
        const { status, body } = await api.get(`${SUBSCRIPTIONS}?uidp.descendants_of=${org}`);
        expect(status, JSON.stringify(body)).toBe(200);
        expect(((body.subscriptions as unknown[] | undefined) ?? []).length).toBe(events ? 1 : 0);
      });
    });
  }
}
