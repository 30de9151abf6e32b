/**
 * A real registry behind Arbor's tokens: CNCF Distribution (`docker-registry`) started on the
 * configuration `arbor admin registry-config` prints, workloads logged in with `arbor auth login
 * --identity`, docker's config written by `arbor auth configure-docker`, and skopeo pushing and
 * pulling through `docker-credential-arbor`. Pushes show up as repos and tags through the
 * notifications; role bindings decide who may push and pull; a path stays its owner's when
 * another organization takes its names; no token reaches Arbor's log.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminIdentityUid } from "../../src/domain/identities.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines, type TestLocation } from "../support/engines.js";
import { writeOciImage, type OciImage } from "../support/oci-image.js";
import { startTestIssuer, type TestIssuer } from "../support/oidc-issuer.js";
import { runArbor, type RunResult } from "../support/process.js";
import { freePort, missingRegistryTools, skopeo, startRegistry, type TestRegistry } from "../support/registry.js";
import { restClient, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer, storeAt } from "../support/server.js";

const HELPER = join(import.meta.dirname, "../../bin/docker-credential-arbor.js");
const missing = missingRegistryTools();
const engine = engines[0] as (typeof engines)[number];

describe("registry tools", () => {
  it.runIf(process.env.CI === "true")("are installed under CI", () => {
    expect(missing).toBeUndefined();
  });
});

describe.skipIf(missing !== undefined)("a registry behind Arbor, driven by skopeo", () => {
  let t: TestServer;
  let location: TestLocation;
  let registry: TestRegistry;
  let issuer: TestIssuer;
  let admin: RestClient;
  let host: string;
  let orgUid: string;
  let image: OciImage;
  let work: string;
  let dockerConfig: string;
  const machines: Record<string, Record<string, string>> = {};
  const tokens: string[] = [];

  const ok = (r: RunResult) => {
    expect(r.code, r.stderr).toBe(0);
    return r;
  };
  /** skopeo as one identity: its caches, the shared docker config, the helper first on PATH. */
  const skopeoAs = (who: string, args: string[]) => skopeo(args, { ...process.env, ...machines[who] });
  const helper = (who: string, args: string[], stdin: string) =>
    new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(HELPER, args, { env: { ...process.env, ...machines[who] }, stdio: ["pipe", "pipe", "inherit"] });
      let stdout = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.once("error", reject);
      child.once("close", (code) => resolve({ code, stdout }));
      child.stdin.end(stdin);
    });

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "arbor-registry-e2e-"));
    host = `127.0.0.1:${await freePort()}`;
    location = await engine.location();
    const o = location.options;
    t = await startTestServer(engine, { ...storeAt(o), registryHost: host, allowHttpLoopbackIssuers: true });
    const yml = ok(
      await runArbor([
        "admin",
        "registry-config",
        "--listen",
        host,
        "--storage",
        join(work, "storage"),
        "--data-dir",
        o.dataDir as string,
        "--base-url",
        t.url,
        "--registry-host",
        host,
      ]),
    );
    await writeFile(join(work, "registry.yml"), yml.stdout, { mode: 0o600 });
    registry = await startRegistry(join(work, "registry.yml"), host);

    issuer = await startTestIssuer([t.url]);
    const acme = await t.organization("acme");
    orgUid = acme.org.uid;
    admin = restClient(t, acme.token);
    const team = (await admin.post(`/iam/v2beta1/groups/${orgUid}`, { name: "team" })).body.uid as string;
    const globex = await t.organization("globex");
    const workload = async (client: RestClient, group: string, name: string, role: string) => {
      const made = await client.post(`/iam/v2beta1/identities/${group}`, { name, claimMatch: { issuer: issuer.url, subject: name } });
      expect(made.status, JSON.stringify(made.body)).toBe(200);
      const bound = await client.post(`/iam/v2beta1/roleBindings/${group}`, { identityUid: made.body.uid, roleUid: builtinRoleUid(role) });
      expect(bound.status, JSON.stringify(bound.body)).toBe(200);
      return made.body.uid as string;
    };
    const identities = {
      pusher: await workload(admin, team, "pusher", "registry.push"),
      puller: await workload(admin, team, "puller", "registry.pull"),
      outsider: await workload(restClient(t, globex.token), globex.org.uid, "outsider", "registry.push"),
    };

    const bin = join(work, "bin");
    await mkdir(bin);
    await symlink(HELPER, join(bin, "docker-credential-arbor"));
    dockerConfig = join(work, "docker", "config.json");
    for (const [who, uid] of Object.entries(identities)) {
      const home = join(work, who);
      const env = {
        XDG_CACHE_HOME: join(home, "cache"),
        XDG_CONFIG_HOME: join(home, "config"),
        ARBOR_API_URL: t.url,
        PATH: `${bin}:${dirname(process.execPath)}:${process.env.PATH}`,
      };
      machines[who] = env;
      await mkdir(home, { recursive: true });
      await writeFile(join(home, "oidc-token"), await issuer.mint(who, t.url));
      ok(await runArbor(["auth", "login", "--identity", uid, "--identity-token", join(home, "oidc-token")], env));
      ok(await runArbor(["auth", "configure-docker", "--registry", host, "--docker-config", dockerConfig], env));
      tokens.push(ok(await runArbor(["auth", "token", "--audience", host], env)).stdout.trim());
    }
    image = await writeOciImage(join(work, "image"), "v1", { name: "hello.txt", content: "hello from arbor\n" });
  }, 60_000);

  afterAll(async () => {
    await registry?.stop();
    await issuer?.close();
    await t?.close();
    await location?.dispose();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("writes docker's config once, keeping it private", async () => {
    const doc = JSON.parse(await readFile(dockerConfig, "utf8")) as Record<string, unknown>;
    expect(doc).toEqual({ credHelpers: { [host]: "arbor" } });
    expect((await stat(dockerConfig)).mode & 0o777).toBe(0o600);
  });

  it("hands docker an Arbor token for the registry through the credential helper", async () => {
    const got = await helper("pusher", ["get"], `${host}\n`);
    expect(got.code).toBe(0);
    const answer = JSON.parse(got.stdout) as { ServerURL: string; Username: string; Secret: string };
    expect(answer).toMatchObject({ ServerURL: host, Username: "_token" });
    expect(decodeJwt(answer.Secret)).toMatchObject({ aud: host });
    expect(JSON.parse((await helper("pusher", ["list"], "")).stdout)).toEqual({ [host]: "_token" });
    expect(await helper("pusher", ["store"], JSON.stringify({ ServerURL: host, Username: "x", Secret: "y" }))).toEqual({
      code: 0,
      stdout: "",
    });
    const nobody = { ...machines.pusher, XDG_CACHE_HOME: join(work, "nobody") };
    machines.nobody = nobody;
    expect(await helper("nobody", ["get"], host)).toEqual({ code: 1, stdout: "credentials not found in native keychain\n" });
  });

  it("pushes an image as the identity bound to registry.push, and indexes it as a repo and a tag", async () => {
    const pushed = await skopeoAs("pusher", [
      "copy",
      "--dest-tls-verify=false",
      "--preserve-digests",
      "--authfile",
      dockerConfig,
      `oci:${image.dir}:v1`,
      `docker://${host}/acme/team/hello:v1`,
    ]);
    expect(pushed.code, pushed.stderr).toBe(0);
    let repo: Record<string, any> | undefined;
    let tags: Record<string, any>[] = [];
    const deadline = Date.now() + 5_000;
    while (Date.now() < deadline) {
      const repos = await admin.get(`/registry/v2beta1/repos?uidp.descendants_of=${orgUid}`);
      expect(repos.status, JSON.stringify(repos.body)).toBe(200);
      repo = (repos.body.repos as Record<string, any>[]).find((r) => r.name === "hello");
      if (repo !== undefined) {
        const listed = await admin.get(`/registry/v2beta1/tags?uidp.children_of=${repo.uid}`);
        expect(listed.status, JSON.stringify(listed.body)).toBe(200);
        tags = listed.body.tags as Record<string, any>[];
        if (tags.length > 0) break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(repo).toBeDefined();
    expect(tags).toMatchObject([{ name: "v1", digest: image.manifestDigest }]);
  });

  it("pulls it back as the identity bound to registry.pull", async () => {
    const out = join(work, "pulled");
    const pulled = await skopeoAs("puller", [
      "copy",
      "--src-tls-verify=false",
      "--authfile",
      dockerConfig,
      `docker://${host}/acme/team/hello:v1`,
      `oci:${out}:v1`,
    ]);
    expect(pulled.code, pulled.stderr).toBe(0);
    const index = JSON.parse(await readFile(join(out, "index.json"), "utf8")) as { manifests: { digest: string }[] };
    expect(index.manifests.map((m) => m.digest)).toEqual([image.manifestDigest]);
  });

  it("refuses a push by the identity that may only pull", async () => {
    const refused = await skopeoAs("puller", [
      "copy",
      "--dest-tls-verify=false",
      "--authfile",
      dockerConfig,
      `oci:${image.dir}:v1`,
      `docker://${host}/acme/team/other:v1`,
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("requested access to the resource is denied");
  });

  it("refuses a pull by another organization's identity", async () => {
    const refused = await skopeoAs("outsider", [
      "copy",
      "--src-tls-verify=false",
      "--authfile",
      dockerConfig,
      `docker://${host}/acme/team/hello:v1`,
      `oci:${join(work, "stolen")}:v1`,
    ]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("requested access to the resource is denied");
  });

  it("keeps the image its owner's when another organization takes the path's names", async () => {
    const team = ((await admin.get(`/iam/v2beta1/groups?uidp.children_of=${orgUid}&name=team`)).body.groups as { uid: string }[])[0]
      ?.uid as string;
    const rename = await admin.patch(`/iam/v2beta1/groups/${team}`, { name: "renamed" });
    expect([rename.status, rename.body.details?.[1]?.violations?.[0]?.type]).toEqual([400, "REGISTRY_PATH_BOUND"]);
    // What a rename racing the first push would leave: acme renamed, globex taking acme/team.
    const globex = (await t.server.store.groups.findOrganization("globex"))?.uid as string;
    const intruder = { uid: `${globex}/${"0".repeat(16)}`, parentUid: globex, name: "team", description: "", createTime: 1, updateTime: 1 };
    await t.server.store.groups.update(orgUid, { name: "acme-renamed" }, 1);
    await t.server.store.groups.update(globex, { name: "acme" }, 1);
    await t.server.store.groups.insert(intruder);
    try {
      const stolen = await skopeoAs("outsider", [
        "copy",
        "--src-tls-verify=false",
        "--authfile",
        dockerConfig,
        `docker://${host}/acme/team/hello:v1`,
        `oci:${join(work, "taken")}:v1`,
      ]);
      expect(stolen.code).not.toBe(0);
      expect(stolen.stderr).toContain("requested access to the resource is denied");
      const overwrite = await skopeoAs("outsider", [
        "copy",
        "--dest-tls-verify=false",
        "--authfile",
        dockerConfig,
        `oci:${image.dir}:v1`,
        `docker://${host}/acme/team/hello:v2`,
      ]);
      expect(overwrite.code).not.toBe(0);
      const owned = await skopeoAs("puller", [
        "copy",
        "--src-tls-verify=false",
        "--authfile",
        dockerConfig,
        `docker://${host}/acme/team/hello:v1`,
        `oci:${join(work, "owned")}:v1`,
      ]);
      expect(owned.code, owned.stderr).toBe(0);
    } finally {
      await t.server.store.groups.delete(intruder.uid);
      await t.server.store.groups.update(globex, { name: "globex" }, 1);
      await t.server.store.groups.update(orgUid, { name: "acme" }, 1);
    }
  });

  it("deletes the image as an owner of the organization, and its tag leaves the index", async () => {
    const owner = (await t.server.tokens.issue(adminIdentityUid(orgUid), host)).token;
    tokens.push(owner);
    const asPusher = await skopeoAs("pusher", [
      "delete",
      "--tls-verify=false",
      "--authfile",
      dockerConfig,
      `docker://${host}/acme/team/hello:v1`,
    ]);
    expect(asPusher.code).not.toBe(0);
    expect(asPusher.stderr).toMatch(/denied|unauthorized/i);
    const deleted = await skopeo(
      ["delete", "--tls-verify=false", "--creds", `_token:${owner}`, `docker://${host}/acme/team/hello:v1`],
      process.env,
    );
    expect(deleted.code, deleted.stderr).toBe(0);
    const repo = ((await admin.get(`/registry/v2beta1/repos?uidp.descendants_of=${orgUid}`)).body.repos as Record<string, any>[]).find(
      (r) => r.name === "hello",
    );
    const deadline = Date.now() + 5_000;
    let tags: unknown[] = [{}];
    while (tags.length > 0 && Date.now() < deadline) {
      tags = (await admin.get(`/registry/v2beta1/tags?uidp.children_of=${repo?.uid}`)).body.tags as unknown[];
      if (tags.length > 0) await new Promise((r) => setTimeout(r, 100));
    }
    expect(tags).toEqual([]);
  });

  it("logs the token requests and notifications, and no token", async () => {
    const routes = t.logs.map((l) => l.rpc);
    expect(routes).toContain("GET /registry/token");
    expect(routes).toContain("POST /registry/notifications");
    const text = JSON.stringify(t.logs);
    const secret = /Bearer (\S+)/.exec(await readFile(join(work, "registry.yml"), "utf8"))?.[1] as string;
    for (const token of [...tokens, secret]) {
      expect(token.length).toBeGreaterThan(20);
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.split(".")[2] ?? token);
    }
  });
});
