/**
 * The spec's groups walk-through over REST, on every engine: exactly the spec's shapes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ROOT = /^[0-9a-f]{40}$/;

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`groups over REST [${engine.name}]`, () => {
    let t: TestServer;
    let org: string;
    let token: string;
    const names = [
      "alpha",
      "bravo",
      "charlie",
      "delta",
      "echo",
      "foxtrot",
      "golf",
      "hotel",
      "india",
      "juliet",
      "kilo",
      "lima",
      "mike",
      "november",
    ];
    const created: Record<string, { uid: string; createTime: string }> = {};

    beforeAll(async () => {
      t = await startTestServer(engine);
      ({ token } = await t.organization("walkthrough"));
    });
    afterAll(() => t?.close());

    const api = (path: string, init: RequestInit = {}) => t.fetch(path, { ...init, token });
    const json = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, any> });
    const post = (path: string, body: unknown) =>
      api(path, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } }).then(json);
    const patch = (path: string, body: unknown) =>
      api(path, { method: "PATCH", body: JSON.stringify(body), headers: { "content-type": "application/json" } }).then(json);
    const get = (path: string) => api(path).then(json);

    it("creates a root organization with POST /iam/v2beta1/groups", async () => {
      const { status, body } = await post("/iam/v2beta1/groups", { name: "acme corp", description: "the org" });
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(["createTime", "description", "name", "resourceLimits", "uid", "updateTime", "verified"]);
      expect(body).toMatchObject({ name: "acme corp", description: "the org", resourceLimits: {}, verified: false });
      expect(body.uid).toMatch(ROOT);
      expect(body.createTime).toMatch(TIME);
      expect(body.updateTime).toBe(body.createTime);
      org = body.uid;
    });

    it("creates child groups with the parent only in the path", async () => {
      for (const name of names) {
        const { status, body } = await post(`/iam/v2beta1/groups/${org}`, { name, description: `group ${name}` });
        expect(status).toBe(200);
        expect(body.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
        created[name] = { uid: body.uid, createTime: body.createTime };
      }
      const nested = await post(`/iam/v2beta1/groups/${created.alpha!.uid}`, { name: "deep" });
      expect(nested.body.uid).toMatch(new RegExp(`^${created.alpha!.uid}/[0-9a-f]{16}$`));
    });

    it("gets a group by uid", async () => {
      const { status, body } = await get(`/iam/v2beta1/groups/${created.bravo!.uid}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        uid: created.bravo!.uid,
        name: "bravo",
        description: "group bravo",
        verified: false,
        resourceLimits: {},
      });
    });

    it("lists the organization's direct children with totalCount as a string and skipped 0", async () => {
      const { status, body } = await get(`/iam/v2beta1/groups?uidp.children_of=${org}`);
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(["groups", "skipped", "totalCount"]);
      expect(body.totalCount).toBe("14");
      expect(body.skipped).toBe(0);
      expect(body.groups.map((g: { name: string }) => g.name)).toEqual([...names].sort());
    });

    it("counts every depth with uidp.descendants_of", async () => {
      const { body } = await get(`/iam/v2beta1/groups?uidp.descendants_of=${org}&page_size=1`);
      expect(body.totalCount).toBe("15");
    });

    it("walks pages with nextPageToken, keeping the order, with no repeats or gaps", async () => {
      const seen: string[] = [];
      let token = "";
      let pages = 0;
      do {
        const q = `uidp.children_of=${org}&page_size=4&order_by=name%20desc${token ? `&page_token=${encodeURIComponent(token)}` : ""}`;
        const { body } = await get(`/iam/v2beta1/groups?${q}`);
        expect(body.totalCount).toBe("14");
        seen.push(...body.groups.map((g: { name: string }) => g.name));
        token = body.nextPageToken ?? "";
        pages++;
      } while (token !== "");
      expect(pages).toBe(4);
      expect(seen).toEqual([...names].sort().reverse());
    });

    it("orders by name, name desc and created_at desc", async () => {
      const order = async (o: string) =>
        (await get(`/iam/v2beta1/groups?uidp.children_of=${org}&order_by=${encodeURIComponent(o)}`)).body.groups.map(
          (g: { name: string }) => g.name,
        );
      expect(await order("name")).toEqual([...names].sort());
      expect(await order("name desc")).toEqual([...names].sort().reverse());
      const byCreate = [...names].sort((a, b) => {
        const x = created[a]!,
          y = created[b]!;
        return y.createTime.localeCompare(x.createTime) || y.uid.localeCompare(x.uid);
      });
      expect(await order("created_at desc")).toEqual(byCreate);
    });

    it("skips: 14 matches, page_size 5, skip 10 give 4 items and skipped 10", async () => {
      const { body } = await get(`/iam/v2beta1/groups?uidp.children_of=${org}&page_size=5&skip=10`);
      expect(body.groups).toHaveLength(4);
      expect(body.skipped).toBe(10);
      expect(body.totalCount).toBe("14");
      expect(body.nextPageToken).toBeUndefined();
      expect(body.groups.map((g: { name: string }) => g.name)).toEqual([...names].sort().slice(10));
    });

    it("serves a GET with a cache-buster (_=...) as without it, and still refuses a misspelt filter", async () => {
      const plain = await get(`/iam/v2beta1/groups?uidp.children_of=${org}&page_size=3`);
      const busted = await get(`/iam/v2beta1/groups?uidp.children_of=${org}&page_size=3&_=1700000000`);
      const { nextPageToken, ...page } = busted.body;
      expect(page).toEqual({ ...plain.body, nextPageToken: undefined });
      // The page token is not bound to the cache-buster: the next page may come with another one, or none.
      const next = await get(`/iam/v2beta1/groups?uidp.children_of=${org}&page_size=3&page_token=${nextPageToken}&_=1700000001`);
      expect(next.body.groups.map((g: { name: string }) => g.name)).toEqual([...names].sort().slice(3, 6));
      expect((await get(`/iam/v2beta1/groups/${created.echo!.uid}?_=1700000000`)).status).toBe(200);
      const typo = await get(`/iam/v2beta1/groups?uidp.childern_of=${org}&_=1700000000`);
      expect(typo.status).toBe(400);
      expect(typo.body.message).toBe("Invalid argument: uidp.childern_of: unknown query parameter");
    });

    it("echoes in skipped how many were skipped, not more than matched", async () => {
      const { body } = await get(`/iam/v2beta1/groups?uidp.children_of=${org}&page_size=5&skip=500`);
      expect(body).toEqual({ groups: [], totalCount: "14", skipped: 14 });
    });

    it("filters by exact name, combinable with uidp.descendants_of", async () => {
      const { body } = await get(`/iam/v2beta1/groups?uidp.descendants_of=${org}&name=echo`);
      expect(body.totalCount).toBe("1");
      expect(body.groups[0].uid).toBe(created.echo!.uid);
      expect((await get(`/iam/v2beta1/groups?uidp.descendants_of=${org}&name=ech`)).body.totalCount).toBe("0");
    });

    it("patches only the fields sent when there is no updateMask", async () => {
      const { status, body } = await patch(`/iam/v2beta1/groups/${created.charlie!.uid}`, { description: "changed" });
      expect(status).toBe(200);
      expect(body).toMatchObject({ name: "charlie", description: "changed" });
      expect(body.updateTime >= body.createTime).toBe(true);
    });

    it("accepts back the group it served, changing only what differs (output-only fields ignored)", async () => {
      const { body: current } = await get(`/iam/v2beta1/groups/${created.echo!.uid}`);
      const { status, body } = await patch(`/iam/v2beta1/groups/${created.echo!.uid}`, { ...current, description: "round trip" });
      expect(status).toBe(200);
      expect(body).toMatchObject({ uid: created.echo!.uid, name: "echo", description: "round trip", createTime: current.createTime });
    });

    it("with updateMask=description changes description and ignores a name in the body", async () => {
      const { status, body } = await patch(`/iam/v2beta1/groups/${created.delta!.uid}?updateMask=description`, {
        name: "ignored",
        description: "masked",
      });
      expect(status).toBe(200);
      expect(body).toMatchObject({ name: "delta", description: "masked" });
    });

    it("takes a repeated updateMask as one list of paths", async () => {
      const { status, body } = await patch(`/iam/v2beta1/groups/${created.delta!.uid}?updateMask=name&updateMask=description`, {
        name: "delta two",
        description: "both masked",
      });
      expect(status).toBe(200);
      expect(body).toMatchObject({ name: "delta two", description: "both masked" });
      const back = await patch(`/iam/v2beta1/groups/${created.delta!.uid}?update_mask=name`, { name: "delta" });
      expect(back.body).toMatchObject({ name: "delta", description: "both masked" });
    });

    it.each(["Description", "description,Name", "claim_Match"])("names a mask path that is no field as sent: %s", async (mask) => {
      const sent = mask.split(",").at(-1);
      const { status, body } = await patch(`/iam/v2beta1/groups/${created.delta!.uid}?updateMask=${mask}`, { description: "x" });
      expect(status).toBe(400);
      expect(body.message).toBe(`Invalid argument: update_mask: unknown field "${sent}"`);
    });

    it("answers a name that breaks the pattern with the spec's validation error", async () => {
      const { status, body } = await post(`/iam/v2beta1/groups/${org}`, { name: "Not Valid!" });
      expect(status).toBe(400);
      expect(body.code).toBe(3);
      expect(body.message).toBe('Invalid argument: name: name must match "^[a-z0-9 ._-]{1,}$"');
      expect(body.details).toEqual([
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "INVALID_ARGUMENT", domain: "iam.localhost" },
        {
          "@type": "type.googleapis.com/google.rpc.BadRequest",
          fieldViolations: [{ field: "name", description: 'name must match "^[a-z0-9 ._-]{1,}$"' }],
        },
      ]);
      for (const d of body.details) expect(Object.keys(d)[0]).toBe("@type");
      const missing = await post(`/iam/v2beta1/groups/${org}`, { description: "no name" });
      expect(missing.body.details[1].fieldViolations[0].field).toBe("name");
    });

    it("refuses to delete a group that still holds children, with a precondition error", async () => {
      const res = await api(`/iam/v2beta1/groups/${created.alpha!.uid}`, { method: "DELETE" }).then(json);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(9);
      expect(res.body.message).toBe("Precondition failed: cannot delete group with child groups");
      expect(res.body.details[0]).toMatchObject({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "FAILED_PRECONDITION" });
      expect(res.body.details[1]).toMatchObject({
        "@type": "type.googleapis.com/google.rpc.PreconditionFailure",
        violations: [{ type: "RESOURCE_NOT_EMPTY", description: "cannot delete group with child groups" }],
      });
    });

    it("names every kind of child in the way of a delete, one violation each, the spec's repos one among them", async () => {
      const mixed = (await post(`/iam/v2beta1/groups/${org}`, { name: "mixed" })).body.uid as string;
      expect((await post(`/iam/v2beta1/groups/${mixed}`, { name: "sub" })).status).toBe(200);
      expect((await post(`/registry/v1/repos/${mixed}`, { name: "web" })).status).toBe(200);
      expect(
        (await post(`/iam/v2beta1/identities/${mixed}`, { name: "bot", claimMatch: { issuer: "https://issuer.example", subject: "s" } }))
          .status,
      ).toBe(200);
      const res = await api(`/iam/v2beta1/groups/${mixed}`, { method: "DELETE" }).then(json);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        code: 9,
        message: "Precondition failed: cannot delete group with child groups, child repos and child identities",
        details: [
          { "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "FAILED_PRECONDITION", domain: "iam.localhost" },
          {
            "@type": "type.googleapis.com/google.rpc.PreconditionFailure",
            violations: ["child groups", "child repos", "child identities"].map((what) => ({
              type: "RESOURCE_NOT_EMPTY",
              subject: mixed,
              description: `cannot delete group with ${what}`,
            })),
          },
        ],
      });
      expect((await get(`/iam/v2beta1/groups/${mixed}`)).status).toBe(200);
    });

    it("deletes a group answering {} and then it is gone", async () => {
      const res = await api(`/iam/v2beta1/groups/${created.november!.uid}`, { method: "DELETE" });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("{}");
      const gone = await get(`/iam/v2beta1/groups/${created.november!.uid}`);
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe(5);
      expect(gone.body.message).toBe(`Not found: group ${created.november!.uid}`);
    });

    it("keeps sibling names unique", async () => {
      const res = await post(`/iam/v2beta1/groups/${org}`, { name: "bravo" });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe(6);
    });

    it("serves the v1 list with items and id", async () => {
      const { status, body } = await get(`/iam/v1/groups?uidp.children_of=${org}&name=golf`);
      expect(status).toBe(200);
      expect(body).toEqual({
        items: [{ id: created.golf!.uid, name: "golf", description: "group golf", resourceLimits: {}, verified: false }],
      });
      expect((await get(`/iam/v1/groups?id=${created.golf!.uid}`)).body.items).toHaveLength(1);
    });
  });
}
