/**
 * `arbor completion bash|zsh|fish`: the scripts are pinned by golden files (generated from the
 * command tree, so a new command or flag shows up in their diff), each shell accepts its script,
 * and each, run for real, completes commands, flags, choices (derived from the definitions),
 * context names (from `arbor __complete`, which the scripts call back) and `npx arbor` lines.
 * To accept a deliberate change of the scripts: UPDATE_GOLDEN=1 npx vitest run
 * test/cli/completion.test.ts, then read the diff.
 */
import { execFile } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ARBOR_BIN, runArbor } from "../support/process.js";

const exec = promisify(execFile);
const GOLDEN = join(import.meta.dirname, "golden");

async function has(program: string): Promise<boolean> {
  return exec("sh", ["-c", `command -v ${program}`]).then(
    () => true,
    () => false,
  );
}

/** Whether zsh and fish are here to run their scripts; .ci/run installs them, so under CI they must be. */
const zshInstalled = await has("zsh");
const fishInstalled = await has("fish");

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (process.env.UPDATE_GOLDEN === "1") writeFileSync(path, actual);
  expect(existsSync(path), `test/cli/golden/${name} is missing: run with UPDATE_GOLDEN=1 to write it`).toBe(true);
  expect(actual, `differs from test/cli/golden/${name}`).toBe(readFileSync(path, "utf8"));
}

/** A shell word for text. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

// Each shell run starts arbor for the names it calls back for, which is slow on a loaded machine.
describe("arbor completion", { timeout: 60_000 }, () => {
  let dir: string;
  const scripts: Record<string, string> = {};
  let env: Record<string, string>;
  const envOf = () => env;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "arbor-completion-"));
    for (const shell of ["bash", "zsh", "fish"]) {
      const r = await runArbor(["completion", shell]);
      expect(r.code, r.stderr).toBe(0);
      scripts[shell] = join(dir, `arbor.${shell}`);
      await writeFile(scripts[shell], r.stdout);
    }
    // The scripts call `arbor` (and `npx arbor`) back: both on PATH here, both this build.
    const bin = join(dir, "bin");
    await mkdir(bin);
    await writeFile(join(bin, "arbor"), `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(ARBOR_BIN)} "$@"\n`);
    await writeFile(
      join(bin, "npx"),
      `#!/bin/sh\n[ "$1" = arbor ] || exit 1\nshift\nexec ${quote(process.execPath)} ${quote(ARBOR_BIN)} "$@"\n`,
    );
    await chmod(join(bin, "arbor"), 0o755);
    await chmod(join(bin, "npx"), 0o755);
    env = {
      PATH: `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, "config"),
      XDG_CACHE_HOME: join(dir, "cache"),
    };
    const created = await runArbor(["config", "create-context", "staging", "--api", "http://127.0.0.1:1"], env);
    expect(created.code, created.stderr).toBe(0);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(["bash", "zsh", "fish"])("prints the %s script of the golden file", async (shell) => {
    golden(`completion.${shell}`, readFileSync(scripts[shell] as string, "utf8"));
  });

  /** What bash offers for the words, the last being the one completed (COMP_WORDS as bash splits them). */
  async function bash(...words: string[]): Promise<string[]> {
    // A login to ask a server with, where a test gives one (--api).
    const env = { ...envOf(), ARBOR_TOKEN: "a-token" };
    const script =
      `source ${quote(scripts.bash as string)}; COMP_WORDS=(${words.map(quote).join(" ")}); COMP_CWORD=${words.length - 1}; ` +
      `COMP_LINE=${quote(words.join(" "))}; COMP_POINT=\${#COMP_LINE}; _arbor; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const { stdout, stderr } = await exec("bash", ["-c", script], { env });
    expect(stderr).toBe("");
    return stdout.split("\n").filter((l) => l !== "");
  }

  it("bash accepts its script and completes commands, flags, choices and contexts", async () => {
    await exec("bash", ["-n", scripts.bash as string]);
    expect(await bash("arbor", "")).toEqual(expect.arrayContaining(["iam", "auth", "advisories", "completion", "config"]));
    expect(await bash("arbor", "iam", "gr")).toEqual(["groups"]);
    expect(await bash("arbor", "iam", "groups", "")).toEqual(["list", "get", "create", "update", "delete", "tree"]);
    expect(await bash("arbor", "iam", "groups", "list", "--pa")).toEqual(["--parent", "--page-size", "--page-token"]);
    // A flag's value (split at : as bash splits it) does not derail the walk down the tree.
    expect(await bash("arbor", "iam", "--api", "http", ":", "//x", "role-bindings", "cr")).toEqual(["create"]);
    // Choices, from the definitions: -o of the resource commands, of version, an argument's.
    expect(await bash("arbor", "iam", "groups", "list", "-o", "")).toEqual(["table", "wide", "json", "yaml", "id"]);
    expect(await bash("arbor", "iam", "groups", "list", "--output", "=", "y")).toEqual(["yaml"]);
    expect(await bash("arbor", "version", "-o", "")).toEqual(["text", "json"]);
    expect(await bash("arbor", "serve", "--log-level", "d")).toEqual(["debug"]);
    expect(await bash("arbor", "completion", "")).toEqual(["bash", "zsh", "fish"]);
    expect(await bash("arbor", "config", "set", "")).toEqual(["api", "issuer", "group"]);
    // A flag of the program (--context) after a subcommand, its value from arbor __complete.
    expect(await bash("arbor", "iam", "groups", "list", "--context", "st")).toEqual(["staging"]);
    expect(await bash("arbor", "config", "use-context", "")).toEqual(["default", "staging"]);
    // npx arbor is arbor; another npx command is left alone.
    expect(await bash("npx", "arbor", "iam", "gr")).toEqual(["groups"]);
    expect(await bash("npx", "arbor", "config", "delete-context", "s")).toEqual(["staging"]);
    expect(await bash("npx", "cowsay", "")).toEqual([]);
  });

  it("bash offers the names a server lists, quoted for the command line, and nothing that is no name", async () => {
    // A server of its own making: whatever it lists, the shell must get only names.
    const server = createServer((req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          groups: [{ name: "web team" }, { name: "web" }, { name: "web;rm -rf ~" }, { name: "web\nx" }, { name: "WEB$(id)" }],
          totalCount: 5,
        }),
      );
    });
    await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const offered = await bash("arbor", "iam", "groups", "get", "--api", url, "w");
      expect(offered).toEqual(["web", "web\\ team"]);
    } finally {
      await new Promise((done) => server.close(done));
    }
  });

  it.runIf(process.env.CI === "true")("has zsh and fish to run their scripts with, under CI", () => {
    expect(zshInstalled, "zsh is not installed (.ci/run installs it)").toBe(true);
    expect(fishInstalled, "fish is not installed (.ci/run installs it)").toBe(true);
  });

  // Reported as skipped, not passed, where zsh is missing outside CI.
  it.skipIf(!zshInstalled)("zsh accepts its script and its function offers commands, flags, choices and contexts", async () => {
    await exec("zsh", ["-n", scripts.zsh as string]);
    // zsh's compadd matches the typed prefix itself; stubbed, it shows what the script offers.
    const offered = async (...words: string[]) => {
      const stubs =
        'compdef() { :; }; compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }; compset() { :; }; _files() { print FILES; }';
      const script =
        `${stubs}; source ${quote(scripts.zsh as string)}; ` + `words=(${words.map(quote).join(" ")}); CURRENT=${words.length}; _arbor`;
      const { stdout, stderr } = await exec("zsh", ["-c", script], { env });
      expect(stderr).toBe("");
      return stdout.split("\n").filter((l) => l !== "");
    };
    expect(await offered("arbor", "iam", "gr")).toContain("groups");
    expect(await offered("arbor", "iam", "groups", "list", "--pa")).toContain("--parent");
    expect(await offered("arbor", "iam", "groups", "list", "-o", "")).toEqual(["table", "wide", "json", "yaml", "id"]);
    expect(await offered("arbor", "iam", "groups", "list", "--output=")).toEqual(["table", "wide", "json", "yaml", "id"]);
    expect(await offered("arbor", "--context", "")).toEqual(["default", "staging"]);
    expect(await offered("npx", "arbor", "iam", "gr")).toContain("groups");
    // A value nothing knows (a new group's name) and another npx command: file names.
    expect(await offered("arbor", "iam", "groups", "create", "x")).toEqual(["FILES"]);
    expect(await offered("npx", "cowsay", "")).toEqual(["FILES"]);
  });

  it.skipIf(!fishInstalled)("fish accepts its script and completes commands, flags, choices and contexts", async () => {
    await exec("fish", ["--no-execute", scripts.fish as string]);
    const complete = async (line: string) => {
      const { stdout, stderr } = await exec(
        "fish",
        ["--no-config", "-c", `source ${quote(scripts.fish as string)}; complete --do-complete ${quote(line)}`],
        { env },
      );
      expect(stderr).toBe("");
      return stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => l.split("\t")[0]);
    };
    expect(await complete("arbor iam gr")).toEqual(["groups"]);
    expect(await complete("arbor iam groups list --pa")).toEqual(["--page-size", "--page-token", "--parent"]);
    expect(await complete("arbor iam groups list -o j")).toEqual(["json"]);
    expect(await complete("arbor iam groups list --output=y")).toEqual(["--output=yaml"]);
    expect(await complete("arbor completion f")).toEqual(["fish"]);
    expect(await complete("arbor config use-context ")).toEqual(["default", "staging"]);
    expect(await complete("npx arbor iam gr")).toEqual(["groups"]);
  });

  it("refuses other shells with exit code 2", async () => {
    expect((await runArbor(["completion", "tcsh"])).code).toBe(2);
  });
});
