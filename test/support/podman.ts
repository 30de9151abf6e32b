/**
 * podman for the container test: whether it and mmdebstrap are installed, podman runs, and the
 * test's base image (Debian packages from mmdebstrap plus the Node.js binary this test runs on,
 * which .ci/run takes from the npm registry's `node` package, and npm from the registry), built
 * once per Node.js and npm version and kept between runs.
 */
import { spawn, spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What a finished command printed. */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Why the container test cannot run here; undefined when every tool it needs is installed. */
export function missingContainerTools(): string | undefined {
  const tools = ["podman", "mmdebstrap", "runc", "docker-registry", "skopeo"];
  const missing = tools.filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
  return missing.length === 0 ? undefined : `not installed: ${missing.join(", ")} (Debian packages; .ci/run installs them)`;
}

/**
 * podman's global flags. runc rather than crun: crun refuses hosts whose cgroups are mounted in
 * hybrid mode (v1 controllers beside a v2 tree), as some VMs are; runc runs on either.
 */
const GLOBAL = ["--runtime", "runc"];

/**
 * The rlimits of build and run steps: podman asks for more open files and processes than a
 * container host may allow (raising them fails with "operation not permitted"), so ask for what
 * any host allows.
 */
export const ULIMITS = ["--ulimit", "nofile=10000:10000", "--ulimit", "nproc=4096:4096"];

/** Runs podman with args to completion. */
export function podman(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<CommandResult> {
  return run("podman", [...GLOBAL, ...args], env);
}

/** Runs a command to completion. */
export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env, cwd?: string): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs and throws with its output unless it exits 0; its stdout. */
export async function must(result: Promise<CommandResult>, what: string): Promise<string> {
  const r = await result;
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}):\n${r.stderr}\n${r.stdout}`.slice(0, 20_000));
  return r.stdout;
}

/** The Debian suite of the base image. */
const SUITE = "bookworm";
const MIRROR = "http://deb.debian.org/debian";

/**
 * The base image, `localhost/arbor-test-base:<node>-npm<npm>-<suite>`: made when missing (about
 * a minute), else reused. Only these inputs go into it, so the name says when it is stale.
 */
export async function testBaseImage(): Promise<{ name: string; built: boolean }> {
  const npmVersion = (await must(run("npm", ["--version"]), "npm --version")).trim();
  const name = `localhost/arbor-test-base:${process.version}-npm${npmVersion}-${SUITE}`;
  if ((await podman(["image", "exists", name])).code === 0) return { name, built: false };
  const work = await mkdtemp(join(tmpdir(), "arbor-test-base-"));
  try {
    await must(run("npm", ["pack", `npm@${npmVersion}`, "--pack-destination", work, "--silent"]), "npm pack npm");
    const npmTgz = join(work, `npm-${npmVersion}.tgz`);
    const rootfs = join(work, "rootfs.tar");
    const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    await must(
      run("mmdebstrap", [
        "--variant=minbase",
        // apt in minbase brings libstdc++, which node needs; useradd is in passwd.
        "--include=ca-certificates,passwd",
        `--customize-hook=copy-in ${realpathSync(process.execPath)} /usr/local/bin`,
        `--customize-hook=mkdir -p "$1/usr/local/lib/node_modules/npm" ` +
          `&& tar -xzf ${quote(npmTgz)} -C "$1/usr/local/lib/node_modules/npm" --strip-components=1` +
          ` && ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"` +
          ` && ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"`,
        `--customize-hook=rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin`,
        SUITE,
        rootfs,
        MIRROR,
      ]),
      "mmdebstrap",
    );
    await must(
      podman(["import", "--change", "ENV=PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", rootfs, name]),
      "podman import",
    );
    return { name, built: true };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
