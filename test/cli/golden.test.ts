/**
 * Golden files pin what `list` and `get` print, as tables and as JSON, for groups, identities,
 * roles and role bindings; lists also as tables fitted to 80 and 120 columns (COLUMNS, as a
 * script sets it; without it a pipe gets every column whole) and with `-o wide`. The server runs
 * with a fixed clock and a counting id source, so uids and times are the same on every run and the
 * files are compared byte for byte, nothing normalised. To accept a deliberate change of the output: UPDATE_GOLDEN=1 npx vitest run
 * test/cli/golden.test.ts, then read the diff.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { IdSource } from "../../src/domain/uid.js";
import { testCli, type TestCli } from "../support/cli.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const GOLDEN = join(import.meta.dirname, "golden");
const FIXED_NOW = Date.parse("2026-03-27T13:55:00.423Z");

/** Ids 1, 2, 3, ... as hex of the asked length. */
function countingIds(): IdSource {
  let n = 0;
  return { hex: (bytes) => (++n).toString(16).padStart(bytes * 2, "0") };
}

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(path, actual);
  expect(existsSync(path), `test/cli/golden/${name} is missing: run with UPDATE_GOLDEN=1 to write it`).toBe(true);
  expect(actual, `differs from test/cli/golden/${name}`).toBe(readFileSync(path, "utf8"));
}

const engine = engines[0] as (typeof engines)[number];

// Every step spawns the CLI, which is slow on a loaded machine.
describe("arbor list and get output (golden files)", { timeout: 120_000 }, () => {
  let t: TestServer;
  let cli: TestCli;

  beforeAll(async () => {
    // startTestServer passes env on to startServer, which also takes the id source.
    const env = { clock: { now: () => FIXED_NOW }, ids: countingIds() };
    t = await startTestServer(engine, {}, env);
    const { token } = await t.organization("acme");
    cli = testCli(t.url, token);
    await cli.ok(["iam", "groups", "create", "engineering", "--parent", "acme", "--description", "builds things"]);
    await cli.ok(["iam", "groups", "create", "sales", "--parent", "acme"]);
    await cli.ok([
      "iam",
      "identities",
      "create",
      "ci-bot",
      "--parent",
      "engineering",
      "--identity-issuer",
      "https://token.actions.githubusercontent.com",
      "--subject-pattern",
      "repo:acme/.*",
    ]);
    await cli.ok([
      "iam",
      "roles",
      "create",
      "auditor",
      "--parent",
      "acme",
      "--capabilities",
      "groups.list,identity.list",
      "--description",
      "reads the tree",
    ]);
    await cli.ok(["iam", "role-bindings", "create", "--parent", "engineering", "--identity", "ci-bot", "--role", "viewer"]);
  });
  afterAll(async () => {
    cli?.dispose();
    await t?.close();
  });

  const cases: [string, string[]][] = [
    ["groups-list", ["iam", "groups", "list"]],
    ["groups-get", ["iam", "groups", "get", "engineering"]],
    ["identities-list", ["iam", "identities", "list", "--group", "acme"]],
    ["identities-get", ["iam", "identities", "get", "ci-bot"]],
    // The organization's roles only: the built-in roles' rows are written when the store is made,
    // before the fixed clock has a say, so their times differ on every run.
    ["roles-list", ["iam", "roles", "list", "--descendants-of", "acme"]],
    ["roles-get", ["iam", "roles", "get", "auditor"]],
    ["role-bindings-list", ["iam", "role-bindings", "list", "--identity", "ci-bot"]],
  ];
  for (const [name, args] of cases) {
    it(`${args.join(" ")} as a table and as JSON`, async () => {
      golden(`${name}.txt`, await cli.ok([...args, "-o", "table"]));
      golden(`${name}.json`, await cli.ok([...args, "-o", "json"]));
      if (!name.endsWith("-list")) return;
      for (const columns of [80, 120]) {
        const table = await cli.ok([...args, "-o", "table"], { COLUMNS: String(columns) });
        expect(Math.max(...table.split("\n").map((l) => [...l].length))).toBeLessThanOrEqual(columns);
        golden(`${name}.${columns}.txt`, table);
      }
      golden(`${name}.wide.txt`, await cli.ok([...args, "-o", "wide"], { COLUMNS: "80" }));
    });
  }

  it("role-bindings get by uid, as a table and as JSON", async () => {
    const uid = (await cli.ok(["iam", "role-bindings", "list", "-o", "id"])).trim().split("\n").at(-1) as string;
    golden("role-bindings-get.txt", await cli.ok(["iam", "role-bindings", "get", uid, "-o", "table"]));
    golden("role-bindings-get.json", await cli.ok(["iam", "role-bindings", "get", uid, "-o", "json"]));
  });
});
