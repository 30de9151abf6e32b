/**
 * Event subscriptions over REST and gRPC (@grpc/grpc-js on the .proto contract), on every
 * engine: CRUD with the creator and delivery fields shown, lists with the usual rules, updates
 * with and without a mask, and every refused sink and type list with its code and field.
 */
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { call, failure, loadProtos } from "../support/grpc.js";
import { restClient, violatedField, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const BASE = "/events/v2beta1/subscriptions";
const pkg = loadProtos(["arbor/events/v2beta1/subscriptions.proto"]);

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`event subscriptions [${engine.name}]`, () => {
    let t: TestServer;
    let api: RestClient;
    let org: string;
    let token: string;
    let grpcClient: grpc.Client;

    beforeAll(async () => {
      t = await startTestServer(engine);
      const made = await t.organization("subs-org");
      org = made.org.uid;
      token = made.token;
      api = restClient(t, made.token);
      grpcClient = new pkg.arbor.events.v2beta1.SubscriptionsService(`127.0.0.1:${t.server.port}`, grpc.credentials.createInsecure());
    });
    afterAll(async () => {
      grpcClient?.close();
      await t?.close();
    });

    let created: Record<string, any>;

    it("creates a subscription with its creator, no delivery yet", async () => {
      const { status, body } = await api.post(`${BASE}/${org}`, {
        sink: "https://siem.example.com/in",
        types: ["dev.arbor.api.iam."],
        includeDescendants: true,
      });
      expect(status, JSON.stringify(body)).toBe(200);
      expect(body.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
      expect(body).toMatchObject({
        sink: "https://siem.example.com/in",
        types: ["dev.arbor.api.iam."],
        includeDescendants: true,
        creator: expect.stringMatching(/^[0-9a-f]{40}$/),
      });
      expect(body.lastDeliveryTime).toBeUndefined();
      created = body;
    });

    it("gets, lists (with totalCount and paging) and updates it", async () => {
      expect((await api.get(`${BASE}/${created.uid}`)).body.uid).toBe(created.uid);
      await api.post(`${BASE}/${org}`, { sink: "https://siem.example.com/second" });
      const page = await api.get(`${BASE}?uidp.children_of=${org}&page_size=1`);
      expect(page.status).toBe(200);
      expect(page.body.totalCount).toBe("2");
      expect(page.body.subscriptions).toHaveLength(1);
      const next = await api.get(`${BASE}?uidp.children_of=${org}&page_size=1&page_token=${encodeURIComponent(page.body.nextPageToken)}`);
      expect(next.body.subscriptions).toHaveLength(1);
      expect(next.body.subscriptions[0].uid).not.toBe(page.body.subscriptions[0].uid);
      const updated = await api.patch(`${BASE}/${created.uid}`, { sink: "https://siem.example.com/v2" });
      expect(updated.body).toMatchObject({ sink: "https://siem.example.com/v2", types: ["dev.arbor.api.iam."], includeDescendants: true });
      const masked = await api.patch(`${BASE}/${created.uid}?update_mask=types,include_descendants`, { types: [] });
      expect(masked.body).toMatchObject({ sink: "https://siem.example.com/v2", includeDescendants: false });
      expect(masked.body.types ?? []).toEqual([]);
    });

    it.each([
      ["no sink", {}, "sink"],
      ["not a URL", { sink: "siem" }, "sink"],
      ["plain http", { sink: "http://siem.example.com/in" }, "sink"],
      ["credentials", { sink: "https://user:pw@siem.example.com/in" }, "sink"],
      ["loopback", { sink: "https://127.0.0.1/in" }, "sink"],
      ["localhost", { sink: "https://localhost/in" }, "sink"],
      ["metadata address", { sink: "https://169.254.169.254/latest" }, "sink"],
      ["private address", { sink: "https://10.0.0.1/in" }, "sink"],
      ["a long sink", { sink: `https://siem.example.com/${"a".repeat(2048)}` }, "sink"],
      ["too many types", { sink: "https://s.example.com", types: Array.from({ length: 33 }, (_, i) => `t${i}`) }, "types"],
      ["a malformed type", { sink: "https://s.example.com", types: ["Dev Arbor"] }, "types"],
      ["a long type", { sink: "https://s.example.com", types: ["a".repeat(257)] }, "types"],
    ])("refuses %s with INVALID_ARGUMENT", async (_, body, field) => {
      const res = await api.post(`${BASE}/${org}`, body);
      expect({ status: res.status, code: res.body.code, field: violatedField(res.body) }).toEqual({ status: 400, code: 3, field });
    });

    it("refuses an output-only field in the mask and a missing subscription", async () => {
      const masked = await api.patch(`${BASE}/${created.uid}?update_mask=pending`, {});
      expect(masked.body.code).toBe(3);
      expect((await api.get(`${BASE}/${org}/0123456789abcdef`)).status).toBe(404);
    });

    it("holds an organization to 100 subscriptions", async () => {
      const other = await t.organization(`subs-limit`);
      const as = restClient(t, other.token);
      for (let i = 0; i < 100; i++)
        expect((await as.post(`${BASE}/${other.org.uid}`, { sink: `https://s.example.com/${i}` })).status).toBe(200);
      const res = await as.post(`${BASE}/${other.org.uid}`, { sink: "https://s.example.com/101" });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 400, code: 9 });
      expect(res.body.message).toBe("Precondition failed: an organization has at most 100 subscriptions");
    });

    it("holds the limit against creates racing at it: one passes, the rest are refused", async () => {
      const other = await t.organization(`subs-race`);
      const as = restClient(t, other.token);
      for (let i = 0; i < 99; i++)
        expect((await as.post(`${BASE}/${other.org.uid}`, { sink: `https://s.example.com/${i}` })).status).toBe(200);
      const racing = await Promise.all(
        Array.from({ length: 6 }, (_, i) => as.post(`${BASE}/${other.org.uid}`, { sink: `https://s.example.com/race-${i}` })),
      );
      expect(racing.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400]);
      expect((await as.get(`${BASE}?uidp.descendants_of=${other.org.uid}&page_size=1`)).body.totalCount).toBe("100");
    });

    it("serves the same over gRPC, and deletes", async () => {
      const made = await call(
        grpcClient,
        "createSubscription",
        { parent: org, subscription: { sink: "https://siem.example.com/grpc" } },
        token,
      );
      expect(made.sink).toBe("https://siem.example.com/grpc");
      expect((await call(grpcClient, "getSubscription", { uid: made.uid }, token)).uid).toBe(made.uid);
      const err = await failure(call(grpcClient, "createSubscription", { parent: org, subscription: { sink: "ftp://x" } }, token));
      expect(err.code).toBe(3);
      await call(grpcClient, "deleteSubscription", { uid: made.uid }, token);
      expect((await failure(call(grpcClient, "getSubscription", { uid: made.uid }, token))).code).toBe(5);
      expect((await api.del(`${BASE}/${created.uid}`)).status).toBe(200);
    });
  });
}
