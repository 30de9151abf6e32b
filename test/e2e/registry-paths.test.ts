/**
 * Registry paths stay bound to the group that holds their content (issue 14, item 4), on every
 * engine, over HTTP: a group holding content keeps its name; nobody takes a bound path by rename,
 * delete and recreate, or a new organization; and even a takeover that slipped past those checks
 * (a rename racing the first push) gets no action on the old content, which its owner keeps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registryNotificationsSecret } from "../../src/auth/registry-keys.js";
import { adminIdentityUid } from "../../src/domain/identities.js";
import { engines } from "../support/engines.js";
import { restClient, type JsonResponse, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const HOST = "registry.test:5000";
const DIGEST = `sha256:${"cd".repeat(32)}`;

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`registry paths bound to their groups [${engine.name}]`, () => {
    let t: TestServer;
    let b: RestClient;
    let orgB: string;
    let registryB: string;

    /** The actions granted to an Arbor token (registry audience) for one scope. */
    const granted = async (token: string, scope: string) => {
      const res = await fetch(`${t.url}/registry/token?service=${HOST}&scope=${scope}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { token: string };
      expect(res.status, JSON.stringify(body)).toBe(200);
      return (JSON.parse(Buffer.from(body.token.split(".")[1] as string, "base64url").toString()) as { access: { actions: string[] }[] })
        .access[0]?.actions;
    };
    /** Delivers a manifest push of repository to the notifications endpoint, as the registry would. */
    const pushed = async (repository: string) => {
      const event = {
        id: "e",
        timestamp: "2026-01-02T03:04:05Z",
        action: "push",
        target: { mediaType: "application/vnd.oci.image.manifest.v1+json", repository, digest: DIGEST, tag: "v1" },
      };
      const res = await fetch(`${t.url}/registry/notifications`, {
        method: "POST",
        headers: { authorization: `Bearer ${await registryNotificationsSecret(t.server.store.settings)}` },
        body: JSON.stringify({ events: [event] }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { indexed: number; skipped: number };
    };
    const group = async (client: RestClient, parent: string, name: string) => {
      const res = await client.post(`/iam/v2beta1/groups/${parent}`, { name });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.uid as string;
    };
    /** [status, code, precondition type, subject, message] of a refusal. */
    const refusal = (res: JsonResponse) => {
      const violation = (res.body.details as Record<string, any>[] | undefined)?.find(
        (d) => d["@type"] === "type.googleapis.com/google.rpc.PreconditionFailure",
      )?.violations?.[0];
      return [res.status, res.body.code, violation?.type, violation?.subject, res.body.message];
    };
    const reserved = (path: string) => [
      400,
      9,
      "REGISTRY_PATH_RESERVED",
      path,
      `Precondition failed: registry path ${path} is reserved by another group`,
    ];

    beforeAll(async () => {
      t = await startTestServer(engine, { registryHost: HOST });
      const created = await t.organization("orgb");
      orgB = created.org.uid;
      b = restClient(t, created.token);
      registryB = (await t.server.tokens.issue(adminIdentityUid(orgB), HOST)).token;
    });
    afterAll(async () => {
      await t?.close();
    });

    it("binds a path when a push is granted there, and then its groups keep their names", async () => {
      const bteam = await group(b, orgB, "bteam");
      expect(await granted(registryB, "repository:orgb/bteam/app:pull,push")).toEqual(["pull", "push"]);
      // Bound before any content: the push the token allows may land at any moment.
      const renameTeam = await b.patch(`/iam/v2beta1/groups/${bteam}`, { name: "cteam" });
      expect(refusal(renameTeam)).toEqual([
        400,
        9,
        "REGISTRY_PATH_BOUND",
        bteam,
        expect.stringContaining("under orgb/bteam, which stays bound to this group"),
      ]);
      expect(await pushed("orgb/bteam/app")).toEqual({ indexed: 1, skipped: 0 });
      expect(refusal(await b.patch(`/iam/v2beta1/groups/${orgB}`, { name: "orgx" }))).toEqual([
        400,
        9,
        "REGISTRY_PATH_BOUND",
        orgB,
        expect.stringContaining("under orgb,"),
      ]);
      const same = await b.patch(`/iam/v2beta1/groups/${bteam}`, { name: "bteam", description: "still here" });
      expect([same.status, same.body.name, same.body.description]).toEqual([200, "bteam", "still here"]);
      expect(await granted(registryB, "repository:orgb/bteam/app:pull,push,delete")).toEqual(["pull", "push", "delete"]);
    });

    it("binds a path when a repo is made through v1, before any push", async () => {
      const v1team = await group(b, orgB, "v1team");
      expect((await b.post(`/registry/v1/repos/${v1team}`, { name: "made" })).status).toBe(200);
      expect(refusal(await b.patch(`/iam/v2beta1/groups/${v1team}`, { name: "renamed" }))[2]).toBe("REGISTRY_PATH_BOUND");
    });

    it("lets a group without content be renamed, and its old name be taken", async () => {
      const idle = await group(b, orgB, "idle");
      expect(await granted(registryB, "repository:orgb/idle/app:pull")).toEqual(["pull"]);
      expect((await b.patch(`/iam/v2beta1/groups/${idle}`, { name: "busy" })).status).toBe(200);
      await group(b, orgB, "idle");
    });

    it("keeps a deleted group's paths reserved for nobody: no recreate, no rename onto it, no grants", async () => {
      const oldteam = await group(b, orgB, "oldteam");
      expect(await pushed("orgb/oldteam/app")).toEqual({ indexed: 1, skipped: 0 });
      const repo = (await b.get(`/registry/v1/repos?uidp.children_of=${oldteam}`)).body.items[0].id as string;
      expect((await b.del(`/registry/v1/repos/${repo}`)).status).toBe(200);
      expect((await b.del(`/iam/v2beta1/groups/${oldteam}`)).status).toBe(200);
      // The registry still holds the manifests and blobs pushed under orgb/oldteam/app.
      expect(refusal(await b.post(`/iam/v2beta1/groups/${orgB}`, { name: "oldteam" }))).toEqual(reserved("orgb/oldteam"));
      const spare = await group(b, orgB, "spare");
      expect(refusal(await b.patch(`/iam/v2beta1/groups/${spare}`, { name: "oldteam" }))).toEqual(reserved("orgb/oldteam"));
      expect(await granted(registryB, "repository:orgb/oldteam/app:pull,push,delete")).toEqual([]);
      // A late notification of that content is acknowledged, and indexed nowhere.
      expect(await pushed("orgb/oldteam/app")).toEqual({ indexed: 1, skipped: 0 });
      const repos = (await b.get(`/registry/v2beta1/repos?uidp.descendants_of=${orgB}`)).body.repos as { uid: string; name: string }[];
      expect(repos.filter((r) => r.uid.startsWith(`${oldteam}/`) || r.uid.startsWith(`${spare}/`))).toEqual([]);
    });

    it("refuses a new organization the name of a bound one", async () => {
      const other = await t.organization("another");
      const res = await restClient(t, other.token).post("/iam/v2beta1/groups", { name: "orgb" });
      // While orgb has the name, that is what the refusal says; once it goes, the binding does.
      expect([res.status, res.body.message]).toEqual([409, 'Already exists: organization named "orgb"']);
      await t.server.store.groups.update(orgB, { name: "orgb-renamed" }, 1);
      try {
        expect(refusal(await restClient(t, other.token).post("/iam/v2beta1/groups", { name: "orgb" }))).toEqual(reserved("orgb"));
      } finally {
        await t.server.store.groups.update(orgB, { name: "orgb" }, 1);
      }
    });

    it("grants a takeover that slipped past the checks nothing, and leaves the content to its owner", async () => {
      // The issue's attack, as a rename racing the first push would leave it: orgb renamed after
      // its path was bound, a new organization orgb with a group bteam, made around the checks.
      await t.server.store.groups.update(orgB, { name: "orgb-renamed" }, 1);
      const attacker = await t.organization("attacker");
      await t.server.store.groups.update(attacker.org.uid, { name: "orgb" }, 1);
      const attackerApi = restClient(t, attacker.token);
      expect(refusal(await attackerApi.post(`/iam/v2beta1/groups/${attacker.org.uid}`, { name: "bteam" }))).toEqual(reserved("orgb/bteam"));
      const uid = `${attacker.org.uid}/${"0".repeat(16)}`;
      await t.server.store.groups.insert({
        uid,
        parentUid: attacker.org.uid,
        name: "bteam",
        description: "",
        createTime: 1,
        updateTime: 1,
      });
      const registryAttacker = (await t.server.tokens.issue(adminIdentityUid(attacker.org.uid), HOST)).token;
      for (const scope of [
        "orgb/bteam/app:pull,push,delete",
        "orgb/bteam/app:*",
        "orgb/bteam/fresh:push",
        "orgb/app:pull,push",
        "orgb/fresh/app:push",
      ]) {
        expect(await granted(registryAttacker, `repository:${scope}`), scope).toEqual([]);
      }
      // A push the registry reports there is the owner's: the path resolves through its binding.
      expect(await pushed("orgb/bteam/app")).toEqual({ indexed: 1, skipped: 0 });
      expect(await granted(registryB, "repository:orgb/bteam/app:pull,push,delete")).toEqual(["pull", "push", "delete"]);
      expect(await granted(registryB, "repository:orgb-renamed/bteam/app:pull,push")).toEqual([]);
      const names = (await b.get(`/registry/v2beta1/repos?uidp.descendants_of=${orgB}`)).body.repos.map((r: { name: string }) => r.name);
      expect(names).toContain("app");
      const attackerRepos = await attackerApi.get(`/registry/v2beta1/repos?uidp.descendants_of=${attacker.org.uid}`);
      expect(attackerRepos.body.repos ?? []).toEqual([]);
    });
  });
}
