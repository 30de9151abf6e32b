/**
 * The registry commands as people run them, without a server: `arbor auth configure-docker`
 * (keeps the rest of docker's config, idempotent, refuses what it cannot use),
 * `docker-credential-arbor` without a login, and `arbor admin registry-config`'s output and usage
 * errors.
 */
import { spawn } from "node:child_process";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { X509Certificate } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runArbor } from "../support/process.js";

const HELPER = join(import.meta.dirname, "../../bin/docker-credential-arbor.js");

describe("registry commands", () => {
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "arbor-registry-cli-"));
    env = { XDG_CACHE_HOME: join(dir, "cache"), XDG_CONFIG_HOME: join(dir, "config"), HOME: dir, ARBOR_API_URL: "http://127.0.0.1:1" };
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const helper = (args: string[], stdin: string) =>
    new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [HELPER, ...args], {
        env: { PATH: process.env.PATH ?? "", ...env },
        stdio: ["pipe", "pipe", "inherit"],
      });
      let stdout = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.once("error", reject);
      child.once("close", (code) => resolve({ code, stdout }));
      child.stdin.end(stdin);
    });

  it("adds the credential helper to docker's config, keeping everything else and the file's mode", async () => {
    const file = join(dir, "docker.json");
    const before = { auths: { "ghcr.io": { auth: "eDp5" } }, credHelpers: { "gcr.io": "gcloud" }, psFormat: "table" };
    await writeFile(file, JSON.stringify(before));
    await chmod(file, 0o640);
    const first = await runArbor(["auth", "configure-docker", "--registry", "registry.example.com:5000", "--docker-config", file], env);
    expect([first.code, first.stderr]).toEqual([
      0,
      expect.stringContaining(`Docker now gets credentials for registry.example.com:5000 from docker-credential-arbor (${file}).`),
    ]);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({
      ...before,
      credHelpers: { "gcr.io": "gcloud", "registry.example.com:5000": "arbor" },
    });
    expect((await stat(file)).mode & 0o777).toBe(0o640);
    // --config, the option's first name, still names the docker file.
    const again = await runArbor(["auth", "configure-docker", "--registry", "registry.example.com:5000", "--config", file], env);
    expect([again.code, again.stderr]).toEqual([0, expect.stringContaining("already uses docker-credential-arbor")]);
    expect(JSON.parse(await readFile(join(dir, "config", "arbor", "registries.json"), "utf8"))).toEqual({
      "registry.example.com:5000": { api: "http://127.0.0.1:1", issuer: "http://127.0.0.1:1", context: "default" },
    });
  });

  it("creates a missing docker config 0600 in $DOCKER_CONFIG, the registry taken from ARBOR_REGISTRY_HOST", async () => {
    const dockerDir = join(dir, "docker-home");
    const run = await runArbor(["auth", "configure-docker"], { ...env, DOCKER_CONFIG: dockerDir, ARBOR_REGISTRY_HOST: "reg.example" });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(await readFile(join(dockerDir, "config.json"), "utf8"))).toEqual({ credHelpers: { "reg.example": "arbor" } });
    expect((await stat(join(dockerDir, "config.json"))).mode & 0o777).toBe(0o600);
  });

  it("refuses what it cannot use, with exit code 2", async () => {
    const broken = join(dir, "broken.json");
    await writeFile(broken, "{not json");
    const cases: [string[], RegExp][] = [
      [["--docker-config", join(dir, "x.json")], /--registry HOST/],
      [["--registry", "https://reg.example/v2", "--docker-config", join(dir, "x.json")], /not a registry host/],
      [["--registry", "reg.example", "--docker-config", broken], /is not JSON/],
    ];
    for (const [args, message] of cases) {
      const run = await runArbor(["auth", "configure-docker", ...args], env);
      expect([run.code, run.stderr], args.join(" ")).toEqual([2, expect.stringMatching(message)]);
    }
    expect(await readFile(broken, "utf8")).toBe("{not json");
  });

  it("answers docker's protocol without a login: not found, store and erase accepted, the list", async () => {
    expect(await helper(["get"], "https://registry.example.com:5000/v1/\n")).toEqual({
      code: 1,
      stdout: "credentials not found in native keychain\n",
    });
    expect(await helper(["store"], '{"ServerURL":"x","Username":"u","Secret":"s"}')).toEqual({ code: 0, stdout: "" });
    expect(await helper(["erase"], "x")).toEqual({ code: 0, stdout: "" });
    expect(JSON.parse((await helper(["list"], "")).stdout)).toEqual({ "registry.example.com:5000": "_token", "reg.example": "_token" });
    expect(await helper(["bogus"], "")).toMatchObject({ code: 1, stdout: expect.stringContaining('unknown command "bogus"') });
    expect(await helper(["--help"], "")).toMatchObject({ code: 0, stdout: expect.stringContaining("Examples:") });
  });

  it("prints a registry configuration and writes its certificate", async () => {
    const storage = join(dir, "storage");
    // It reads the installation's store: one must exist (bootstrap makes it, as serve does).
    expect((await runArbor(["admin", "bootstrap", "--org", "acme", "--data-dir", join(dir, "data")])).code).toBe(0);
    const run = await runArbor([
      "admin",
      "registry-config",
      "--listen",
      ":5000",
      "--storage",
      storage,
      "--data-dir",
      join(dir, "data"),
      "--base-url",
      "https://arbor.example",
      "--registry-host",
      "registry.example.com",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const doc = parse(run.stdout) as Record<string, any>;
    expect(doc.auth.token).toEqual({
      realm: "https://arbor.example/registry/token",
      service: "registry.example.com",
      issuer: "https://arbor.example/registry",
      rootcertbundle: join(storage, "arbor-token-signer.crt"),
    });
    expect(doc.notifications.endpoints[0]).toMatchObject({
      name: "arbor",
      url: "https://arbor.example/registry/notifications",
      headers: { Authorization: [expect.stringMatching(/^Bearer \S{40,}$/)] },
    });
    expect(doc).toMatchObject({ http: { addr: ":5000" }, storage: { filesystem: { rootdirectory: storage }, delete: { enabled: true } } });
    const cert = new X509Certificate(await readFile(join(storage, "arbor-token-signer.crt")));
    expect(new Date(cert.validTo).getTime() - Date.now()).toBeGreaterThan(9 * 365 * 24 * 3600 * 1000);
    // The same store gives the same secrets and certificate.
    const again = await runArbor([
      "admin",
      "registry-config",
      "--listen",
      ":5000",
      "--storage",
      storage,
      "--data-dir",
      join(dir, "data"),
      "--base-url",
      "https://arbor.example",
      "--registry-host",
      "registry.example.com",
    ]);
    expect(again.stdout).toBe(run.stdout);
  });

  it("refuses registry-config without a registry host or with a bad listen address", async () => {
    const base = ["admin", "registry-config", "--storage", join(dir, "s"), "--data-dir", join(dir, "data")];
    expect(await runArbor([...base, "--listen", ":5000"])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("ARBOR_REGISTRY_HOST"),
    });
    expect(await runArbor([...base, "--listen", "5000"], { ARBOR_REGISTRY_HOST: "r.example" })).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--listen: "5000"'),
    });
  });
});
