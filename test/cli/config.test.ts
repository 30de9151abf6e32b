/**
 * `arbor config` and the settings file: set, get, unset and list edit
 * $XDG_CONFIG_HOME/arbor/config.yaml; flags win over ARBOR_* variables, which win over the file,
 * for the resource commands and for `arbor auth` alike. Which API a command used shows in the
 * error it gets from a port nothing listens on.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runArbor } from "../support/process.js";

/** A loopback URL whose port nothing listens on (taken, then released). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  await new Promise((done) => server.close(done));
  return `http://127.0.0.1:${port}`;
}

// Every step spawns the CLI, which is slow on a loaded machine.
describe("arbor config and the settings file", { timeout: 120_000 }, () => {
  let home: string;
  let env: Record<string, string>;
  let fileApi: string;
  let envApi: string;
  let flagApi: string;
  const file = () => join(home, "config", "arbor", "config.yaml");

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "arbor-config-"));
    env = { HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_CACHE_HOME: join(home, "cache"), ARBOR_TOKEN: "not-used" };
    [fileApi, envApi, flagApi] = [await deadUrl(), await deadUrl(), await deadUrl()];
  });
  afterAll(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it("sets, gets, lists and unsets settings in the file", async () => {
    expect((await runArbor(["config", "set", "api", fileApi], env)).code).toBe(0);
    expect((await runArbor(["config", "set", "group", "acme"], env)).code).toBe(0);
    expect(await readFile(file(), "utf8")).toBe(`contexts:\n  default:\n    api: ${fileApi}\n    group: acme\n`);
    expect((await runArbor(["config", "get", "group"], env)).stdout).toBe("acme\n");
    const list = await runArbor(["config", "list"], env);
    expect(list.stdout).toBe(`api: ${fileApi}\ngroup: acme\n`);
    expect(list.stderr).toContain(file());
    expect((await runArbor(["config", "unset", "group"], env)).code).toBe(0);
    const missing = await runArbor(["config", "get", "group"], env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("group is not set");
  });

  it("refuses unknown keys and values that are not URLs (exit 2)", async () => {
    expect((await runArbor(["config", "set", "colour", "blue"], env)).code).toBe(2);
    const bad = await runArbor(["config", "set", "api", "ftp://x"], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("is not an http(s) URL");
  });

  it("uses the file's API, below ARBOR_API_URL, below --api", async () => {
    const used = async (args: string[], more: Record<string, string> = {}) =>
      (await runArbor(["iam", "groups", "list", ...args], { ...env, ...more })).stderr;
    expect(await used([])).toContain(`cannot reach ${fileApi}`);
    expect(await used([], { ARBOR_API_URL: envApi })).toContain(`cannot reach ${envApi}`);
    expect(await used(["--api", flagApi], { ARBOR_API_URL: envApi })).toContain(`cannot reach ${flagApi}`);
  });

  it("is honoured by arbor auth too", async () => {
    const status = await runArbor(["auth", "status"], env);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain(`not logged in to ${fileApi}`);
  });

  it("reports a malformed file with its path (exit 2)", async () => {
    await writeFile(file(), "api: [1, 2\n");
    const r = await runArbor(["iam", "groups", "list"], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file()} is not YAML`);
    await writeFile(file(), "server: http://x\n");
    expect((await runArbor(["auth", "status"], env)).stderr).toContain('unknown setting "server"');
  });
});
