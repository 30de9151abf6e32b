/**
 * Identities over REST on every engine: create (claim match, static keys), get, list, patch,
 * delete, the people visibility rule, and every refusal with its code and field.
 */
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminIdentityUid, userIdentityUid } from "../../src/domain/identities.js";
import { BUILTIN_ROLES } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const DAY = 86_400_000;
const GITHUB = "https://token.actions.githubusercontent.com";
const publicJwk = generateKeyPairSync("ec", { namedCurve: "P-256" }).publicKey.export({ format: "jwk" });
const privateJwk = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ format: "jwk" });
const JWKS = JSON.stringify({ keys: [{ ...publicJwk, kid: "k1" }] });

type Json = Record<string, any>;

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`identities over REST [${engine.name}]`, () => {
    let t: TestServer;
    let org: string;
    let token: string;
    let team: string;
    let other: { org: string; token: string; identity: string };
    const made: Record<string, Json> = {};

    const call = async (method: string, path: string, body?: unknown, as = token) => {
      const res = await t.fetch(path, {
        method,
        token: as,
        ...(body !== undefined && {
          body: typeof body === "string" ? body : JSON.stringify(body),
          headers: { "content-type": "application/json" },
        }),
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const post = (path: string, body: unknown) => call("POST", path, body);
    const patch = (path: string, body: unknown) => call("PATCH", path, body);
    const get = (path: string, as?: string) => call("GET", path, undefined, as);
    const names = (body: Json) => (body.identities as Json[]).map((i) => i.name);

    beforeAll(async () => {
      t = await startTestServer(engine);
      const mine = await t.organization("identities");
      org = mine.org.uid;
      token = mine.token;
      team = (await post(`/iam/v2beta1/groups/${org}`, { name: "team" })).body.uid;
      const theirs = await t.organization("others");
      const identity = await call(
        "POST",
        `/iam/v2beta1/identities/${theirs.org.uid}`,
        { name: "theirs", claimMatch: { issuer: GITHUB, subject: "x" } },
        theirs.token,
      );
      other = { org: theirs.org.uid, token: theirs.token, identity: identity.body.uid };
    });
    afterAll(() => t?.close());

    it("creates an identity with a claim match, the group only in the path", async () => {
      const { status, body } = await post(`/iam/v2beta1/identities/${team}`, {
        name: "ci",
        description: "GitHub Actions on main",
        claimMatch: { issuer: GITHUB, subject: "repo:acme/app:ref:refs/heads/main", claims: { repository_owner: "acme" } },
      });
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(["claimMatch", "createTime", "description", "name", "uid", "updateTime"]);
      expect(body.uid).toMatch(new RegExp(`^${team}/[0-9a-f]{16}$`));
      expect(body.claimMatch).toEqual({
        issuer: GITHUB,
        subject: "repo:acme/app:ref:refs/heads/main",
        claims: { repository_owner: "acme" },
        claimPatterns: {},
      });
      expect(body.createTime).toMatch(TIME);
      expect(body.updateTime).toBe(body.createTime);
      made.ci = body;
    });

    it("creates an identity with patterns", async () => {
      const { status, body } = await post(`/iam/v2beta1/identities/${team}`, {
        name: "branches",
        claimMatch: {
          issuerPattern: "https://gitlab\\.acme\\.example",
          subjectPattern: "project_path:acme/.*",
          audience: "arbor",
          claimPatterns: { ref_type: "branch|tag" },
        },
      });
      expect(status).toBe(200);
      expect(body.claimMatch).toEqual({
        issuerPattern: "https://gitlab\\.acme\\.example",
        subjectPattern: "project_path:acme/.*",
        audience: "arbor",
        claims: {},
        claimPatterns: { ref_type: "branch|tag" },
      });
      made.branches = body;
    });

    it("creates an identity with static keys, expiring 365 days after creation by default", async () => {
      const { status, body } = await post(`/iam/v2beta1/identities/${org}`, {
        name: "kind cluster",
        staticKeys: { issuer: "https://kubernetes.default.svc", subject: "system:serviceaccount:ci:deployer", issuerKeys: JWKS },
      });
      expect(status).toBe(200);
      expect(body.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
      expect(body.staticKeys).toEqual({
        issuer: "https://kubernetes.default.svc",
        subject: "system:serviceaccount:ci:deployer",
        issuerKeys: JWKS,
        expirationTime: new Date(Date.parse(body.createTime) + 365 * DAY).toISOString(),
      });
      expect(body.claimMatch).toBeUndefined();
      made.kind = body;
    });

    it("gets an identity by uid", async () => {
      const { status, body } = await get(`/iam/v2beta1/identities/${made.ci!.uid}`);
      expect(status).toBe(200);
      expect(body).toEqual(made.ci);
    });

    it("lists with filters, orders, pages and skip", async () => {
      for (const name of ["delta", "alpha", "charlie", "bravo"]) {
        made[name] = (
          await post(`/iam/v2beta1/identities/${team}`, { name, claimMatch: { issuer: GITHUB, subject: `repo:acme/${name}` } })
        ).body;
      }
      const inTeam = ["alpha", "branches", "bravo", "charlie", "ci", "delta"];
      const { status, body } = await get(`/iam/v2beta1/identities?uidp.children_of=${team}`);
      expect(status).toBe(200);
      expect(Object.keys(body).sort()).toEqual(["identities", "skipped", "totalCount"]);
      expect(names(body)).toEqual(inTeam);
      expect(body.totalCount).toBe("6");
      expect(names((await get(`/iam/v2beta1/identities?uidp.descendants_of=${org}`)).body)).toEqual([...inTeam, "kind cluster"].sort());
      expect(names((await get(`/iam/v2beta1/identities?uidp.children_of=${org}`)).body)).toEqual(["kind cluster"]);
      expect(names((await get(`/iam/v2beta1/identities?uidp.descendants_of=${org}&name=bravo`)).body)).toEqual(["bravo"]);
      expect(names((await get(`/iam/v2beta1/identities?uidp.ids=${made.ci!.uid}&uidp.ids=${made.kind!.uid}`)).body)).toEqual([
        "ci",
        "kind cluster",
      ]);
      expect(names((await get(`/iam/v2beta1/identities?uidp.children_of=${team}&order_by=name%20desc`)).body)).toEqual(
        [...inTeam].reverse(),
      );
      const byCreate = (await get(`/iam/v2beta1/identities?uidp.children_of=${team}&order_by=created_at%20desc`)).body;
      expect(names(byCreate)).toEqual(["bravo", "charlie", "alpha", "delta", "branches", "ci"]);

      const seen: string[] = [];
      let next = "";
      do {
        const q = `uidp.children_of=${team}&page_size=4${next ? `&page_token=${encodeURIComponent(next)}` : ""}`;
        const page = (await get(`/iam/v2beta1/identities?${q}`)).body;
        expect(page.totalCount).toBe("6");
        seen.push(...names(page));
        next = page.nextPageToken ?? "";
      } while (next !== "");
      expect(seen).toEqual(inTeam);
      const skipped = (await get(`/iam/v2beta1/identities?uidp.children_of=${team}&page_size=4&skip=4`)).body;
      expect(skipped).toMatchObject({ skipped: 4, totalCount: "6" });
      expect(names(skipped)).toEqual(["ci", "delta"]);
    });

    it("lists the organization's administrator, a person, with its issuer and subject", async () => {
      const { body } = await get("/iam/v2beta1/identities?uidp.in_root=true");
      expect(body.identities).toEqual([
        expect.objectContaining({
          uid: adminIdentityUid(org),
          name: "admin",
          description: "local administrator of identities",
          claimMatch: { issuer: "arbor:admin", subject: org, claims: {}, claimPatterns: {} },
        }),
      ]);
      expect(body.identities[0].lastSeenTime).toBeUndefined();
      // Another organization's administrator and identities stay out of sight.
      const all = (await get("/iam/v2beta1/identities?page_size=200")).body;
      expect(all.totalCount).toBe("8");
      expect((all.identities as Json[]).map((i) => i.uid)).not.toContain(other.identity);
    });

    describe("people", () => {
      const person = userIdentityUid("https://login.example", "pat");
      const loner = userIdentityUid("https://login.example", "lee");
      let personToken: string;

      beforeAll(async () => {
        const store = t.server.store;
        const now = Date.now();
        for (const [uid, subject] of [
          [person, "pat"],
          [loner, "lee"],
        ] as const) {
          await store.identities.insert({
            uid,
            parentUid: null,
            name: subject,
            description: "",
            relationship: { kind: "user", issuer: "https://login.example", subject },
            lastSeenTime: now,
            createTime: now,
            updateTime: now,
          });
        }
        const viewer = BUILTIN_ROLES.get("viewer")!.uid;
        await store.bindings.insert({
          uid: `${team}/00000000000000aa`,
          groupUid: team,
          identityUid: person,
          roleUid: viewer,
          createTime: now,
        });
        personToken = (await t.server.tokens.issue(person, t.url)).token;
      });

      it("shows a person bound in a group to whoever may list identities there, once they have joined its organization", async () => {
        // Bound by someone else, the person has not come: neither the identity nor the binding
        // tells whether they exist, or what they are called.
        expect((await get(`/iam/v2beta1/identities/${person}`)).status).toBe(403);
        const binding = (await get(`/iam/v2beta1/roleBindings/${team}/00000000000000aa`)).body;
        expect(binding.identity).toEqual({ uid: person, name: "", description: "", issuer: "", subject: "" });
        // Logging in through the organization's provider, or redeeming its invite, joins it.
        await t.server.store.identities.join(org, person, Date.now());
        expect((await get(`/iam/v2beta1/roleBindings/${team}/00000000000000aa`)).body.identity).toMatchObject({
          name: "pat",
          subject: "pat",
        });
        const { status, body } = await get(`/iam/v2beta1/identities/${person}`);
        expect(status).toBe(200);
        expect(body).toMatchObject({ uid: person, name: "pat", claimMatch: { issuer: "https://login.example", subject: "pat" } });
        expect(body.lastSeenTime).toMatch(TIME);
      });

      it("shows a person to themselves, even bound nowhere", async () => {
        expect((await get(`/iam/v2beta1/identities/${person}`, personToken)).status).toBe(200);
        const lonerToken = (await t.server.tokens.issue(loner, t.url)).token;
        expect((await get(`/iam/v2beta1/identities/${loner}`, lonerToken)).body).toMatchObject({ uid: loner, name: "lee" });
        // Someone who never logged in has no row: a token of theirs (only `arbor admin token
        // --identity` could mint one) authenticates nothing.
        const nobody = userIdentityUid("https://login.example", "nobody");
        const missing = await get(`/iam/v2beta1/identities/${nobody}`, (await t.server.tokens.issue(nobody, t.url)).token);
        expect({ status: missing.status, code: missing.body.code }).toEqual({ status: 401, code: 16 });
      });

      it("hides people bound nowhere visible, whether or not they exist", async () => {
        for (const uid of [loner, "f".repeat(40), adminIdentityUid(other.org)]) {
          const { status, body } = await get(`/iam/v2beta1/identities/${uid}`);
          expect(status).toBe(403);
          expect(body.message).toBe(`Permission denied: the caller lacks identity.list on ${uid}`);
        }
        expect((await get(`/iam/v2beta1/identities/${loner}`, personToken)).status).toBe(403);
        expect((await get(`/iam/v2beta1/identities/${adminIdentityUid(org)}`, personToken)).status).toBe(403);
      });

      it("lets the administrator read itself", async () => {
        expect((await get(`/iam/v2beta1/identities/${adminIdentityUid(org)}`)).body.name).toBe("admin");
      });

      it("refuses to change or delete a person through the API", async () => {
        expect((await patch(`/iam/v2beta1/identities/${person}`, { description: "x" })).status).toBe(403);
        expect((await call("DELETE", `/iam/v2beta1/identities/${person}`)).status).toBe(403);
      });
    });

    it("patches only the fields sent when there is no updateMask", async () => {
      const { status, body } = await patch(`/iam/v2beta1/identities/${made.ci!.uid}`, { description: "changed" });
      expect(status).toBe(200);
      expect(body).toMatchObject({ name: "ci", description: "changed", claimMatch: made.ci!.claimMatch });
      const pattern = await patch(`/iam/v2beta1/identities/${made.ci!.uid}`, {
        claimMatch: { subjectPattern: "repo:acme/app:ref:refs/heads/.*" },
      });
      expect(pattern.status).toBe(200);
      expect(pattern.body.claimMatch).toEqual({
        issuer: GITHUB,
        subjectPattern: "repo:acme/app:ref:refs/heads/.*",
        claims: { repository_owner: "acme" },
        claimPatterns: {},
      });
    });

    it("with updateMask changes only the masked fields", async () => {
      const { status, body } = await patch(`/iam/v2beta1/identities/${made.alpha!.uid}?updateMask=description`, {
        name: "ignored",
        description: "masked",
      });
      expect(status).toBe(200);
      expect(body).toMatchObject({ name: "alpha", description: "masked" });
    });

    it("switches the relationship when the new kind is masked", async () => {
      const { status, body } = await patch(`/iam/v2beta1/identities/${made.bravo!.uid}?updateMask=staticKeys`, {
        staticKeys: { issuer: "https://k8s.example", subject: "sa", issuerKeys: JWKS, expirationTime: "2030-01-01T00:00:00Z" },
      });
      // Beyond 365 days from now is refused; within them accepted.
      expect(status).toBe(400);
      expect(body.details[1].fieldViolations[0].field).toBe("staticKeys.expirationTime");
      const expiration = new Date(Date.now() + 30 * DAY).toISOString();
      const ok = await patch(`/iam/v2beta1/identities/${made.bravo!.uid}?updateMask=staticKeys`, {
        staticKeys: { issuer: "https://k8s.example", subject: "sa", issuerKeys: JWKS, expirationTime: expiration },
      });
      expect(ok.status).toBe(200);
      expect(ok.body.claimMatch).toBeUndefined();
      expect(ok.body.staticKeys).toEqual({ issuer: "https://k8s.example", subject: "sa", issuerKeys: JWKS, expirationTime: expiration });
      expect(ok.body.updateTime >= ok.body.createTime).toBe(true);
    });

    it("accepts back the identity it served", async () => {
      const { body: current } = await get(`/iam/v2beta1/identities/${made.branches!.uid}`);
      const { status, body } = await patch(`/iam/v2beta1/identities/${made.branches!.uid}`, { ...current, description: "round trip" });
      expect(status).toBe(200);
      expect(body).toEqual({ ...current, description: "round trip", updateTime: body.updateTime });
    });

    it("deletes an identity with its role bindings, answering {}", async () => {
      const viewer = BUILTIN_ROLES.get("viewer")!.uid;
      const uid = made.charlie!.uid as string;
      await t.server.store.bindings.insert({
        uid: `${team}/00000000000000cc`,
        groupUid: team,
        identityUid: uid,
        roleUid: viewer,
        createTime: Date.now(),
      });
      const res = await t.fetch(`/iam/v2beta1/identities/${uid}`, { method: "DELETE", token });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("{}");
      expect(await t.server.store.bindings.forIdentity(uid)).toEqual([]);
      const gone = await get(`/iam/v2beta1/identities/${uid}`);
      expect(gone.status).toBe(404);
      expect(gone.body.code).toBe(5);
      expect(gone.body.message).toBe(`Not found: identity ${uid}`);
      expect(gone.body.details[1]).toMatchObject({
        "@type": "type.googleapis.com/google.rpc.ResourceInfo",
        resourceType: "identity",
        resourceName: uid,
      });
    });

    it("refuses to delete a group that holds identities", async () => {
      const { status, body } = await call("DELETE", `/iam/v2beta1/groups/${team}`);
      expect(status).toBe(400);
      expect(body.code).toBe(9);
      expect(body.message).toBe("Precondition failed: cannot delete group with child identities");
      expect(body.details[1]).toMatchObject({
        "@type": "type.googleapis.com/google.rpc.PreconditionFailure",
        violations: [{ type: "RESOURCE_NOT_EMPTY", description: "cannot delete group with child identities" }],
      });
    });

    const claim = (m: Json) => ({ name: "x", claimMatch: { issuer: GITHUB, subject: "s", ...m } });
    const refusals: [string, () => [string, string, unknown?], number, number, string?][] = [
      ["no relationship", () => ["POST", `/iam/v2beta1/identities/${team}`, { name: "x" }], 400, 3, "claimMatch"],
      [
        "no subject",
        () => ["POST", `/iam/v2beta1/identities/${team}`, { name: "x", claimMatch: { issuer: GITHUB } }],
        400,
        3,
        "claimMatch.subject",
      ],
      [
        "no issuer",
        () => ["POST", `/iam/v2beta1/identities/${team}`, { name: "x", claimMatch: { subject: "s" } }],
        400,
        3,
        "claimMatch.issuer",
      ],
      [
        "a subject pattern matching everything",
        () => ["POST", `/iam/v2beta1/identities/${team}`, claim({ subject: undefined, subjectPattern: ".*" })],
        400,
        3,
        "claimMatch.subjectPattern",
      ],
      [
        "an issuer pattern matching everything",
        () => ["POST", `/iam/v2beta1/identities/${team}`, claim({ issuer: undefined, issuerPattern: ".+" })],
        400,
        3,
        "claimMatch.issuerPattern",
      ],
      [
        "a pattern that does not compile",
        () => ["POST", `/iam/v2beta1/identities/${team}`, claim({ subject: undefined, subjectPattern: "(" })],
        400,
        3,
        "claimMatch.subjectPattern",
      ],
      [
        "an http issuer",
        () => ["POST", `/iam/v2beta1/identities/${team}`, claim({ issuer: "http://127.0.0.1:9" })],
        400,
        3,
        "claimMatch.issuer",
      ],
      [
        "a reserved claim",
        () => ["POST", `/iam/v2beta1/identities/${team}`, claim({ claims: { aud: "x" } })],
        400,
        3,
        'claimMatch.claims["aud"]',
      ],
      [
        "a private key",
        () => [
          "POST",
          `/iam/v2beta1/identities/${team}`,
          { name: "x", staticKeys: { issuer: "https://k", subject: "s", issuerKeys: JSON.stringify({ keys: [privateJwk] }) } },
        ],
        400,
        3,
        "staticKeys.issuerKeys",
      ],
      [
        "static keys without subject",
        () => ["POST", `/iam/v2beta1/identities/${team}`, { name: "x", staticKeys: { issuer: "https://k", issuerKeys: JWKS } }],
        400,
        3,
        "staticKeys.subject",
      ],
      [
        "an expiration in the past",
        () => [
          "POST",
          `/iam/v2beta1/identities/${team}`,
          { name: "x", staticKeys: { issuer: "https://k", subject: "s", issuerKeys: JWKS, expirationTime: "2020-01-01T00:00:00Z" } },
        ],
        400,
        3,
        "staticKeys.expirationTime",
      ],
      [
        "both kinds",
        () => [
          "POST",
          `/iam/v2beta1/identities/${team}`,
          { name: "x", claimMatch: { issuer: GITHUB, subject: "s" }, staticKeys: { issuer: "https://k" } },
        ],
        400,
        3,
        "staticKeys",
      ],
      ["an invalid name", () => ["POST", `/iam/v2beta1/identities/${team}`, { ...claim({}), name: "CI!" }], 400, 3, "name"],
      ["no name", () => ["POST", `/iam/v2beta1/identities/${team}`, { claimMatch: { issuer: GITHUB, subject: "s" } }], 400, 3, "name"],
      [
        "a long description",
        () => ["POST", `/iam/v2beta1/identities/${team}`, { ...claim({}), description: "d".repeat(513) }],
        400,
        3,
        "description",
      ],
      ["an unknown field", () => ["POST", `/iam/v2beta1/identities/${team}`, { ...claim({}), email: "x@y" }], 400, 3, "email"],
      ["a malformed parent", () => ["POST", "/iam/v2beta1/identities/nope", claim({})], 400, 3, "parent"],
      ["a parent that is not a group", () => ["POST", `/iam/v2beta1/identities/${org}/0000000000000000`, claim({})], 404, 5],
      ["a sibling's name", () => ["POST", `/iam/v2beta1/identities/${team}`, { ...claim({}), name: "ci" }], 409, 6],
      ["another organization's group", () => ["POST", `/iam/v2beta1/identities/${other.org}`, claim({})], 403, 7],
      ["another organization's identity", () => ["GET", `/iam/v2beta1/identities/${other.identity}`], 403, 7],
      ["a missing identity in another organization", () => ["GET", `/iam/v2beta1/identities/${other.org}/0000000000000000`], 403, 7],
      ["a missing identity", () => ["GET", `/iam/v2beta1/identities/${team}/0000000000000000`], 404, 5],
      ["a malformed uid", () => ["GET", "/iam/v2beta1/identities/abc"], 400, 3, "uid"],
      [
        "an output-only field in the mask",
        () => ["PATCH", `/iam/v2beta1/identities/${made.ci!.uid}?updateMask=lastSeenTime`, {}],
        400,
        3,
        "update_mask",
      ],
      [
        "an unknown field in the mask",
        () => ["PATCH", `/iam/v2beta1/identities/${made.ci!.uid}?updateMask=claimMatch.colour`, {}],
        400,
        3,
        "update_mask",
      ],
      [
        "a patch leaving no subject",
        () => ["PATCH", `/iam/v2beta1/identities/${made.delta!.uid}?updateMask=claimMatch.subject`, {}],
        400,
        3,
        "claimMatch.subject",
      ],
      ["a patch to a sibling's name", () => ["PATCH", `/iam/v2beta1/identities/${made.delta!.uid}`, { name: "ci" }], 409, 6],
      ["a patch of a missing identity", () => ["PATCH", `/iam/v2beta1/identities/${team}/0000000000000000`, { description: "x" }], 404, 5],
      ["a delete of a missing identity", () => ["DELETE", `/iam/v2beta1/identities/${team}/0000000000000000`], 404, 5],
      ["an unknown order_by field", () => ["GET", "/iam/v2beta1/identities?order_by=last_seen_time"], 400, 3, "order_by"],
      ["an unknown filter", () => ["GET", "/iam/v2beta1/identities?relationship_type=1"], 400, 3, "relationship_type"],
    ];

    it.each(refusals)("refuses %s", async (_, request, status, code, field) => {
      const [method, path, body] = request();
      const res = await call(method, path, body);
      expect(res.status).toBe(status);
      expect(res.body.code).toBe(code);
      expect(res.body.details[0]).toMatchObject({ "@type": "type.googleapis.com/google.rpc.ErrorInfo", domain: "iam.localhost" });
      if (field !== undefined) {
        expect(res.body.details[1]).toMatchObject({ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [{ field }] });
        expect(res.body.message.startsWith(`Invalid argument: ${field}: `)).toBe(true);
      }
    });

    it("refuses a stranger every identity of the organization", async () => {
      const stranger = await t.strangerToken();
      expect((await get(`/iam/v2beta1/identities/${made.ci!.uid}`, stranger)).status).toBe(403);
      const list = (await get("/iam/v2beta1/identities", stranger)).body;
      expect(list).toEqual({ identities: [], totalCount: "0", skipped: 0 });
    });
  });
}
