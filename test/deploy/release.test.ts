/**
 * The release artefact (docs/operations.md, Installing a release): `npm run release` packs
 * arbor-<version>.tgz, which installs with `npm install -g` (production dependencies only,
 * nothing built or compiled at install) and puts `arbor` and `docker-credential-arbor` on PATH;
 * the installed `arbor serve` answers, and knows its commit. Takes about 20 s.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run as runCommand, type CommandResult } from "../support/podman.js";
import { freePort } from "../support/registry.js";

const ROOT = join(import.meta.dirname, "../..");

/** A command run to completion from the checkout (podman.ts's run, whose cwd is the caller's). */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CommandResult> {
  return runCommand(command, args, options.env ?? process.env, options.cwd ?? ROOT);
}

describe("the release tarball", () => {
  let work: string;
  let tarball: string;
  let prefix: string;
  let env: NodeJS.ProcessEnv;
  let install: CommandResult;
  const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), "arbor-release-"));
    const packed = await run("npm", ["run", "--silent", "release", "--", join(work, "out")]);
    expect(packed.code, packed.stderr).toBe(0);
    tarball = packed.stdout.trim();
    prefix = join(work, "prefix");
    // Only the installed commands and Node.js on PATH: not the checkout's node_modules/.bin.
    env = {
      ...process.env,
      PATH: `${join(prefix, "bin")}:${join(process.execPath, "..")}:/usr/bin:/bin`,
      HOME: work,
      npm_config_cache: join(work, "npm-cache"),
    };
    for (const k of Object.keys(env)) if (k.startsWith("ARBOR_")) delete env[k];
    install = await run("npm", ["install", "-g", "--prefix", prefix, "--no-audit", "--no-fund", tarball], { cwd: work, env });
    expect(install.code, install.stderr).toBe(0);
  }, 600_000);
  afterAll(async () => {
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("carries the built code, the licence and the recorded commit, and nothing for development", async () => {
    expect(tarball).toMatch(/arbor-\d+\.\d+\.\d+\.tgz$/);
    const files = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" }).trim().split("\n");
    expect(files).toEqual(
      expect.arrayContaining([
        "package/LICENSE",
        "package/bin/arbor.js",
        "package/bin/docker-credential-arbor.js",
        "package/dist/cli/main.js",
        "package/dist/cli/credential-helper.js",
        "package/dist/src/cli/main.js",
        "package/dist/schemas/osv-schema.json",
        "package/dist/build-info.json",
        "package/dist/console/index.html",
      ]),
    );
    expect(files.filter((f) => /\.(map|ts)$/.test(f) || /^package\/(src|test|bench|dist\/bench|dist\/test)\//.test(f))).toEqual([]);
    expect(JSON.parse(execFileSync("tar", ["xzOf", tarball, "package/dist/build-info.json"], { encoding: "utf8" }))).toEqual({ commit });
    const pkg = JSON.parse(execFileSync("tar", ["xzOf", tarball, "package/package.json"], { encoding: "utf8" })) as Record<string, unknown>;
    expect([pkg.scripts, pkg.devDependencies]).toEqual([undefined, undefined]);
    expect(await readFile(join(ROOT, "LICENSE"), "utf8")).toContain("Apache License");
  });

  it("installs production dependencies only, running no install script", async () => {
    expect(install.stderr).not.toMatch(/prepare|node-gyp|tsc/);
    const installed = join(prefix, "lib/node_modules/arbor/node_modules");
    const modules = await readdir(installed);
    expect(modules).toContain("better-sqlite3");
    for (const dev of ["typescript", "vitest", "eslint", "esbuild", "@types"]) expect(modules).not.toContain(dev);
  });

  it("puts arbor and docker-credential-arbor on PATH", async () => {
    const which = await run("sh", ["-c", "command -v arbor; command -v docker-credential-arbor"], { env });
    expect(which.stdout.trim().split("\n")).toEqual([join(prefix, "bin/arbor"), join(prefix, "bin/docker-credential-arbor")]);
    const help = await run("arbor", ["--help"], { env });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain("Usage: arbor");
    const version = await run("arbor", ["version", "--client"], { env });
    expect(version.stdout).toBe(
      `client: ${JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")).version} (commit ${commit}, node ${process.version})\n`,
    );
    const helper = await run("docker-credential-arbor", ["version"], { env });
    expect(helper.stdout).toMatch(/^docker-credential-arbor \d+\.\d+\.\d+\n$/);
  });

  it("serves from the installed command, and stops on SIGTERM", async () => {
    const port = await freePort();
    const dataDir = join(work, "data");
    const child = spawn("arbor", ["serve", "--port", String(port), "--data-dir", dataDir], {
      cwd: work,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
    try {
      let ping: unknown;
      for (let i = 0; i < 100 && ping === undefined; i++) {
        ping = await fetch(`http://127.0.0.1:${port}/ping/v2beta1/ping`).then(
          (r) => r.json(),
          () => undefined,
        );
        if (ping === undefined) await new Promise((r) => setTimeout(r, 100));
      }
      expect(ping, stderr).toEqual({ response: "pong" });
      // The web console ships in the tarball and is served from it.
      const page = await fetch(`http://127.0.0.1:${port}/console/`);
      expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
      expect(existsSync(join(dataDir, "arbor.db"))).toBe(true);
      expect(stderr).toContain(`listening on http://*:${port}; store SQLite ${join(dataDir, "arbor.db")}`);
    } finally {
      child.kill("SIGTERM");
    }
    expect(await exited).toBe(0);
  });
});
