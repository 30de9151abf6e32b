/**
 * `arbor registry repos|tags list|get` against a real server whose registry index holds repos and
 * tags as the registry's notifications would make them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRegistryIndex } from "../../src/services/registry/registry-index.js";
import { testCli, type TestCli } from "../support/cli.js";
import { engines } from "../support/engines.js";
import { startTestServer, type TestServer } from "../support/server.js";

const D = (c: string) => `sha256:${c.repeat(64)}`;
const engine = engines[0] as (typeof engines)[number];

// Every step spawns the CLI, which is slow on a loaded machine.
describe("arbor registry", { timeout: 120_000 }, () => {
  let t: TestServer;
  let cli: TestCli;
  let nginx: string;
  const json = async (args: string[]): Promise<any> => JSON.parse(await cli.ok([...args, "-o", "json"]));

  beforeAll(async () => {
    t = await startTestServer(engine);
    const { token } = await t.organization("acme");
    cli = testCli(t.url, token);
    await cli.ok(["iam", "groups", "create", "backend-team", "--parent", "acme"]);
    const index = createRegistryIndex(t.server.deps);
    await index.pushed({ repository: "acme/backend-team/nginx", tag: "latest", digest: D("a"), time: Date.UTC(2026, 0, 1) });
    await index.pushed({ repository: "acme/backend-team/nginx", tag: "v1", digest: D("a"), time: Date.UTC(2026, 0, 2) });
    await index.pushed({ repository: "acme/redis", tag: "latest", digest: D("b"), time: Date.UTC(2026, 0, 3) });
    nginx = (await index.resolve("acme/backend-team/nginx"))?.repoUid ?? "";
  });
  afterAll(async () => {
    cli?.dispose();
    await t?.close();
  });

  it("lists and gets repos, by name or uid", async () => {
    expect((await json(["registry", "repos", "list"])).map((r: any) => r.name)).toEqual(["nginx", "redis"]);
    expect((await json(["registry", "repos", "list", "--parent", "backend-team"])).map((r: any) => r.name)).toEqual(["nginx"]);
    expect(await json(["registry", "repos", "get", "nginx"])).toMatchObject({ uid: nginx, name: "nginx" });
    const table = await cli.ok(["registry", "repos", "list", "-o", "table"]);
    expect(table.split("\n")[0]).toMatch(/^NAME +UID +DESCRIPTION +UPDATED$/);
  });

  it("gets a repo by its registry path, group by group from the organization", async () => {
    expect(await json(["registry", "repos", "get", "acme/backend-team/nginx"])).toMatchObject({ uid: nginx, name: "nginx" });
    expect((await json(["registry", "tags", "list", "--parent", "acme/backend-team/nginx"])).map((x: any) => x.name)).toEqual([
      "latest",
      "v1",
    ]);
    expect(await json(["registry", "tags", "get", "acme/backend-team/nginx/v1"])).toMatchObject({ name: "v1", digest: D("a") });
    const missing = await cli.run(["registry", "repos", "get", "acme/backend-team/redis"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('arbor: no repo named "redis" in acme/backend-team\n');
  });

  it("lists a repo's tags by the repo's name, and gets a tag by uid", async () => {
    const tags = await json(["registry", "tags", "list", "--parent", "nginx"]);
    expect(tags.map((x: any) => x.name)).toEqual(["latest", "v1"]);
    expect(await json(["registry", "tags", "get", tags[1].uid])).toMatchObject({ name: "v1", digest: D("a") });
    expect((await cli.ok(["registry", "tags", "list", "--digest", D("b"), "-o", "id"])).trim()).toMatch(
      /^[0-9a-f]{40}\/[0-9a-f]{16}\/[0-9a-f]{16}$/,
    );
  });

  it("refuses a tag name found in several repos, unless a default group narrows it to one", async () => {
    const ambiguous = await cli.run(["registry", "tags", "get", "latest"]);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain('the name "latest" matches 2 tags');
    expect(await json(["registry", "tags", "get", "latest", "--group", "backend-team"])).toMatchObject({ name: "latest", digest: D("a") });
  });
});
