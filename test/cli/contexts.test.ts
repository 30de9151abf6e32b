/**
 * Contexts: several servers and logins side by side in the settings file (`arbor config
 * create-context | get-contexts | current-context | use-context | rename-context |
 * delete-context`, `--context`, ARBOR_CONTEXT). A file of the first format (a bare map) keeps
 * working as the context `default` and is converted, with a copy kept, at the first write; logins
 * cached before contexts become the default context's; a context's tokens are never another's.
 * Which API and login a command used shows in `arbor auth token`, which prints a cached token
 * while it is fresh without asking any server.
 */
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeEach, afterAll, describe, expect, it } from "vitest";
import { runArbor, type RunResult } from "../support/process.js";

const API = "http://127.0.0.1:1";
const HELPER = join(import.meta.dirname, "../../bin/docker-credential-arbor.js");
const OTHER_API = "http://127.0.0.1:2";

// Every step spawns the CLI, which is slow on a loaded machine.
describe("arbor config contexts", { timeout: 120_000 }, () => {
  const homes: string[] = [];
  let env: Record<string, string>;
  const file = () => join(env.XDG_CONFIG_HOME as string, "arbor", "config.yaml");
  const arbor = (args: string[], more: Record<string, string> = {}) => runArbor(args, { ...env, ...more });
  const ok = async (args: string[], more: Record<string, string> = {}): Promise<RunResult> => {
    const r = await arbor(args, more);
    expect(r.code, `arbor ${args.join(" ")}: ${r.stderr}`).toBe(0);
    return r;
  };
  /** What usage error (exit 2) args give. */
  const refused = async (args: string[], more: Record<string, string> = {}) => {
    const r = await arbor(args, more);
    expect(r.code, r.stdout).toBe(2);
    return r.stderr;
  };
  /** Caches a fresh workload login with token for api in a login folder (a context's, or the cache root before contexts). */
  const cacheLogin = async (folder: string, api: string, token: string) => {
    const dir = join(folder, encodeURIComponent(api));
    await mkdir(join(dir, "tokens"), { recursive: true });
    await writeFile(
      join(dir, "session.json"),
      JSON.stringify({ kind: "workload", api, issuer: api, identity: "w", identityTokenFile: "/nonexistent" }),
    );
    await writeFile(
      join(dir, "tokens", `${encodeURIComponent(api)}.json`),
      JSON.stringify({ token, expiry: new Date(Date.now() + 3_600_000).toISOString() }),
    );
  };
  const cacheRoot = () => join(env.XDG_CACHE_HOME as string, "arbor");

  beforeEach(async () => {
    const home = await mkdtemp(join(tmpdir(), "arbor-contexts-"));
    homes.push(home);
    env = { HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_CACHE_HOME: join(home, "cache") };
  });
  afterAll(async () => {
    for (const h of homes) await rm(h, { recursive: true, force: true });
  });

  it("creates, lists, switches, renames and deletes contexts, in a 0600 file", async () => {
    expect((await ok(["config", "get-contexts"])).stdout).toBe("CURRENT  NAME     API  GROUP\n*        default\n");
    await ok(["config", "set", "api", API]);
    await ok(["config", "create-context", "staging", "--api", OTHER_API, "--group", "acme"]);
    expect(await readFile(file(), "utf8")).toBe(
      `contexts:\n  default:\n    api: ${API}\n  staging:\n    api: ${OTHER_API}\n    group: acme\n`,
    );
    expect((await stat(file())).mode & 0o777).toBe(0o600);
    expect((await ok(["config", "get-contexts"])).stdout).toBe(
      `CURRENT  NAME     API                 GROUP\n*        default  ${API}\n         staging  ${OTHER_API}  acme\n`,
    );
    expect((await ok(["config", "get-contexts", "-o", "name"])).stdout).toBe("default\nstaging\n");
    expect(JSON.parse((await ok(["config", "get-contexts", "-o", "json"])).stdout)).toEqual([
      { name: "default", current: true, api: API },
      { name: "staging", current: false, api: OTHER_API, group: "acme" },
    ]);
    expect((await ok(["config", "current-context"])).stdout).toBe("default\n");
    await ok(["config", "use-context", "staging"]);
    expect((await ok(["config", "current-context"])).stdout).toBe("staging\n");
    expect((await ok(["config", "get", "group"])).stdout).toBe("acme\n");
    // set, get and list act on the context a command uses: --context, else ARBOR_CONTEXT, else the current one.
    await ok(["config", "set", "group", "beta", "--context", "default"]);
    expect((await ok(["config", "get", "group"], { ARBOR_CONTEXT: "default" })).stdout).toBe("beta\n");
    expect((await ok(["--context", "staging", "config", "get", "group"], { ARBOR_CONTEXT: "default" })).stdout).toBe("acme\n");
    expect((await ok(["config", "current-context"], { ARBOR_CONTEXT: "default" })).stdout).toBe("default\n");
    await ok(["config", "rename-context", "staging", "stage"]);
    expect((await ok(["config", "current-context"])).stdout).toBe("stage\n");
    await ok(["config", "use-context", "default"]);
    await ok(["config", "delete-context", "stage"]);
    expect((await ok(["config", "get-contexts", "-o", "name"])).stdout).toBe("default\n");
    expect((await stat(file())).mode & 0o777).toBe(0o600);
  });

  it("uses the context's API: --context over ARBOR_CONTEXT over the current context; ARBOR_API_URL and --api still win", async () => {
    await ok(["config", "create-context", "one", "--api", API]);
    await ok(["config", "create-context", "two", "--api", OTHER_API, "--use"]);
    const used = async (args: string[], more: Record<string, string> = {}) =>
      (await arbor(["iam", "groups", "list", ...args], { ARBOR_TOKEN: "not-used", ...more })).stderr;
    expect(await used([])).toContain(`cannot reach ${OTHER_API}`);
    expect(await used([], { ARBOR_CONTEXT: "one" })).toContain(`cannot reach ${API}`);
    expect(await used(["--context", "two"], { ARBOR_CONTEXT: "one" })).toContain(`cannot reach ${OTHER_API}`);
    expect(await used(["--context", "one"], { ARBOR_API_URL: OTHER_API })).toContain(`cannot reach ${OTHER_API}`);
    expect(await used(["--context", "one", "--api", OTHER_API])).toContain(`cannot reach ${OTHER_API}`);
  });

  it("keeps each context's tokens apart, even for the same API, and moves them along on rename", async () => {
    await ok(["config", "create-context", "prod", "--api", API]);
    await ok(["config", "create-context", "prod-admin", "--api", API]);
    await cacheLogin(join(cacheRoot(), "contexts", "prod"), API, "token-of-prod");
    const token = (more: Record<string, string>) => arbor(["auth", "token"], more);
    expect((await token({ ARBOR_CONTEXT: "prod" })).stdout).toBe("token-of-prod\n");
    const other = await token({ ARBOR_CONTEXT: "prod-admin" });
    expect([other.code, other.stdout, other.stderr]).toEqual([1, "", `arbor: not logged in to ${API}; run: arbor auth login\n`]);
    expect((await token({ ARBOR_CONTEXT: "default", ARBOR_API_URL: API })).code).toBe(1);
    await ok(["config", "rename-context", "prod", "production"]);
    expect((await token({ ARBOR_CONTEXT: "production" })).stdout).toBe("token-of-prod\n");
    // A new context of the old name starts with no login.
    await ok(["config", "create-context", "prod", "--api", API]);
    expect((await token({ ARBOR_CONTEXT: "prod" })).code).toBe(1);
    // Logging out of one context leaves the other's login alone.
    expect((await ok(["auth", "logout", "--context", "prod"])).stderr).toBe(`Not logged in to ${API} (context prod); nothing to do.\n`);
    expect((await ok(["auth", "logout", "--context", "production"])).stderr).toBe(`Logged out of ${API} (context production).\n`);
    await cacheLogin(join(cacheRoot(), "contexts", "production"), API, "token-of-prod");
    await ok(["config", "delete-context", "production"]);
    await expect(stat(join(cacheRoot(), "contexts", "production"))).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("has docker-credential-arbor use the login of the context configure-docker ran in, after a rename too", async () => {
    const registry = "reg.example";
    await ok(["config", "create-context", "ci", "--api", API]);
    await cacheLogin(join(cacheRoot(), "contexts", "ci"), API, "not-this-one");
    // The login's token for the registry's audience, cached beside the API's.
    const tokens = join(cacheRoot(), "contexts", "ci", encodeURIComponent(API), "tokens");
    await writeFile(
      join(tokens, `${registry}.json`),
      JSON.stringify({ token: "registry-token-of-ci", expiry: new Date(Date.now() + 3_600_000).toISOString() }),
    );
    await ok([
      "--context",
      "ci",
      "auth",
      "configure-docker",
      "--registry",
      registry,
      "--docker-config",
      join(env.HOME as string, "docker.json"),
    ]);
    const get = () =>
      new Promise<string>((done, fail) => {
        const child = spawn(process.execPath, [HELPER, "get"], {
          env: { PATH: process.env.PATH ?? "", ...env },
          stdio: ["pipe", "pipe", "inherit"],
        });
        let out = "";
        child.stdout.on("data", (d: Buffer) => (out += d.toString()));
        child.once("error", fail);
        child.once("close", () => done(out));
        child.stdin.end(`${registry}\n`);
      });
    expect(JSON.parse(await get())).toMatchObject({ Username: "_token", Secret: "registry-token-of-ci" });
    await ok(["config", "rename-context", "ci", "build"]);
    expect(JSON.parse(await get())).toMatchObject({ Secret: "registry-token-of-ci" });
  });

  it(
    "reads a first-format file as the context default, converts it at the first write keeping a copy, " + "and keeps the logins of before",
    async () => {
      const old = `api: ${API}\ngroup: acme\n`;
      await mkdir(join(env.XDG_CONFIG_HOME as string, "arbor"), { recursive: true });
      await writeFile(file(), old, { mode: 0o600 });
      await cacheLogin(cacheRoot(), API, "token-from-before");
      expect((await ok(["config", "get-contexts"])).stdout).toBe(
        `CURRENT  NAME     API                 GROUP\n*        default  ${API}  acme\n`,
      );
      expect((await ok(["config", "list"])).stdout).toBe(`api: ${API}\ngroup: acme\n`);
      expect((await ok(["auth", "token"])).stdout).toBe("token-from-before\n");
      expect(await readFile(file(), "utf8"), "reading changes nothing").toBe(old);
      await ok(["config", "create-context", "staging", "--api", OTHER_API]);
      expect(await readFile(file(), "utf8")).toBe(
        `contexts:\n  default:\n    api: ${API}\n    group: acme\n  staging:\n    api: ${OTHER_API}\n`,
      );
      expect(await readFile(`${file()}.bak`, "utf8")).toBe(old);
      expect((await stat(`${file()}.bak`)).mode & 0o777).toBe(0o600);
      expect((await ok(["auth", "token"])).stdout).toBe("token-from-before\n");
      await expect(stat(join(cacheRoot(), encodeURIComponent(API)))).rejects.toMatchObject({ code: "ENOENT" });
    },
  );

  it("refuses unknown contexts, deleting the current one, taken and bad names (exit 2)", async () => {
    await ok(["config", "create-context", "staging", "--api", API]);
    expect(await refused(["iam", "groups", "list", "--context", "nope"])).toContain(
      `no context "nope" in ${file()} (contexts: default, staging;`,
    );
    expect(await refused(["auth", "status"], { ARBOR_CONTEXT: "nope" })).toContain('no context "nope"');
    expect(await refused(["config", "use-context", "nope"])).toContain('no context "nope"');
    // The list, where one looks for the right name, still lists them, marking none.
    const listed = await ok(["config", "get-contexts", "-o", "json"], { ARBOR_CONTEXT: "nope" });
    expect(JSON.parse(listed.stdout).map((c: { current: boolean }) => c.current)).toEqual([false, false]);
    expect(listed.stderr).toContain('no context "nope"');
    expect(await refused(["config", "delete-context", "nope"])).toContain('no context "nope"');
    expect(await refused(["config", "rename-context", "nope", "x"])).toContain('no context "nope"');
    expect(await refused(["config", "delete-context", "default"])).toContain("context default is the current context; switch first");
    expect(await refused(["config", "create-context", "staging"])).toContain("context staging exists already");
    expect(await refused(["config", "rename-context", "default", "staging"])).toContain("context staging exists already");
    expect(await refused(["config", "create-context", "../evil"])).toContain('"../evil" is not a context name');
    expect(await refused(["config", "create-context", "x", "--api", "ftp://x"])).toContain("is not an http(s) URL");
    expect(await refused(["--context", "../x", "config", "list"])).toContain("is not a context name");
  });

  it("names the file and line of what is wrong in it (exit 2)", async () => {
    await mkdir(join(env.XDG_CONFIG_HOME as string, "arbor"), { recursive: true });
    const cases: [string, string][] = [
      ["contexts:\n  a:\n    api: x: y\n  b: {}\n", `${file()} is not YAML (line 3)`],
      [
        "current-context: a\ncontexts:\n  a:\n    colour: blue\n",
        `${file()}, line 4: unknown setting "colour" (known: api, issuer, group)`,
      ],
      ["contexts:\n  a: {}\napi: http://x\n", `${file()}, line 3: "api" belongs in a context`],
      ["contexts:\n  a: {}\n  a: {}\n", `${file()} is not YAML (line 3)`],
      ["contexts:\n  a: {}\ncurrent-context: b\n", `${file()}: current-context "b" is not one of its contexts`],
      ["contexts:\n  x/y: {}\n", `${file()}, line 2: "x/y" is not a context name`],
      ["api: http://x\nserver: y\n", `${file()}, line 2: unknown setting "server" (known: api, issuer, group)`],
      ["- a\n", `${file()}, line 1: must be a map`],
    ];
    for (const [text, message] of cases) {
      await writeFile(file(), text);
      expect(await refused(["config", "get-contexts"]), text).toContain(message);
    }
  });
});
