/**
 * Group invites over REST, on every engine: the code appears once, in the create response, and is
 * stored only as its SHA-256; the role is hydrated; no one invites to a role that grants more
 * than they hold; lists, updates and every error with its code and field.
 */
import { createHash } from "node:crypto";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userIdentityUid } from "../../src/domain/identities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines, withClient, type TestLocation } from "../support/engines.js";
import { restClient, violatedField, type JsonResponse, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer, storeAt } from "../support/server.js";

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const BASE = "/iam/v2beta1/groupInvites";
const VIEWER = builtinRoleUid("viewer");
const OWNER = builtinRoleUid("owner");
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const ms = (time: string) => Date.parse(time);

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`group invites over REST [${engine.name}]`, () => {
    let t: TestServer;
    let location: TestLocation;
    let api: RestClient;
    let org: string;
    let team: string;
    let other: string;
    let orgRole: string;
    let otherRole: string;
    let n = 0;
    /** Every response but the create ones, which alone may carry a code. */
    const responses: JsonResponse[] = [];
    const codes: string[] = [];

    const scanned = (client: RestClient): RestClient => {
      const keep = async (p: Promise<JsonResponse>) => {
        const res = await p;
        responses.push(res);
        return res;
      };
      return {
        get: (p) => keep(client.get(p)),
        post: client.post,
        patch: (p, b) => keep(client.patch(p, b)),
        del: (p) => keep(client.del(p)),
      };
    };

    /** Every row of group_invites, every column, straight from the database. */
    async function rawInvites(): Promise<Record<string, unknown>[]> {
      const o = location.options;
      if (o.databaseUrl !== undefined) {
        return withClient(
          o.databaseUrl,
          async (c) => (await c.query(`select * from "${o.schema}".group_invites`)).rows as Record<string, unknown>[],
        );
      }
      const db = new BetterSqlite3(join(o.dataDir, "arbor.db"), { readonly: true, fileMustExist: true });
      try {
        return db.prepare("select * from group_invites").all() as Record<string, unknown>[];
      } finally {
        db.close();
      }
    }

    const invite = async (parent: string, body: Record<string, unknown>) => {
      const res = await api.post(`${BASE}/${parent}`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      codes.push(res.body.code);
      return res.body;
    };

    beforeAll(async () => {
      location = await engine.location();
      const o = location.options;
      t = await startTestServer(engine, storeAt(o));
      const made = await t.organization("invite-org");
      org = made.org.uid;
      api = scanned(restClient(t, made.token));
      team = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "team" })).body.uid;
      other = (await api.post(`/iam/v2beta1/groups/${org}`, { name: "other" })).body.uid;
      orgRole = (await api.post(`/iam/v2beta1/roles/${org}`, { name: "lister", capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"] }))
        .body.uid;
      otherRole = (await api.post(`/iam/v2beta1/roles/${other}`, { name: "other", capabilities: ["CAP_IAM_GROUPS_LIST"] })).body.uid;
    });
    afterAll(async () => {
      await t?.close();
      await location?.dispose();
    });

    let created: Record<string, any>;

    it("creates an invite: the code once, a key id, the role hydrated, expiration = now + ttl", async () => {
      const before = Date.now();
      created = await invite(team, { roleUid: VIEWER, ttl: "3600s", email: "ada@example.com", singleUse: true });
      const after = Date.now();
      expect(Object.keys(created).sort()).toEqual([
        "code",
        "createTime",
        "email",
        "expirationTime",
        "keyId",
        "role",
        "roleUid",
        "singleUse",
        "uid",
      ]);
      expect(created.uid).toMatch(new RegExp(`^${team}/[0-9a-f]{16}$`));
      expect(created).toMatchObject({ roleUid: VIEWER, email: "ada@example.com", singleUse: true });
      expect(created.role).toMatchObject({ uid: VIEWER, name: "viewer", description: "Viewer Role (built-in)" });
      expect(created.role.capabilities).toContain("CAP_IAM_GROUPS_LIST");
      expect(created.role.capabilities).not.toContain("CAP_IAM_GROUPS_CREATE");
      expect(created.code).toMatch(/^arbinv_[A-Za-z0-9_-]{43}$/);
      expect(created.keyId).toBe(sha256(created.code).slice(0, 16));
      expect(created.createTime).toMatch(TIME);
      expect(ms(created.createTime)).toBeGreaterThanOrEqual(before - 1);
      expect(ms(created.createTime)).toBeLessThanOrEqual(after);
      expect(ms(created.expirationTime) - ms(created.createTime)).toBe(3_600_000);
    });

    it("stores only the code's SHA-256, and finds the invite by it", async () => {
      const record = await t.server.store.groupInvites.get(created.uid);
      expect(record?.codeHash).toBe(sha256(created.code));
      expect((await t.server.store.groupInvites.findByCodeHash(sha256(created.code)))?.uid).toBe(created.uid);
      const rows = await rawInvites();
      expect(rows.length).toBeGreaterThan(0);
      const secret = created.code.slice("arbinv_".length);
      for (const row of rows) {
        for (const value of Object.values(row)) {
          expect(String(value)).not.toContain(secret);
        }
      }
      expect(rows.find((r) => r.uid === created.uid)?.code_hash).toBe(sha256(created.code));
    });

    it("gets it by uid, without the code", async () => {
      const { code: _code, ...rest } = created;
      expect(await api.get(`${BASE}/${created.uid}`)).toEqual({ status: 200, body: rest });
    });

    it("lists newest first by default, with filters, orders, pages and skip", async () => {
      const made = [created];
      for (const [i, ttl] of ["7200s", "60s", "86400s", "600s"].entries()) {
        made.push(await invite(i % 2 === 0 ? team : other, { roleUid: i === 1 ? orgRole : VIEWER, ttl }));
      }
      const list = async (q: string) => {
        const res = await api.get(`${BASE}?${q}`);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        return res.body;
      };
      const uidsOf = (body: Record<string, any>) => body.groupInvites.map((i: { uid: string }) => i.uid);
      const newest = [...made].sort((a, b) => ms(b.createTime) - ms(a.createTime) || (b.uid < a.uid ? -1 : 1)).map((i) => i.uid);
      const all = await list(`uidp.descendants_of=${org}`);
      expect(all).toMatchObject({ totalCount: "5", skipped: 0 });
      expect(uidsOf(all)).toEqual(newest);
      expect(uidsOf(await list(`uidp.descendants_of=${org}&order_by=created_at%20desc`))).toEqual(newest);
      const soonest = [...made].sort((a, b) => ms(a.expirationTime) - ms(b.expirationTime) || (a.uid < b.uid ? -1 : 1)).map((i) => i.uid);
      expect(uidsOf(await list(`uidp.descendants_of=${org}&order_by=expiration_time`))).toEqual(soonest);
      expect((await list(`uidp.children_of=${other}`)).totalCount).toBe("2");
      expect(uidsOf(await list(`key_id=${made[2]!.keyId}`))).toEqual([made[2]!.uid]);
      expect((await list(`key_id=${made[2]!.keyId}&uidp.descendants_of=${team}`)).totalCount).toBe("0");
      const custom = (await list(`key_id=${made[2]!.keyId}`)).groupInvites[0];
      expect(custom.role).toEqual({
        uid: orgRole,
        name: "lister",
        description: "",
        capabilities: ["CAP_IAM_GROUPS_LIST", "CAP_REPO_LIST"],
      });
      const seen: string[] = [];
      let token = "";
      do {
        const page = await list(`uidp.descendants_of=${org}&page_size=2${token ? `&page_token=${encodeURIComponent(token)}` : ""}`);
        seen.push(...uidsOf(page));
        token = page.nextPageToken ?? "";
      } while (token !== "");
      expect(seen).toEqual(newest);
      const skipped = await list(`uidp.descendants_of=${org}&page_size=2&skip=4`);
      expect(skipped).toMatchObject({ skipped: 4, totalCount: "5" });
      expect(uidsOf(skipped)).toEqual(newest.slice(4));
      expect(violatedField((await api.get(`${BASE}?order_by=email`)).body)).toBe("order_by");
      expect(violatedField((await api.get(`${BASE}?key_id=NOT-HEX`)).body)).toBe("key_id");
    });

    it("patches only the fields sent without a mask", async () => {
      const res = await api.patch(`${BASE}/${created.uid}`, { email: "grace@example.com" });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { code: _code, ...rest } = created;
      expect(res.body).toEqual({ ...rest, email: "grace@example.com" });
    });

    it("extends the expiration to now + ttl", async () => {
      const before = Date.now();
      const res = await api.patch(`${BASE}/${created.uid}`, { ttl: "86400s" });
      const after = Date.now();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(ms(res.body.expirationTime)).toBeGreaterThanOrEqual(before - 1 + 86_400_000);
      expect(ms(res.body.expirationTime)).toBeLessThanOrEqual(after + 86_400_000);
      expect(res.body.createTime).toBe(created.createTime);
    });

    it("with an updateMask changes exactly the paths named", async () => {
      const res = await api.patch(`${BASE}/${created.uid}?updateMask=single_use`, { email: "ignored@example.com" });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ singleUse: false, email: "grace@example.com" });
    });

    it("takes back what GET gave, its role included", async () => {
      const { body: current } = await api.get(`${BASE}/${created.uid}`);
      const res = await api.patch(`${BASE}/${created.uid}`, { ...current, email: "" });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ ...current, email: "" });
    });

    it.each<[string, () => string, () => unknown, number, number, string | undefined]>([
      ["no role", () => team, () => ({ ttl: "60s" }), 400, 3, "roleUid"],
      ["a malformed role", () => team, () => ({ roleUid: "viewer", ttl: "60s" }), 400, 3, "roleUid"],
      ["a custom role of a sibling group", () => team, () => ({ roleUid: otherRole, ttl: "60s" }), 400, 3, "roleUid"],
      ["a missing role", () => team, () => ({ roleUid: `${org}/00000000000000ff`, ttl: "60s" }), 404, 5, undefined],
      ["no ttl", () => team, () => ({ roleUid: VIEWER }), 400, 3, "ttl"],
      ["a zero ttl", () => team, () => ({ roleUid: VIEWER, ttl: "0s" }), 400, 3, "ttl"],
      ["a negative ttl", () => team, () => ({ roleUid: VIEWER, ttl: "-60s" }), 400, 3, "ttl"],
      ["a ttl over 30 days", () => team, () => ({ roleUid: VIEWER, ttl: "2592001s" }), 400, 3, "ttl"],
      ["an implausible email", () => team, () => ({ roleUid: VIEWER, ttl: "60s", email: "ada at example" }), 400, 3, "email"],
      ["a missing group", () => `${org}/00000000000000ee`, () => ({ roleUid: VIEWER, ttl: "60s" }), 404, 5, undefined],
      ["a malformed parent", () => "nope", () => ({ roleUid: VIEWER, ttl: "60s" }), 400, 3, "parent"],
    ])("refuses %s on create", async (_name, parent, sent, status, code, field) => {
      const res = await api.post(`${BASE}/${parent()}`, sent());
      expect({ status: res.status, code: res.body.code, field: violatedField(res.body) }).toEqual({ status, code, field });
      if (field !== undefined) expect(res.body.message.startsWith(`Invalid argument: ${field}: `)).toBe(true);
      expect(res.body).not.toHaveProperty("code", expect.any(String));
    });

    it.each<[string, string, () => unknown, string]>([
      ["an output-only field in the mask", "?updateMask=keyId", () => ({}), "update_mask"],
      ["the code in the mask", "?updateMask=code", () => ({}), "update_mask"],
      ["an unknown field in the mask", "?updateMask=colour", () => ({}), "update_mask"],
      ["another role", "", () => ({ roleUid: orgRole }), "roleUid"],
      ["an implausible email", "", () => ({ email: "nope" }), "email"],
      ["a ttl over 30 days", "", () => ({ ttl: "2678400s" }), "ttl"],
      ["ttl named in the mask but not sent", "?updateMask=ttl", () => ({}), "ttl"],
    ])("refuses %s on update", async (_name, query, sent, field) => {
      const res = await api.patch(`${BASE}/${created.uid}${query}`, sent());
      expect({ status: res.status, code: res.body.code, field: violatedField(res.body) }).toEqual({ status: 400, code: 3, field });
    });

    it("lets no one invite to a role that grants more than they hold", async () => {
      const inviter = await api.post(`/iam/v2beta1/roles/${org}`, {
        name: "inviter",
        capabilities: ["CAP_IAM_GROUP_INVITES_CREATE", "CAP_IAM_ROLE_BINDINGS_CREATE", "CAP_IAM_GROUP_INVITES_LIST"],
      });
      const person = userIdentityUid("https://login.example.com", `inviter-${++n}`);
      expect((await api.post(`/iam/v2beta1/roleBindings/${team}`, { identityUid: person, roleUid: inviter.body.uid })).status).toBe(200);
      await t.register(person); // their first login
      const them = restClient(t, (await t.server.tokens.issue(person, t.url)).token);
      const refused = await them.post(`${BASE}/${team}`, { roleUid: VIEWER, ttl: "60s" });
      expect({ status: refused.status, code: refused.body.code }).toEqual({ status: 403, code: 7 });
      expect(refused.body.message).toMatch(
        /^Permission denied: the caller cannot grant capabilities it does not hold \(an invite to role /,
      );
      const info = (refused.body.details as { "@type": string; metadata?: Record<string, string> }[]).find((d) =>
        d["@type"].endsWith("ErrorInfo"),
      );
      expect(info?.metadata).toMatchObject({ change: "invite", group: team, role: VIEWER });
      const own = await them.post(`${BASE}/${team}`, { roleUid: inviter.body.uid, ttl: "60s" });
      expect(own.status, JSON.stringify(own.body)).toBe(200);
      codes.push(own.body.code);
      const ownersInvite = await invite(team, { roleUid: OWNER, ttl: "60s" });
      const extend = await them.patch(`${BASE}/${ownersInvite.uid}`, { ttl: "86400s" });
      expect({ status: extend.status, code: extend.body.code }).toEqual({ status: 403, code: 7 });
      expect((await them.post(`${BASE}/${other}`, { roleUid: inviter.body.uid, ttl: "60s" })).status).toBe(403);
    });

    it("shows no role once the role is gone", async () => {
      const role = (await api.post(`/iam/v2beta1/roles/${team}`, { name: `brief-${++n}`, capabilities: ["CAP_TAG_LIST"] })).body.uid;
      const made = await invite(team, { roleUid: role, ttl: "60s" });
      expect(made.role).toMatchObject({ uid: role, capabilities: ["CAP_TAG_LIST"] });
      expect((await api.del(`/iam/v2beta1/roles/${role}`)).status).toBe(200);
      const got = await api.get(`${BASE}/${made.uid}`);
      expect(got.status).toBe(200);
      expect(got.body).not.toHaveProperty("role");
      expect(got.body.roleUid).toBe(role);
    });

    it("answers NOT_FOUND for a missing invite on get, update and delete", async () => {
      const missing = `${team}/0000000000000000`;
      for (const res of [
        await api.get(`${BASE}/${missing}`),
        await api.patch(`${BASE}/${missing}`, { email: "a@example.com" }),
        await api.del(`${BASE}/${missing}`),
      ]) {
        expect({ status: res.status, code: res.body.code, message: res.body.message }).toEqual({
          status: 404,
          code: 5,
          message: `Not found: group invite ${missing}`,
        });
      }
    });

    it("denies callers without access, whether or not the invite exists", async () => {
      const stranger = restClient(t, await t.strangerToken());
      expect((await stranger.get(`${BASE}/${created.uid}`)).status).toBe(403);
      expect((await stranger.get(`${BASE}/${team}/0000000000000000`)).status).toBe(403);
      expect((await stranger.post(`${BASE}/${team}`, { roleUid: VIEWER, ttl: "60s" })).status).toBe(403);
      expect((await stranger.get(`${BASE}?uidp.descendants_of=${org}`)).body).toMatchObject({ groupInvites: [], totalCount: "0" });
    });

    it("deletes an invite answering {}, then it is gone, its code with it", async () => {
      const made = await invite(team, { roleUid: VIEWER, ttl: "60s" });
      expect(await api.del(`${BASE}/${made.uid}`)).toEqual({ status: 200, body: {} });
      expect((await api.get(`${BASE}/${made.uid}`)).status).toBe(404);
      expect(await t.server.store.groupInvites.findByCodeHash(sha256(made.code))).toBeUndefined();
      expect((await api.del(`${BASE}/${made.uid}`)).status).toBe(404);
    });

    it("goes with its group", async () => {
      const doomed = (await api.post(`/iam/v2beta1/groups/${org}`, { name: `doomed-${++n}` })).body.uid;
      const made = await invite(doomed, { roleUid: VIEWER, ttl: "60s" });
      expect((await api.del(`/iam/v2beta1/groups/${doomed}`)).status).toBe(200);
      expect((await api.get(`${BASE}/${made.uid}`)).status).toBe(404);
      expect(await t.server.store.groupInvites.get(made.uid)).toBeUndefined();
    });

    it("never showed a code outside its create response", () => {
      expect(codes.length).toBeGreaterThan(8);
      expect(responses.length).toBeGreaterThan(30);
      for (const res of responses) {
        const text = JSON.stringify(res.body);
        expect(text).not.toContain("arbinv_");
        for (const code of codes) expect(text).not.toContain(code.slice("arbinv_".length));
      }
    });
  });
}
