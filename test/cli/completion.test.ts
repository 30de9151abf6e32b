/**
 * `arbor completion bash|zsh`: the scripts are valid shell, and bash completes commands and flags
 * from the command tree (`arbor iam gr<TAB>`, `arbor iam groups list --pa<TAB>`).
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runArbor } from "../support/process.js";

const exec = promisify(execFile);

async function has(program: string): Promise<boolean> {
  return exec("sh", ["-c", `command -v ${program}`]).then(() => true, () => false);
}

/** Whether zsh is here to check its script; .ci/run installs it, so under CI it must be. */
const zshInstalled = await has("zsh");

describe("arbor completion", () => {
  let dir: string;
  let bash: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "arbor-completion-"));
    const r = await runArbor(["completion", "bash"]);
    expect(r.code, r.stderr).toBe(0);
    bash = join(dir, "arbor.bash");
    await writeFile(bash, r.stdout);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** What bash offers for the words, the last being the one completed. */
  async function complete(...words: string[]): Promise<string[]> {
    const script = `source ${JSON.stringify(bash)}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _arbor; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const { stdout } = await exec("bash", ["-c", script]);
    return stdout.split("\n").filter((l) => l !== "");
  }

  it("prints a bash script that bash accepts", async () => {
    await exec("bash", ["-n", bash]);
  });

  it("completes commands at every level and flags after -", async () => {
    expect(await complete("arbor", "")).toEqual(expect.arrayContaining(["iam", "auth", "advisories", "completion"]));
    expect(await complete("arbor", "iam", "gr")).toEqual(["groups"]);
    expect(await complete("arbor", "iam", "groups", "")).toEqual(["list", "get", "create", "update", "delete", "tree"]);
    expect(await complete("arbor", "iam", "groups", "list", "--pa")).toEqual(["--parent", "--page-size", "--page-token"]);
    // A flag's value does not derail the walk down the tree.
    expect(await complete("arbor", "iam", "--api", "http://x", "role-bindings", "cr")).toEqual(["create"]);
  });

  it("prints a zsh script", async () => {
    const r = await runArbor(["completion", "zsh"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("compdef _arbor arbor");
    expect(r.stdout).toContain('"arbor iam groups") reply=(');
  });

  it.runIf(process.env.CI === "true")("has zsh to check the zsh script with, under CI", () => {
    expect(zshInstalled, "zsh is not installed (.ci/run installs it)").toBe(true);
  });

  // Reported as skipped, not passed, where zsh is missing outside CI.
  it.skipIf(!zshInstalled)("prints a zsh script that zsh accepts and that completes commands and flags", async () => {
    const r = await runArbor(["completion", "zsh"]);
    expect(r.code).toBe(0);
    const zsh = join(dir, "_arbor");
    await writeFile(zsh, r.stdout);
    await exec("zsh", ["-n", zsh]);
    // zsh's compadd matches the typed prefix itself; stubbed, it shows what the script offers.
    const offered = async (...words: string[]) => {
      const stubs = "compdef() { :; }; compadd() { shift; print -l -- \"$@\"; }; _files() { print FILES; }";
      const script = `${stubs}; source ${JSON.stringify(zsh)}; words=(${words.map((w) => `'${w}'`).join(" ")}); CURRENT=${words.length}; _arbor`;
      return (await exec("zsh", ["-c", script])).stdout.split("\n").filter((l) => l !== "");
    };
    expect(await offered("arbor", "iam", "gr")).toContain("groups");
    expect(await offered("arbor", "iam", "groups", "list", "--pa")).toContain("--parent");
    expect(await offered("arbor", "iam", "groups", "get", "x")).toEqual(["FILES"]);
  });

  it("refuses other shells with exit code 2", async () => {
    expect((await runArbor(["completion", "fish"])).code).toBe(2);
  });
});
