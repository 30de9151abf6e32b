/**
 * Groups named by path (`acme/engineering/web`), as the registry writes repository paths:
 * accepted wherever a command takes a group (argument, --group, --parent, hierarchy filters,
 * --at), resolved level by level against a real server, with errors naming the level not found.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCli, type TestCli } from "../support/cli.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0] as (typeof engines)[number];

// Every step spawns the CLI, which is slow on a loaded machine.
describe("arbor: groups as paths of names", { timeout: 120_000 }, () => {
  let t: TestServer;
  let cli: TestCli;
  let web: string;
  const json = async (args: string[]): Promise<any> => JSON.parse(await cli.ok([...args, "-o", "json"]));

  beforeAll(async () => {
    t = await startTestServer(engine);
    const { token } = await t.organization("acme");
    cli = testCli(t.url, token);
    await cli.ok(["iam", "groups", "create", "engineering", "--parent", "acme"]);
    await cli.ok(["iam", "groups", "create", "sales", "--parent", "acme"]);
    // Two groups named web: only a path (or a uid) tells them apart.
    web = (await json(["iam", "groups", "create", "web", "--parent", "acme/engineering"])).uid;
    await cli.ok(["iam", "groups", "create", "web", "--parent", "acme/sales"]);
  });
  afterAll(async () => {
    cli?.dispose();
    await t?.close();
  });

  it("gets a group by its path where its name alone is ambiguous", async () => {
    const byName = await cli.run(["iam", "groups", "get", "web"]);
    expect(byName.code).toBe(1);
    expect(byName.stderr).toContain('the name "web" matches 2 groups');
    expect(await json(["iam", "groups", "get", "acme/engineering/web"])).toMatchObject({ uid: web, name: "web" });
    expect((await json(["iam", "groups", "get", "acme"])).name).toBe("acme");
  });

  it("takes paths in --group, --parent, the hierarchy filters and --at", async () => {
    await cli.ok([
      "iam",
      "identities",
      "create",
      "bot",
      "--group",
      "acme/engineering/web",
      "--identity-issuer",
      "https://issuer.example",
      "--subject",
      "bot",
    ]);
    expect((await json(["iam", "identities", "list", "--group", "acme/engineering"])).map((i: any) => i.uid)).toEqual([
      expect.stringMatching(new RegExp(`^${web}/`)),
    ]);
    expect(await json(["iam", "identities", "list", "--group", "acme/sales"])).toEqual([]);
    expect((await json(["iam", "groups", "list", "--parent", "acme/engineering"])).map((g: any) => g.uid)).toEqual([web]);
    expect((await json(["iam", "groups", "list", "--descendants-of", "acme/engineering"])).map((g: any) => g.uid)).toEqual([web]);
    await cli.ok([
      "iam",
      "role-bindings",
      "create",
      "--parent",
      "acme/engineering/web",
      "--identity",
      "acme/engineering/web/bot",
      "--role",
      "viewer",
    ]);
    expect((await json(["iam", "role-bindings", "list", "--at", "acme/engineering/web"])).map((b: any) => b.group.uid)).toEqual([web]);
    expect((await cli.ok(["iam", "groups", "tree", "acme/engineering", "-o", "table"])).trim()).toBe("engineering\n└── web");
  });

  it.each([
    [["iam", "groups", "get", "acme/engineering/nope"], 'arbor: no group named "nope" in acme/engineering\n'],
    [["iam", "groups", "get", "acme/nope/web"], 'arbor: no group named "nope" in acme\n'],
    [["iam", "groups", "get", "globex/engineering"], 'arbor: no organization named "globex"\n'],
    [["iam", "groups", "get", "acme//web"], 'arbor: "acme//web" is neither a uid nor a path of names such as acme/engineering/web\n'],
    [
      ["iam", "groups", "list", "--group", "acme/nope"],
      'arbor: no group named "nope" in acme (the default group: --group, ARBOR_GROUP or the settings file)\n',
    ],
  ])("%j: exit 1, naming the level not found", async (args, stderr) => {
    const r = await cli.run(args);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(stderr);
  });
});
