/**
 * The IAM resources beyond the walk-through, through the CLI: custom roles, role binding updates,
 * identity providers, account associations and invites, each flag landing in the right field;
 * and delete's confirmation on a terminal.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCli, type TestCli } from "../support/cli.js";
import { engines } from "../support/engines.js";
import { ARBOR_BIN } from "../support/process.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0] as (typeof engines)[number];
const TENANT = "6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b";
const CLIENT = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";

// Every step spawns the CLI, which is slow on a loaded machine.
describe("arbor iam: roles, bindings, providers, associations, invites", { timeout: 120_000 }, () => {
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
    await cli.ok([
      "iam",
      "identities",
      "create",
      "bot",
      "--parent",
      "team",
      "--identity-issuer",
      "https://issuer.example",
      "--subject",
      "bot",
    ]);
  });
  afterAll(async () => {
    cli?.dispose();
    await t?.close();
  });

  it("creates a custom role in the default group and replaces its capabilities by dotted names", async () => {
    const role = await json(["iam", "roles", "create", "auditor", "--capabilities", "groups.list", "--capabilities", "identity.list"]);
    expect(role.uid.startsWith(`${org}/`)).toBe(true);
    expect(role.capabilities).toEqual(["CAP_IAM_GROUPS_LIST", "CAP_IAM_IDENTITY_LIST"]);
    expect((await json(["iam", "roles", "update", "auditor", "--capabilities", "groups.list"])).capabilities).toEqual([
      "CAP_IAM_GROUPS_LIST",
    ]);
    const table = await cli.ok(["iam", "roles", "get", "auditor", "-o", "table"]);
    expect(table).toMatch(/\ncapabilities +groups\.list\n/);
    // The enum names JSON and YAML show are taken too, so any output's names can be given back.
    expect((await json(["iam", "roles", "update", "auditor", "--capabilities", "CAP_IAM_GROUPS_LIST,identity.list"])).capabilities).toEqual(
      ["CAP_IAM_GROUPS_LIST", "CAP_IAM_IDENTITY_LIST"],
    );
    const unknown = await cli.run(["iam", "roles", "create", "x", "--capabilities", "groups.fly"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown capability "groups.fly"');
  });

  it("binds and rebinds: update changes the role alone", async () => {
    const binding = await json(["iam", "role-bindings", "create", "--parent", "team", "--identity", "bot", "--role", "viewer"]);
    const updated = await json(["iam", "role-bindings", "update", binding.uid, "--role", "auditor"]);
    expect(updated).toMatchObject({ uid: binding.uid, role: { name: "auditor" }, identity: { name: "bot" } });
    expect(await cli.ok(["iam", "role-bindings", "list", "--role", "auditor", "-o", "id"])).toBe(`${binding.uid}\n`);
    const missing = await cli.run(["iam", "role-bindings", "create", "--role", "viewer"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--identity is required");
  });

  it("manages an identity provider, its secret read from a file", async () => {
    const secret = join(cli.env.HOME as string, "secret.txt");
    await writeFile(secret, "s3cret\n");
    const idp = await json([
      "iam",
      "identity-providers",
      "create",
      "okta",
      "--default-role",
      "viewer",
      "--oidc-issuer",
      "https://okta.example.com",
      "--client-id",
      "arbor",
      "--client-secret-file",
      secret,
      "--additional-scopes",
      "groups,email",
      "--groups-claim",
      "groups",
    ]);
    expect(idp).toMatchObject({
      name: "okta",
      oidc: { issuer: "https://okta.example.com", clientId: "arbor", additionalScopes: ["groups", "email"], groupsClaim: "groups" },
    });
    expect((await t.server.store.identityProviders.get(idp.uid))?.oidc.clientSecret).toBe("s3cret");
    const updated = await json(["iam", "identity-providers", "update", "okta", "--groups-claim", "roles"]);
    expect(updated.oidc).toMatchObject({ clientId: "arbor", groupsClaim: "roles", additionalScopes: ["groups", "email"] });
    await cli.ok(["iam", "identity-providers", "delete", "okta"]);
    expect(await json(["iam", "identity-providers", "list"])).toEqual([]);
  });

  it("manages a group's account association", async () => {
    const made = await json([
      "iam",
      "account-associations",
      "create",
      "cloud",
      "--parent",
      "team",
      "--amazon-account",
      "123456789012",
      "--github-installation",
      "42=acme",
    ]);
    expect(made).toMatchObject({
      name: "cloud",
      amazon: { account: "123456789012" },
      github: { installations: [{ installationId: "42", name: "acme" }] },
    });
    const updated = await json([
      "iam",
      "account-associations",
      "update",
      "cloud",
      "--azure-tenant-id",
      TENANT,
      "--azure-client-id",
      `web=${CLIENT}`,
    ]);
    expect(updated).toMatchObject({ amazon: { account: "123456789012" }, azure: { tenantId: TENANT, clientIds: { web: CLIENT } } });
    expect((await cli.ok(["iam", "account-associations", "list", "-o", "table"])).split("\n")[1]).toMatch(
      /^cloud +\S+ +amazon,azure,github /,
    );
  });

  it("creates an invite with a ttl and shows its code once", async () => {
    const invite = await json(["iam", "invites", "create", "--parent", "team", "--role", "viewer", "--ttl", "7d", "--single-use"]);
    expect(invite.code).toMatch(/\S+/);
    expect(Date.parse(invite.expirationTime) - Date.parse(invite.createTime)).toBe(7 * 86_400_000);
    expect(invite).toMatchObject({ singleUse: true, role: { name: "viewer" } });
    const updated = await json(["iam", "invites", "update", invite.uid, "--single-use", "false", "--email", "a@example.com"]);
    expect(updated).toMatchObject({ singleUse: false, email: "a@example.com" });
    expect(updated.code).toBeUndefined();
    expect((await cli.run(["iam", "invites", "create", "--role", "viewer", "--ttl", "soon"])).code).toBe(2);
  });

  it("fits a list to a terminal of 100 columns: uids shortened, no line wraps", async () => {
    await cli.ok([
      "iam",
      "identities",
      "create",
      "deployer",
      "--parent",
      "team",
      "--identity-issuer",
      `https://${"long.".repeat(12)}example/issuer`,
      "--subject",
      "deployer",
    ]);
    const shell = `stty cols 100; ${process.execPath} ${ARBOR_BIN} iam identities list`;
    const { stdout } = await promisify(execFile)("script", ["-qec", shell, "/dev/null"], {
      env: { ...process.env, ...cli.env, NO_COLOR: "1" },
    });
    const lines = stdout.replace(/\r/g, "").trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME +UID +ISSUER +SUBJECT +LAST SEEN$/);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(100);
    expect(lines.find((l) => l.startsWith("deployer"))).toMatch(/^deployer +…\/[0-9a-f]{16} +https:\/\/long\.\S*… +deployer$/);
  });

  it("asks before deleting on a terminal, and deletes nothing unless told yes", async () => {
    const uid = (await cli.ok(["iam", "groups", "create", "doomed", "-o", "id"])).trim();
    const answer = (reply: string) =>
      promisify(execFile)(
        "sh",
        ["-c", `(sleep 1; printf '${reply}\\n') | script -qec "${process.execPath} ${ARBOR_BIN} iam groups delete doomed" /dev/null`],
        {
          env: { ...process.env, ...cli.env },
        },
      ).then(
        (r) => ({ code: 0, out: r.stdout }),
        (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
      );
    const no = await answer("n");
    expect(no.out).toContain(`Delete group doomed (${uid})? [y/N]`);
    expect(no.code).toBe(1);
    expect((await cli.ok(["iam", "groups", "get", uid, "-o", "id"])).trim()).toBe(uid);
    const yes = await answer("y");
    expect(yes.code).toBe(0);
    expect((await cli.run(["iam", "groups", "get", uid])).stderr).toContain("(gRPC code 5 NOT_FOUND)");
  });
});
