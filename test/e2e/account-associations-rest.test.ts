/**
 * Account associations over REST, on every engine: one per group with the group's uid, CRUD,
 * lists, updates with and without a mask (a provider named but not sent is removed), every error
 * with its code and field, and an idempotent delete.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { restClient, violatedField, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE = "/iam/v2beta1/accountAssociations";
const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CLIENT = "0b2c6a1e-5d43-4f3a-9f7e-2b1c0d9e8f7a";

const full = {
  name: "acme accounts",
  description: "where acme runs",
  amazon: { account: "123456789012" },
  google: { projectId: "acme-prod", projectNumber: "987654321" },
  azure: { tenantId: TENANT, clientIds: { web: CLIENT } },
  github: { installations: [{ installationId: "9007199254740993", name: "acme" }, { installationId: 42 }] },
};

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`account associations over REST [${engine.name}]`, () => {
    let t: TestServer;
    let api: RestClient;
    let org: string;
    let team: string;
    let n = 0;

    /** A new group under parent; its uid. */
    const group = async (parent = org) => (await api.post(`/iam/v2beta1/groups/${parent}`, { name: `g-${++n}` })).body.uid as string;

    beforeAll(async () => {
      t = await startTestServer(engine);
      const made = await t.organization("assoc-org");
      org = made.org.uid;
      api = restClient(t, made.token);
      team = await group();
    });
    afterAll(() => t?.close());

    let created: Record<string, any>;

    it("creates a group's association with the group's uid, every provider shown", async () => {
      const { status, body } = await api.post(`${BASE}/${team}`, full);
      expect(status, JSON.stringify(body)).toBe(200);
      expect(Object.keys(body).sort()).toEqual([
        "amazon",
        "azure",
        "createTime",
        "description",
        "github",
        "google",
        "name",
        "uid",
        "updateTime",
      ]);
      expect(body).toMatchObject({
        uid: team,
        name: "acme accounts",
        description: "where acme runs",
        amazon: { account: "123456789012" },
        google: { projectId: "acme-prod", projectNumber: "987654321" },
        azure: { tenantId: TENANT, clientIds: { web: CLIENT } },
        github: {
          installations: [
            { installationId: "9007199254740993", name: "acme" },
            { installationId: "42", name: "" },
          ],
        },
      });
      expect(body.createTime).toMatch(TIME);
      expect(body.updateTime).toBe(body.createTime);
      created = body;
    });

    it("gets it by the group's uid", async () => {
      expect(await api.get(`${BASE}/${team}`)).toEqual({ status: 200, body: created });
    });

    it("keeps one association per group", async () => {
      const res = await api.post(`${BASE}/${team}`, { name: "second", amazon: { account: "210987654321" } });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 409, code: 6 });
      expect(res.body.message).toMatch(/^Already exists: /);
    });

    it("lists with filters, orders, pages and skip", async () => {
      const names = ["delta", "alpha", "charlie", "bravo"];
      const uids: Record<string, string> = {};
      const parent = await group();
      for (const name of names) {
        uids[name] = await group(parent);
        const res = await api.post(`${BASE}/${uids[name]}`, { name, google: { projectNumber: "1" } });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      const list = async (q: string) => {
        const res = await api.get(`${BASE}?${q}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body;
      };
      const namesOf = (body: Record<string, any>) => body.accountAssociations.map((a: { name: string }) => a.name);
      const under = await list(`uidp.descendants_of=${parent}`);
      expect(under).toMatchObject({ totalCount: "4", skipped: 0 });
      expect(namesOf(under)).toEqual(["alpha", "bravo", "charlie", "delta"]);
      expect(namesOf(await list(`uidp.children_of=${parent}&order_by=name%20desc`))).toEqual(["delta", "charlie", "bravo", "alpha"]);
      const byGroup = [...names].sort((a, b) => (uids[b]! < uids[a]! ? -1 : 1));
      expect(namesOf(await list(`uidp.children_of=${parent}&order_by=group%20desc`))).toEqual(byGroup);
      expect(namesOf(await list(`uidp.children_of=${parent}&order_by=created_at`))).toEqual(names);
      expect((await list(`uidp.descendants_of=${org}`)).totalCount).toBe("5");
      expect(
        (await list(`uidp.descendants_of=${org}&name=acme%20accounts`)).accountAssociations.map((a: { uid: string }) => a.uid),
      ).toEqual([team]);
      expect((await list(`uidp.ids=${uids.bravo}&uidp.ids=${uids.delta}`)).totalCount).toBe("2");
      const seen: string[] = [];
      let token = "";
      do {
        const page = await list(`uidp.descendants_of=${parent}&page_size=3${token ? `&page_token=${encodeURIComponent(token)}` : ""}`);
        seen.push(...namesOf(page));
        token = page.nextPageToken ?? "";
      } while (token !== "");
      expect(seen).toEqual(["alpha", "bravo", "charlie", "delta"]);
      const skipped = await list(`uidp.descendants_of=${parent}&page_size=2&skip=3`);
      expect(skipped).toMatchObject({ skipped: 3, totalCount: "4" });
      expect(namesOf(skipped)).toEqual(["delta"]);
      expect(violatedField((await api.get(`${BASE}?order_by=amazon`)).body)).toBe("order_by");
    });

    it("patches only the fields sent without a mask", async () => {
      const res = await api.patch(`${BASE}/${team}`, { description: "changed" });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ ...created, description: "changed", updateTime: res.body.updateTime });
      expect(res.body.updateTime >= created.updateTime).toBe(true);
    });

    it("changes one field of a provider by a nested body key, keeping its others", async () => {
      const res = await api.patch(`${BASE}/${team}`, { google: { projectNumber: "55" } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.google).toEqual({ projectId: "acme-prod", projectNumber: "55" });
      expect(res.body.amazon).toEqual(created.amazon);
    });

    it("takes back what GET gave", async () => {
      const { body: current } = await api.get(`${BASE}/${team}`);
      const res = await api.patch(`${BASE}/${team}`, current);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect({ ...res.body, updateTime: "" }).toEqual({ ...current, updateTime: "" });
    });

    it("with an updateMask changes exactly the paths named; a provider named but not sent is removed", async () => {
      const masked = await api.patch(`${BASE}/${team}?updateMask=description`, {
        name: "ignored",
        description: "masked",
        amazon: { account: "000000000000" },
      });
      expect(masked.status, JSON.stringify(masked.body)).toBe(200);
      expect(masked.body).toMatchObject({ name: "acme accounts", description: "masked", amazon: { account: "123456789012" } });
      const removed = await api.patch(`${BASE}/${team}?updateMask=amazon,github`, {});
      expect(removed.status, JSON.stringify(removed.body)).toBe(200);
      expect(removed.body).not.toHaveProperty("amazon");
      expect(removed.body).not.toHaveProperty("github");
      expect(removed.body).toHaveProperty("google");
      const nulled = await api.patch(`${BASE}/${team}`, { azure: null });
      expect(nulled.status, JSON.stringify(nulled.body)).toBe(200);
      expect(nulled.body).not.toHaveProperty("azure");
      const added = await api.patch(`${BASE}/${team}?updateMask=amazon`, { amazon: { account: "111111111111" } });
      expect(added.body.amazon).toEqual({ account: "111111111111" });
      expect((await api.get(`${BASE}/${team}`)).body).toEqual(added.body);
    });

    it.each<[string, () => string, unknown, number, number, string | undefined]>([
      ["a name breaking the pattern", () => team, { name: "Acme!", amazon: full.amazon }, 400, 3, "name"],
      ["no name", () => team, { amazon: full.amazon }, 400, 3, "name"],
      [
        "a description over 512 characters",
        () => team,
        { name: "x", description: "d".repeat(513), amazon: full.amazon },
        400,
        3,
        "description",
      ],
      ["no provider", () => team, { name: "x" }, 400, 3, "providers"],
      ["an AWS account of 11 digits", () => team, { name: "x", amazon: { account: "12345678901" } }, 400, 3, "amazon.account"],
      ["an empty AWS account", () => team, { name: "x", amazon: {} }, 400, 3, "amazon.account"],
      ["no project number", () => team, { name: "x", google: { projectId: "acme-prod" } }, 400, 3, "google.projectNumber"],
      ["a project number with letters", () => team, { name: "x", google: { projectNumber: "12a" } }, 400, 3, "google.projectNumber"],
      ["a bad project id", () => team, { name: "x", google: { projectId: "Acme", projectNumber: "1" } }, 400, 3, "google.projectId"],
      ["a tenant that is not a UUID", () => team, { name: "x", azure: { tenantId: "acme.onmicrosoft.com" } }, 400, 3, "azure.tenantId"],
      [
        "a client id that is not a UUID",
        () => team,
        { name: "x", azure: { tenantId: TENANT, clientIds: { web: "nope" } } },
        400,
        3,
        'azure.clientIds["web"]',
      ],
      ["no installations", () => team, { name: "x", github: { installations: [] } }, 400, 3, "github.installations"],
      [
        "installation id 0",
        () => team,
        { name: "x", github: { installations: [{ name: "zero" }] } },
        400,
        3,
        "github.installations[0].installationId",
      ],
      [
        "a negative installation id",
        () => team,
        { name: "x", github: { installations: [{ installationId: "-3" }] } },
        400,
        3,
        "github.installations[0].installationId",
      ],
      ["a missing group", () => `${org}/00000000000000ee`, { name: "x", amazon: full.amazon }, 404, 5, undefined],
      ["a malformed parent", () => "nope", { name: "x", amazon: full.amazon }, 400, 3, "parent"],
    ])("refuses %s on create", async (_name, parent, sent, status, code, field) => {
      // A fresh group for each case (but the missing and malformed ones), so ALREADY_EXISTS never masks the error.
      const at = parent() === team ? await group() : parent();
      const res = await api.post(`${BASE}/${at}`, sent);
      expect({ status: res.status, code: res.body.code, field: violatedField(res.body) }).toEqual({ status, code, field });
      if (field !== undefined) expect(res.body.message.startsWith(`Invalid argument: ${field}: `)).toBe(true);
    });

    it.each<[string, string, unknown, string]>([
      ["an output-only field in the mask", "?updateMask=createTime", {}, "update_mask"],
      ["an unknown field in the mask", "?updateMask=chainguard", {}, "update_mask"],
      ["an invalid name", "", { name: "UPPER" }, "name"],
      ["a bad AWS account", "", { amazon: { account: "12" } }, "amazon.account"],
      ["a bad project number by a nested key", "", { google: { projectNumber: "x" } }, "google.projectNumber"],
      ["removing every provider", "?updateMask=amazon,google,azure,github", {}, "providers"],
    ])("refuses %s on update", async (_name, query, sent, field) => {
      const res = await api.patch(`${BASE}/${team}${query}`, sent);
      expect({ status: res.status, code: res.body.code, field: violatedField(res.body) }).toEqual({ status: 400, code: 3, field });
    });

    it("answers NOT_FOUND for a missing association on get and update", async () => {
      const bare = await group();
      for (const res of [await api.get(`${BASE}/${bare}`), await api.patch(`${BASE}/${bare}`, { description: "x" })]) {
        expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
          status: 404,
          code: 5,
          message: `Not found: account association ${bare}`,
        });
      }
    });

    it("denies callers without access, whether or not the association exists", async () => {
      const stranger = restClient(t, await t.strangerToken());
      expect((await stranger.get(`${BASE}/${team}`)).status).toBe(403);
      expect((await stranger.del(`${BASE}/${org}/0000000000000000`)).status).toBe(403);
      expect((await stranger.get(`${BASE}?uidp.descendants_of=${org}`)).body).toMatchObject({ accountAssociations: [], totalCount: "0" });
    });

    it("deletes idempotently, answering {} whether or not there was one", async () => {
      const g = await group();
      expect((await api.post(`${BASE}/${g}`, { name: "short lived", amazon: full.amazon })).status).toBe(200);
      expect(await api.del(`${BASE}/${g}`)).toEqual({ status: 200, body: {} });
      expect((await api.get(`${BASE}/${g}`)).status).toBe(404);
      expect(await api.del(`${BASE}/${g}`)).toEqual({ status: 200, body: {} });
      expect((await api.post(`${BASE}/${g}`, { name: "again", amazon: full.amazon })).status).toBe(200);
    });

    it("goes with its group", async () => {
      const g = await group();
      expect((await api.post(`${BASE}/${g}`, { name: "with group", amazon: full.amazon })).status).toBe(200);
      expect((await api.del(`/iam/v2beta1/groups/${g}`)).status).toBe(200);
      expect((await api.get(`${BASE}/${g}`)).status).toBe(404);
      expect(await t.server.store.accountAssociations.get(g)).toBeUndefined();
    });
  });
}
