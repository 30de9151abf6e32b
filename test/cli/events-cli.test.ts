/**
 * `arbor events subscriptions` against a real server: create with a parent by name, list as a
 * table and JSON, replay, update with exactly the flags given, delete, and a refused sink's
 * message.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testCli, type TestCli } from "../support/cli.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const engine = engines[0] as (typeof engines)[number];

// Every step spawns the CLI, which is slow on a loaded machine.
describe("arbor events", { timeout: 120_000 }, () => {
  let t: TestServer;
  let cli: TestCli;
  const json = async (args: string[]): Promise<any> => JSON.parse(await cli.ok([...args, "-o", "json"]));

  beforeAll(async () => {
    t = await startTestServer(engine);
    const { token } = await t.organization("acme");
    cli = testCli(t.url, token);
    await cli.ok(["iam", "groups", "create", "backend-team", "--parent", "acme"]);
  });
  afterAll(async () => {
    cli?.dispose();
    await t?.close();
  });

  it("creates, lists, updates and deletes subscriptions", async () => {
    const made = await json([
      "events",
      "subscriptions",
      "create",
      "--parent",
      "backend-team",
      "--sink",
      "https://siem.example.com/in",
      "--types",
      "dev.arbor.api.iam.",
      "--types",
      "dev.arbor.api.registry.",
      "--include-descendants",
    ]);
    expect(made).toMatchObject({
      sink: "https://siem.example.com/in",
      types: ["dev.arbor.api.iam.", "dev.arbor.api.registry."],
      includeDescendants: true,
      pending: "0",
    });
    const table = await cli.ok(["events", "subscriptions", "list", "-o", "table"]);
    expect(table.split("\n")[0], table).toMatch(/^UID +SINK +PENDING +LAST DELIVERY( +LAST ERROR)?$/);
    expect((await json(["events", "subscriptions", "list", "--parent", "backend-team"])).map((s: any) => s.uid)).toEqual([made.uid]);
    const replayed = await json(["events", "subscriptions", "replay", made.uid, "--from-time", "2020-01-01T00:00:00Z"]);
    expect(replayed.uid).toBe(made.uid);
    const usage = await cli.run(["events", "subscriptions", "replay", made.uid]);
    expect({ code: usage.code, stderr: usage.stderr }).toEqual({ code: 2, stderr: "arbor: replay: give --from-time or --from-event\n" });
    const updated = await json(["events", "subscriptions", "update", made.uid, "--include-descendants", "false"]);
    expect(updated).toMatchObject({
      sink: "https://siem.example.com/in",
      types: ["dev.arbor.api.iam.", "dev.arbor.api.registry."],
      includeDescendants: false,
    });
    await cli.ok(["events", "subscriptions", "delete", made.uid]);
    expect((await json(["events", "subscriptions", "list"])).length).toBe(0);
  });

  it("says why a sink is refused", async () => {
    const refused = await cli.run(["events", "subscriptions", "create", "--parent", "acme", "--sink", "http://siem.example.com/in"]);
    expect(refused.code, refused.stderr).toBe(1);
    expect(refused.stderr).toMatch(/sink: must be an https:\/\/ URL/);
  });
});
