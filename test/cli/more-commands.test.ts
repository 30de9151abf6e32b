/**
 * The commands of issue 18 item 4 against a real server, through the built CLI: capabilities,
 * identity lookup, presets, `--role` (and its undo when the binding fails), explain-exchange,
 * the pull token exchanged by a workload login, and the audit log through the API.
 */
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ALL_CAPABILITIES } from "../../src/domain/capabilities.js";
import { userIdentityUid } from "../../src/domain/identities.js";
import { testCli, type TestCli } from "../support/cli.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0] as (typeof engines)[number];

// Every step spawns the CLI, which is slow on a loaded machine.
describe("arbor: capabilities, lookup, presets, --role, explain-exchange, pull-token, audit", { timeout: 120_000 }, () => {
  let t: TestServer;
  let cli: TestCli;
  let org: string;
  const json = async (args: string[]): Promise<any> => JSON.parse(await cli.ok([...args, "-o", "json"]));

  beforeAll(async () => {
    t = await startTestServer(engine);
    const made = await t.organization("acme");
    org = made.org.uid;
    cli = testCli(t.url, made.token);
    await cli.ok(["config", "set", "group", "acme"]);
    await cli.ok(["iam", "groups", "create", "team"]);
    await cli.ok(["iam", "groups", "create", "other"]);
  });
  afterAll(async () => {
    cli?.dispose();
    await t?.close();
  });

  it("lists every capability with a description, offline; a wrong one points at the list", async () => {
    const offline = testCli("http://127.0.0.1:1", "");
    try {
      const caps = JSON.parse(await offline.ok(["iam", "capabilities", "list", "-o", "json"]));
      expect(caps).toHaveLength(ALL_CAPABILITIES.length);
      expect(caps.find((c: any) => c.name === "registry.pull")).toMatchObject({
        enumName: "CAP_REGISTRY_PULL",
        builtinRoles: ["owner", "editor", "registry.pull", "registry.push"],
      });
      for (const c of caps) expect(c.description, c.name).toMatch(/^[a-z].{8,}/);
      expect(await offline.ok(["iam", "capabilities", "list", "-o", "table"])).toMatch(/\naudit\.read +read the audit log/);
    } finally {
      offline.dispose();
    }
    const wrong = await cli.run(["iam", "roles", "create", "x", "--capabilities", "group.list"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("see arbor iam capabilities list");
  });

  it("completes the new commands and their flags", async () => {
    const script = await cli.ok(["completion", "bash"]);
    for (const word of [
      "explain-exchange",
      "lookup",
      "capabilities",
      "pull-token",
      "github",
      "gitlab",
      "kubernetes",
      "--github-repo",
      "--service-account",
      "--token-file",
      "--role",
      "--actor",
    ]) {
      expect(script, word).toContain(word);
    }
  });

  it("looks up the uid a person will have", async () => {
    const found = await json(["iam", "identities", "lookup", "--issuer", "https://accounts.example.com", "--subject", "1234"]);
    expect(found).toEqual({ uid: userIdentityUid("https://accounts.example.com", "1234") });
    expect(await cli.ok(["iam", "identities", "lookup", "--issuer", "https://accounts.example.com", "--subject", "1234", "-o", "id"])).toBe(
      `${found.uid}\n`,
    );
  });

  it("creates identities from presets, bound to a role at their group with --role", async () => {
    const gh = await json([
      "iam",
      "identities",
      "create",
      "github",
      "gh-bot",
      "--parent",
      "team",
      "--github-repo",
      "acme/app.js",
      "--role",
      "viewer",
    ]);
    expect(gh.claimMatch).toMatchObject({
      issuer: "https://token.actions.githubusercontent.com",
      subjectPattern: "repo:acme/app\\.js:ref:refs/.+",
    });
    const bindings = await json(["iam", "role-bindings", "list", "--identity", gh.uid]);
    expect(bindings).toHaveLength(1);
    expect(bindings[0]).toMatchObject({ role: { name: "viewer" }, group: { name: "team" } });
    const gl = await json([
      "iam",
      "identities",
      "create",
      "gitlab",
      "gl-bot",
      "--gitlab-project",
      "acme/tools/app",
      "--gitlab-ref",
      "main",
      "--audience",
      "arbor-ci",
    ]);
    expect(gl.claimMatch).toMatchObject({
      issuer: "https://gitlab.com",
      subject: "project_path:acme/tools/app:ref_type:branch:ref:main",
      audience: "arbor-ci",
    });
    expect(gl.uid.startsWith(`${org}/`)).toBe(true);
    const k8s = await json([
      "iam",
      "identities",
      "create",
      "kubernetes",
      "k8s-bot",
      "--issuer",
      "https://k8s.example.com",
      "--namespace",
      "ci",
      "--service-account",
      "deployer",
    ]);
    expect(k8s.claimMatch).toMatchObject({ issuer: "https://k8s.example.com", subject: "system:serviceaccount:ci:deployer" });
    const jwks = join(cli.env.HOME as string, "jwks.json");
    await writeFile(jwks, JSON.stringify({ keys: [{ ...(await exportJWK((await generateKeyPair("ES256")).publicKey)), kid: "k1" }] }));
    const pinned = await json([
      "iam",
      "identities",
      "create",
      "kubernetes",
      "k8s-static",
      "--issuer",
      "https://kubernetes.default.svc",
      "--namespace",
      "ci",
      "--service-account",
      "builder",
      "--issuer-keys",
      jwks,
    ]);
    expect(pinned.staticKeys).toMatchObject({ issuer: "https://kubernetes.default.svc", subject: "system:serviceaccount:ci:builder" });
    expect(JSON.parse(pinned.staticKeys.issuerKeys).keys[0].kid).toBe("k1");
    const plain = await json([
      "iam",
      "identities",
      "create",
      "plain-bot",
      "--identity-issuer",
      "https://issuer.example",
      "--subject",
      "s",
      "--role",
      "registry.pull",
    ]);
    expect((await json(["iam", "role-bindings", "list", "--identity", plain.uid]))[0]).toMatchObject({
      role: { name: "registry.pull" },
      group: { name: "acme" },
    });
    const bad = await cli.run(["iam", "identities", "create", "github", "x", "--github-repo", "acme/app:ref:refs/heads/main"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--github-repo");
  });

  it("deletes the identity again when --role cannot be bound, and says so", async () => {
    // A custom role of another group cannot be bound in team.
    const role = await json(["iam", "roles", "create", "elsewhere", "--parent", "other", "--capabilities", "groups.list"]);
    const failed = await cli.run([
      "iam",
      "identities",
      "create",
      "half-bot",
      "--parent",
      "team",
      "--identity-issuer",
      "https://issuer.example",
      "--subject",
      "h",
      "--role",
      role.uid,
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/binding role .* failed .*the identity was deleted again/);
    expect(await json(["iam", "identities", "list", "--name", "half-bot"])).toEqual([]);
    const unknown = await cli.run([
      "iam",
      "identities",
      "create",
      "nope-bot",
      "--identity-issuer",
      "https://issuer.example",
      "--subject",
      "n",
      "--role",
      "no-such-role",
    ]);
    expect(unknown.code).toBe(1);
    expect(await json(["iam", "identities", "list", "--name", "nope-bot"])).toEqual([]);
  });

  it("makes a pull token that a workload exchanges for registry.pull alone, and explains the exchange", async () => {
    const file = join(cli.env.HOME as string, "pull.jwt");
    const made = await json(["auth", "pull-token", "--parent", "team", "--name", "puller", "--ttl", "2d", "--token-file", file]);
    expect(made).toMatchObject({ name: "puller", tokenFile: file });
    expect(Date.parse(made.expirationTime) - Date.now()).toBeGreaterThan(2 * 86_400_000 - 120_000);
    const token = (await readFile(file, "utf8")).trim();
    expect(token.split(".")).toHaveLength(3);
    expect(await json(["iam", "role-bindings", "list", "--identity", made.identity])).toEqual([
      expect.objectContaining({ role: expect.objectContaining({ name: "registry.pull" }) }),
    ]);
    const again = await cli.run(["auth", "pull-token", "--parent", "team", "--token-file", file]);
    expect(again.code).toBe(2);

    const explained = await cli.run([
      "iam",
      "identities",
      "explain-exchange",
      "puller",
      "--group",
      "team",
      "--token-file",
      file,
      "-o",
      "table",
    ]);
    expect(explained.code).toBe(0);
    expect(explained.stdout).toMatch(/signature +passed/);
    expect(explained.stdout).toContain("The exchange would issue a token.");
    // --log-http shows each call, its headers and bodies, without the caller's token or the one explained.
    const logged = await cli.run([
      "iam",
      "identities",
      "explain-exchange",
      "puller",
      "--group",
      "team",
      "--token-file",
      file,
      "-o",
      "json",
      "--log-http",
    ]);
    expect(logged.code, logged.stderr).toBe(0);
    expect(logged.stderr).toMatch(/^> POST http:\/\/[^ ]+\/arbor\.iam\.v2beta1\.IdentitiesService\/ExplainExchange$/m);
    expect(logged.stderr).toMatch(/^> authorization: Bearer <redacted>$/m);
    expect(logged.stderr).toContain('"token":"<redacted>"');
    expect(logged.stderr).toMatch(/^< OK in \d+ ms$/m);
    expect(logged.stderr).toContain('"wouldIssue":true');
    expect(logged.stderr).not.toContain(token);
    expect(logged.stderr).not.toContain(cli.env.ARBOR_TOKEN);
    const { privateKey } = await generateKeyPair("ES256");
    const forged = join(cli.env.HOME as string, "forged.jwt");
    const claims = JSON.parse(Buffer.from(token.split(".")[1] as string, "base64url").toString());
    await writeFile(
      forged,
      await new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: JSON.parse(Buffer.from(token.split(".")[0] as string, "base64url").toString()).kid })
        .sign(privateKey),
    );
    const refused = await cli.run(["iam", "identities", "explain-exchange", made.identity, "--token-file", forged, "-o", "json"]);
    expect(refused.code).toBe(1);
    const body = JSON.parse(refused.stdout);
    expect(body.wouldIssue).toBe(false);
    expect(body.checks.find((c: any) => c.check === "signature")).toMatchObject({ passed: false });

    const machine = testCli(t.url, "");
    try {
      delete (machine.env as Record<string, string | undefined>).ARBOR_TOKEN;
      await machine.ok(["auth", "login", "--identity", made.identity, "--identity-token", file]);
      const status = JSON.parse(await machine.ok(["auth", "status", "--json"]));
      expect(status.identity).toBe(made.identity);
      expect(status.roleBindings.map((b: any) => b.role.name)).toEqual(["registry.pull"]);
      const denied = await machine.run(["iam", "groups", "create", "mine", "--parent", "team"]);
      expect(denied.code).toBe(1);
    } finally {
      machine.dispose();
    }
    await cli.ok(["iam", "identities", "delete", made.identity]);
    const revoked = testCli(t.url, "");
    try {
      delete (revoked.env as Record<string, string | undefined>).ARBOR_TOKEN;
      expect((await revoked.run(["auth", "login", "--identity", made.identity, "--identity-token", file])).code).toBe(1);
    } finally {
      revoked.dispose();
    }
  });

  it("lists the audit log through the API with its filters and paging", async () => {
    const gh = await json(["iam", "identities", "get", "gh-bot", "--group", "team"]);
    const creates = await json(["audit", "list", "--method", "arbor.iam.v2beta1.IdentitiesService/CreateIdentity", "--all"]);
    expect(creates.map((e: any) => e.resourceUid)).toContain(gh.uid);
    const ofBot = await json(["audit", "list", "--resource", gh.uid]);
    expect(ofBot).toHaveLength(1);
    expect(ofBot[0]).toMatchObject({ action: "create", resourceType: "arbor.iam.v2beta1.Identity", after: { name: "gh-bot" } });
    expect(await json(["audit", "get", ofBot[0].uid])).toEqual(ofBot[0]);
    const inTeam = await json(["audit", "list", "--descendants-of", "team", "--all"]);
    expect(inTeam.length).toBeGreaterThan(1);
    expect(inTeam.every((e: any) => e.uid.startsWith(`${gh.uid.split("/").slice(0, 2).join("/")}/`))).toBe(true);
    const page = await cli.run(["audit", "list", "--limit", "1", "-o", "json"]);
    expect(JSON.parse(page.stdout)).toHaveLength(1);
    expect(page.stderr).toMatch(/showing 1 of \d+ audit events|showing 1 of \d+ events/);
    // A time range: since and before a moment split the log, the moment itself on the since side.
    const everything = await json(["audit", "list", "--all"]);
    const middle = everything[Math.floor(everything.length / 2)].createTime;
    const since = await json(["audit", "list", "--all", "--since", middle]);
    const before = await json(["audit", "list", "--all", "--before", middle]);
    expect(since.every((e: any) => Date.parse(e.createTime) >= Date.parse(middle))).toBe(true);
    expect(before.every((e: any) => Date.parse(e.createTime) < Date.parse(middle))).toBe(true);
    expect(since.length + before.length).toBe(everything.length);
    expect(since.length).toBeGreaterThan(0);
    const rest = await t.fetch(`/audit/v1beta1/events?created_since=${encodeURIComponent(middle)}&page_size=200`, {
      token: cli.env.ARBOR_TOKEN as string,
    });
    expect(Number(((await rest.json()) as { totalCount: string }).totalCount)).toBe(since.length);
    expect((await cli.run(["audit", "list", "--since", "yesterday"])).code).toBe(2);
    const actor = ofBot[0].actor.uid;
    expect((await json(["audit", "list", "--actor", actor, "--limit", "5"])).every((e: any) => e.actor.uid === actor)).toBe(true);
  });
});
