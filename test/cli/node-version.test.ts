/**
 * On a Node.js older than package.json's engines allow, `arbor` (and so `npm start`) and
 * `docker-credential-arbor` stop first with one line and exit 2 (issue 16, item 1), instead of
 * crashing in a native addon built for a newer Node. The old Node is the npm registry's, as
 * `.ci/run` provisions Node 24, cached between runs.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "../..");
const OLD_MAJOR = 20;
const CACHE = join(homedir(), ".cache", `arbor-node-${OLD_MAJOR}`);
const OLD_NODE = join(CACHE, "node_modules", ".bin", "node");

const { engines } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { engines: { node: string } };

/** Runs a file with a node binary; stdout, stderr and the exit code. */
async function withNode(node: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(node, args, { cwd: ROOT, env: { ...process.env, NODE_OPTIONS: "" } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("an old Node.js", () => {
  beforeAll(async () => {
    if (!existsSync(OLD_NODE)) {
      await run("npm", ["install", "--prefix", CACHE, "--no-save", "--no-audit", "--no-fund", `node@${OLD_MAJOR}`], {
        env: { ...process.env, npm_config_nodedir: "" },
      });
    }
    const { stdout } = await run(OLD_NODE, ["--version"]);
    expect(stdout.trim()).toMatch(new RegExp(`^v${OLD_MAJOR}\\.`));
  }, 300_000);

  it("is below what package.json's engines ask for", () => {
    expect(engines.node).toMatch(/^>=\d+/);
    expect(OLD_MAJOR).toBeLessThan(Number(/^>=(\d+)/.exec(engines.node)?.[1]));
  });

  it.each([
    ["arbor serve", ["bin/arbor.js", "serve"], "arbor"],
    ["arbor --version", ["bin/arbor.js", "--version"], "arbor"],
    ["docker-credential-arbor get", ["bin/docker-credential-arbor.js", "get"], "docker-credential-arbor"],
  ])("%s exits 2 with one line naming both versions", async (_name, args, command) => {
    const { code, stdout, stderr } = await withNode(OLD_NODE, args);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    const lines = stderr.trimEnd().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^${command}: Node\\.js ${OLD_MAJOR}\\.\\d+\\.\\d+ is too old; Arbor needs Node\\.js \\d+ or later \\(`),
    );
  });

  it("is not where the current Node runs: the check passes there", async () => {
    const { code, stdout } = await withNode(process.execPath, ["bin/arbor.js", "--version"]);
    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/\d+\.\d+\.\d+/);
  });
});
