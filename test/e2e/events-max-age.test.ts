/**
 * An event a sink keeps failing is retried until it is ARBOR_EVENTS_MAX_AGE old, then dropped
 * with the reason on the subscription, and the events behind it go: on every engine, with the
 * server's clock moved past the age.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startEventReceiver, type EventReceiver } from "../support/event-receiver.js";
import { restClient, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const WAIT = { timeout: 15_000, interval: 50 };
const MAX_AGE = 60_000;

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`an event's maximum age [${engine.name}]`, () => {
    let t: TestServer;
    let api: RestClient;
    let org: string;
    let sink: EventReceiver;
    let offset = 0;

    beforeAll(async () => {
      t = await startTestServer(
        engine,
        { allowHttpLoopbackSinks: true, eventsMaxAgeMs: MAX_AGE },
        { clock: { now: () => Date.now() + offset } },
      );
      const made = await t.organization("max-age");
      org = made.org.uid;
      api = restClient(t, made.token);
      sink = await startEventReceiver(t.server.tokens.issuer);
    });
    afterAll(async () => {
      await t?.close();
      await sink?.close();
    });

    it("drops an event still failing at its maximum age, says so, and sends the next", async () => {
      sink.answer = () => 503;
      const sub = (
        await api.post(`/events/v2beta1/subscriptions/${org}`, {
          sink: sink.url,
          types: ["dev.arbor.api.iam.group."],
          includeDescendants: true,
        })
      ).body.uid as string;
      const old = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "old" })).body.uid as string;
      await expect.poll(() => sink.all.length, WAIT).toBeGreaterThan(0);
      // The sink has the request before Arbor records its answer: the subscription shows it just after.
      await expect.poll(async () => (await api.get(`/events/v2beta1/subscriptions/${sub}`)).body.lastError, WAIT).toMatch(/answered 503$/);
      const failing = (await api.get(`/events/v2beta1/subscriptions/${sub}`)).body;
      // Still within its age: the event waits for its next try, nothing is dropped.
      expect(Number(failing.pending)).toBeGreaterThan(0);
      offset = MAX_AGE + 10 * 60_000;
      await expect
        .poll(async () => (await api.get(`/events/v2beta1/subscriptions/${sub}`)).body.lastError, WAIT)
        .toMatch(/dropped after retrying for its maximum age$/);
      sink.answer = () => 200;
      const next = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "next" })).body.uid as string;
      await expect.poll(() => sink.accepted.map((r) => r.event.subject), WAIT).toEqual([next]);
      expect(sink.all.filter((r) => r.event.subject === old).every((r) => r.status === 503)).toBe(true);
    });
  });
}
