/**
 * Roles over REST, on every engine: built-in roles for every caller, custom roles where the
 * caller may list them, and the rules of their capabilities.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_ROLES } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { restClient, violatedField, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const builtins = [...BUILTIN_ROLES.values()];
const viewer = BUILTIN_ROLES.get("viewer")!;

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`roles over REST [${engine.name}]`, () => {
    let t: TestServer;
    let owner: RestClient;
    let stranger: RestClient;
    let org: string;
    let group: string;
    let custom: Record<string, any>;

    beforeAll(async () => {
      t = await startTestServer(engine);
      const made = await t.organization("roles");
      org = made.org.uid;
      owner = restClient(t, made.token);
      stranger = restClient(t, await t.strangerToken());
      group = (await owner.post(`/iam/v2beta1/groups/${org}`, { name: "team" })).body.uid;
    });
    afterAll(() => t?.close());

    it("shows every caller the built-in roles, with their capabilities from code, in name order", async () => {
      const res = await stranger.get("/iam/v2beta1/roles");
      expect(res.status).toBe(200);
      expect(res.body.totalCount).toBe(String(builtins.length));
      expect(res.body.roles.map((r: { name: string }) => r.name)).toEqual(builtins.map((r) => r.name).sort());
      const shown = res.body.roles.find((r: { name: string }) => r.name === "viewer");
      expect(Object.keys(shown).sort()).toEqual(["capabilities", "createTime", "description", "name", "uid", "updateTime"]);
      expect(shown).toMatchObject({ uid: viewer.uid, description: "Viewer Role (built-in)" });
      expect(shown.capabilities).toContain("CAP_IAM_GROUPS_LIST");
      expect(shown.capabilities).not.toContain("CAP_IAM_GROUPS_CREATE");
      expect(shown.capabilities).toHaveLength(viewer.capabilities.size);
      expect(shown.createTime).toMatch(TIME);
      expect((await stranger.get(`/iam/v2beta1/roles/${viewer.uid}`)).body).toEqual(shown);
    });

    it("creates a custom role: capabilities once each, in catalogue order, as enum names", async () => {
      const res = await owner.post(`/iam/v2beta1/roles/${group}`, {
        name: "reader",
        description: "reads groups",
        capabilities: ["CAP_REPO_LIST", "CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST", 103],
      });
      expect(res.status).toBe(200);
      custom = res.body;
      expect(custom.uid).toMatch(new RegExp(`^${group}/[0-9a-f]{16}$`));
      expect(custom).toMatchObject({ name: "reader", description: "reads groups", capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"] });
      expect((await owner.get(`/iam/v2beta1/roles/${custom.uid}`)).body).toEqual(custom);
    });

    it.each([
      ["no capabilities", { name: "x", capabilities: [] }, "capabilities"],
      ["no capabilities field", { name: "x" }, "capabilities"],
      ["CAPABILITY_UNSPECIFIED", { name: "x", capabilities: ["CAPABILITY_UNSPECIFIED"] }, "capabilities"],
      ["an unknown number", { name: "x", capabilities: [9999] }, "capabilities"],
      [
        "an unknown name (refused by the JSON decoder, naming the element)",
        { name: "x", capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_NOPE"] },
        "capabilities[1]",
      ],
      ["a bad name", { name: "Reader", capabilities: ["CAP_IAM_GROUPS_LIST"] }, "name"],
    ])("refuses a role with %s", async (_name, body, field) => {
      const res = await owner.post(`/iam/v2beta1/roles/${group}`, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(3);
      expect(violatedField(res.body)).toBe(field);
    });

    it("refuses a second role of the same name in a group", async () => {
      const res = await owner.post(`/iam/v2beta1/roles/${group}`, { name: "reader", capabilities: ["CAP_TAG_LIST"] });
      expect(res.body.code).toBe(6);
    });

    it("lists custom roles only where the caller holds roles.list; filters by hierarchy and name", async () => {
      const names = async (client: RestClient, query = "") =>
        (await client.get(`/iam/v2beta1/roles${query}`)).body.roles.map((r: { name: string }) => r.name);
      expect(await names(owner)).toContain("reader");
      expect(await names(stranger)).not.toContain("reader");
      expect(await names(owner, "?uidp.in_root=true")).toEqual(builtins.map((r) => r.name).sort());
      expect(await names(owner, `?uidp.descendants_of=${org}`)).toEqual(["reader"]);
      expect(await names(owner, "?name=reader")).toEqual(["reader"]);
      expect(await names(owner, "?name=viewer")).toEqual(["viewer"]);
      const page = await owner.get("/iam/v2beta1/roles?order_by=create_time%20desc,name&page_size=1");
      expect(page.body.roles[0].name).toBe("reader");
      expect(page.body.totalCount).toBe(String(builtins.length + 1));
      expect(violatedField((await owner.get("/iam/v2beta1/roles?order_by=capabilities")).body)).toBe("order_by");
    });

    it("gets a custom role only with roles.list on it, checked before whether it exists", async () => {
      expect((await stranger.get(`/iam/v2beta1/roles/${custom.uid}`)).body.code).toBe(7);
      expect((await stranger.get(`/iam/v2beta1/roles/${group}/0000000000000000`)).body.code).toBe(7);
      const missing = `${group}/0000000000000000`;
      expect((await owner.get(`/iam/v2beta1/roles/${missing}`)).body).toMatchObject({ code: 5, message: `Not found: role ${missing}` });
      expect((await owner.get("/iam/v2beta1/roles/nope")).body).toMatchObject({ code: 3 });
    });

    it("updates a custom role by mask or by the fields sent", async () => {
      const renamed = await owner.patch(`/iam/v2beta1/roles/${custom.uid}?updateMask=description`, { name: "ignored", description: "now" });
      expect(renamed.body).toMatchObject({ name: "reader", description: "now", capabilities: custom.capabilities });
      const recapped = await owner.patch(`/iam/v2beta1/roles/${custom.uid}`, { capabilities: ["CAP_TAG_LIST"] });
      expect(recapped.body).toMatchObject({ name: "reader", description: "now", capabilities: ["CAP_TAG_LIST"] });
      expect(recapped.body.createTime).toBe(custom.createTime);
      expect(violatedField((await owner.patch(`/iam/v2beta1/roles/${custom.uid}`, { capabilities: [] })).body)).toBe("capabilities");
      expect(violatedField((await owner.patch(`/iam/v2beta1/roles/${custom.uid}?updateMask=capabilities`, {})).body)).toBe("capabilities");
      expect(violatedField((await owner.patch(`/iam/v2beta1/roles/${custom.uid}?updateMask=createTime`, {})).body)).toBe("update_mask");
    });

    it("never changes or deletes a built-in role: roles.update and roles.delete are held at no root-level uid", async () => {
      expect((await owner.patch(`/iam/v2beta1/roles/${viewer.uid}`, { description: "mine" })).body.code).toBe(7);
      expect((await owner.del(`/iam/v2beta1/roles/${viewer.uid}`)).body.code).toBe(7);
      expect((await owner.get(`/iam/v2beta1/roles/${viewer.uid}`)).body.description).toBe("Viewer Role (built-in)");
    });

    it("deletes a custom role; a missing one is NOT_FOUND", async () => {
      expect(await owner.del(`/iam/v2beta1/roles/${custom.uid}`)).toEqual({ status: 200, body: {} });
      expect((await owner.del(`/iam/v2beta1/roles/${custom.uid}`)).body).toMatchObject({
        code: 5,
        message: `Not found: role ${custom.uid}`,
      });
      expect((await stranger.del(`/iam/v2beta1/roles/${custom.uid}`)).body.code).toBe(7);
    });
  });
}
