/**
 * The spec's walk-through with the CLI alone: the built `arbor` in a child process, against a real
 * server, with ARBOR_TOKEN of an organization's owner. Groups, an identity, a viewer binding,
 * pages with tokens, ordering, skip, a partial update, errors with their details, names that are
 * ambiguous or unknown, the output formats and NO_COLOR, and the cleanup (including the failure
 * to delete a group that still has children).
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { ARBOR_BIN } from "../support/process.js";
import { testCli, type TestCli } from "../support/cli.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const UID = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;
const NEXT = /next page: --page-token (\S+)/;
const engine = engines[0] as (typeof engines)[number];
type Json = Record<string, any>;

// Every step spawns the CLI, which is slow on a loaded machine.
describe("the walk-through, with the arbor CLI alone", { timeout: 120_000 }, () => {
  let t: TestServer;
  let cli: TestCli;
  let org: string;
  const json = async (args: string[]): Promise<any> => JSON.parse(await cli.ok([...args, "-o", "json"]));
  const names = (items: Json[]) => items.map((i) => i.name);

  beforeAll(async () => {
    t = await startTestServer(engine);
    const made = await t.organization("acme");
    org = made.org.uid;
    cli = testCli(t.url, made.token);
  });
  afterAll(async () => {
    cli?.dispose();
    await t?.close();
  });

  it("creates groups by parent name and prints them as JSON when stdout is not a terminal", async () => {
    const eng = JSON.parse(await cli.ok(["iam", "groups", "create", "engineering", "--parent", "acme", "--description", "the engineers"]));
    expect(eng).toMatchObject({ name: "engineering", description: "the engineers", verified: false, resourceLimits: {} });
    expect(eng.uid).toMatch(new RegExp(`^${org}/[0-9a-f]{16}$`));
    await cli.ok(["iam", "groups", "create", "sales", "--parent", org]);
    // 14 children of engineering, for pages, order and skip (the spec's example numbers), made
    // a few at a time: each is a process of its own.
    const teams = Array.from({ length: 14 }, (_, i) => `team-${String(i + 1).padStart(2, "0")}`);
    for (let i = 0; i < teams.length; i += 4) {
      await Promise.all(
        teams.slice(i, i + 4).map((name) => cli.ok(["iam", "groups", "create", name, "--parent", "engineering", "-o", "id"])),
      );
    }
  });

  it("creates an identity and binds the viewer role to it, by names", async () => {
    const id = await json([
      "iam",
      "identities",
      "create",
      "ci-bot",
      "--parent",
      "engineering",
      "--identity-issuer",
      "https://issuer.example",
      "--subject",
      "repo:acme/app",
    ]);
    expect(id.claimMatch).toMatchObject({ issuer: "https://issuer.example", subject: "repo:acme/app" });
    const binding = await json(["iam", "role-bindings", "create", "--parent", "engineering", "--identity", "ci-bot", "--role", "viewer"]);
    expect(binding).toMatchObject({ identity: { uid: id.uid, name: "ci-bot" }, role: { name: "viewer" }, group: { name: "engineering" } });
    expect(await json(["iam", "role-bindings", "list", "--identity", id.uid])).toHaveLength(1);
  });

  it("pages with --page-size and the next page token it prints on stderr; --all and --limit walk pages", async () => {
    const first = await cli.run(["iam", "groups", "list", "--parent", "engineering", "--page-size", "5", "-o", "json"]);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("showing 5 of 14 groups");
    const page1 = JSON.parse(first.stdout) as Json[];
    const token = NEXT.exec(first.stderr)?.[1] as string;
    const page2 = await json(["iam", "groups", "list", "--parent", "engineering", "--page-size", "5", "--page-token", token]);
    expect(names(page1)).toEqual(["team-01", "team-02", "team-03", "team-04", "team-05"]);
    expect(names(page2)).toEqual(["team-06", "team-07", "team-08", "team-09", "team-10"]);
    const all = await cli.run(["iam", "groups", "list", "--parent", "engineering", "--page-size", "5", "--all", "-o", "json"]);
    expect(names(JSON.parse(all.stdout))).toHaveLength(14);
    expect(all.stderr).toBe("");
    const limited = await cli.run(["iam", "groups", "list", "--parent", "engineering", "--page-size", "3", "--limit", "7", "-o", "json"]);
    expect(names(JSON.parse(limited.stdout))).toHaveLength(7);
    // The limit was asked for: the count, no next page to follow.
    expect(limited.stderr).toBe("arbor: showing 7 of 14 groups (--limit 7)\n");
  });

  it("orders with --order-by and skips with --skip (14 matches, page size 5, skip 10: 4 items)", async () => {
    const desc = await json(["iam", "groups", "list", "--parent", "engineering", "--order-by", "name desc", "--page-size", "3"]);
    expect(names(desc)).toEqual(["team-14", "team-13", "team-12"]);
    const skipped = await cli.run(["iam", "groups", "list", "--parent", "engineering", "--page-size", "5", "--skip", "10", "-o", "json"]);
    expect(names(JSON.parse(skipped.stdout))).toEqual(["team-11", "team-12", "team-13", "team-14"]);
    expect(skipped.stderr).toBe("");
  });

  it("updates only the fields given: the description changes, the name and the claim match stay", async () => {
    const group = await json(["iam", "groups", "update", "engineering", "--description", "builds things"]);
    expect(group).toMatchObject({ name: "engineering", description: "builds things" });
    const id = await json(["iam", "identities", "update", "ci-bot", "--description", "GitHub Actions"]);
    expect(id).toMatchObject({
      name: "ci-bot",
      description: "GitHub Actions",
      claimMatch: { issuer: "https://issuer.example", subject: "repo:acme/app" },
    });
    const nothing = await cli.run(["iam", "groups", "update", "engineering"]);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain("nothing to change");
  });

  it("shows the server's error with its code and field violation (exit 1), and usage errors (exit 2)", async () => {
    const bad = await cli.run(["iam", "groups", "create", "Bad/Name", "--parent", "acme"]);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain("(gRPC code 3 INVALID_ARGUMENT)");
    expect(bad.stderr).toContain('field name: name must match "^[a-z0-9 ._-]{1,}$"');
    const usage = await cli.run(["iam", "groups", "list", "--page-size", "lots"]);
    expect(usage.code).toBe(2);
    expect((await cli.run(["iam", "groups", "list", "-o", "xml"])).code).toBe(2);
    expect((await cli.run(["iam", "groups", "frobnicate"])).code).toBe(2);
  });

  it("refuses an ambiguous name, listing the candidates' uids, and resolves it within a default group", async () => {
    const a = (await cli.ok(["iam", "groups", "create", "dup", "--parent", "engineering", "-o", "id"])).trim();
    const b = (await cli.ok(["iam", "groups", "create", "dup", "--parent", "sales", "-o", "id"])).trim();
    const ambiguous = await cli.run(["iam", "groups", "get", "dup"]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('the name "dup" matches 2 groups');
    expect(ambiguous.stderr).toContain(a);
    expect(ambiguous.stderr).toContain(b);
    expect((await json(["iam", "groups", "get", "dup", "--group", "sales"])).uid).toBe(b);
    const viaEnv = await cli.ok(["iam", "groups", "get", "dup", "-o", "id"], { ARBOR_GROUP: "engineering" });
    expect(viaEnv.trim()).toBe(a);
    await cli.ok(["iam", "groups", "delete", a, b, "-q"]);
  });

  it("says so when a name names nothing, in the default group or anywhere", async () => {
    const none = await cli.run(["iam", "groups", "get", "nope"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe('arbor: no group named "nope"\n');
    const scoped = await cli.run(["iam", "role-bindings", "list", "--identity", "ci-bot", "--group", "sales"]);
    expect(scoped.code).toBe(1);
    expect(scoped.stderr).toContain('no identity named "ci-bot" in group');
    const badGroup = await cli.run(["iam", "groups", "list", "--group", "nowhere"]);
    expect(badGroup.code).toBe(1);
    expect(badGroup.stderr).toContain('no group named "nowhere" (the default group');
  });

  it("prints uids with -o id, the same data as YAML with -o yaml, and a tree of the groups", async () => {
    const ids = (await cli.ok(["iam", "groups", "list", "--parent", "engineering", "--all", "-o", "id"])).trim().split("\n");
    expect(ids).toHaveLength(14);
    for (const uid of ids) expect(uid).toMatch(UID);
    const asJson = await json(["iam", "groups", "get", "engineering"]);
    expect(parseYaml(await cli.ok(["iam", "groups", "get", "engineering", "-o", "yaml"]))).toEqual(asJson);
    const tree = await json(["iam", "groups", "tree", "acme"]);
    expect(tree).toMatchObject({ uid: org, name: "acme" });
    expect(tree.children.map((c: Json) => c.name)).toEqual(["engineering", "sales"]);
    expect(tree.children[0].children).toHaveLength(14);
    const drawn = await cli.ok(["iam", "groups", "tree", "acme", "-o", "table"]);
    expect(drawn.split("\n").slice(0, 3)).toEqual(["acme", "├── engineering", "│   ├── team-01"]);
  });

  it("colours the table header only on a terminal and never with NO_COLOR", async () => {
    const onTerminal = (env: Record<string, string>) =>
      promisify(execFile)(
        "script",
        ["-qec", `${process.execPath} ${ARBOR_BIN} iam groups list --parent engineering --limit 1`, "/dev/null"],
        {
          env: { ...process.env, ...cli.env, ...env },
        },
      );
    const tty = await onTerminal({});
    expect(tty.stdout).toContain("\u001b[1mNAME");
    const noColor = await onTerminal({ NO_COLOR: "1" });
    expect(noColor.stdout).toContain("NAME");
    expect(noColor.stdout).not.toContain("\u001b[");
    expect(await cli.ok(["iam", "groups", "list", "--parent", "engineering", "--limit", "1", "-o", "table"])).not.toContain("\u001b[");
  });

  it("cleans up: a group with children cannot go (code 9, RESOURCE_NOT_EMPTY); emptied, it can", async () => {
    const refused = await cli.run(["iam", "groups", "delete", "engineering"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("(gRPC code 9 FAILED_PRECONDITION)");
    expect(refused.stderr).toContain("precondition RESOURCE_NOT_EMPTY");
    const bindings = (await cli.ok(["iam", "role-bindings", "list", "--identity", "ci-bot", "-o", "id"])).trim().split("\n");
    await cli.ok(["iam", "role-bindings", "delete", ...bindings]);
    await cli.ok(["iam", "identities", "delete", "ci-bot"]);
    const teams = (await cli.ok(["iam", "groups", "list", "--parent", "engineering", "--all", "-o", "id"])).trim().split("\n");
    const deleted = await cli.run(["iam", "groups", "delete", "--quiet", ...teams, "engineering", "sales", "-o", "id"]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout.trim().split("\n")).toHaveLength(16);
    expect(names(await json(["iam", "groups", "list"]))).toEqual(["acme"]);
  });
});
