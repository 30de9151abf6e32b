/**
 * The commands start fast because each loads only what it needs (src/cli/main.ts,
 * scripts/bundle-cli.mjs): `--version`, `--help` and the API commands must never load the server,
 * the store or their packages. Timing is the benchmark's job (C1 in docs/benchmarks.md); this
 * test checks what is loaded, in the built bundle, so that an eager import anywhere in the
 * command tree fails here rather than as a slow command.
 */
import { readFileSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runArbor, type RunResult } from "../support/process.js";

const ROOT = join(import.meta.dirname, "../..");
const HOOK = pathToFileURL(join(import.meta.dirname, "../support/loaded-modules.mjs")).href;

/** What the commands below may not load: the server's assembly, the store, the services and the packages only they use. */
const HEAVY = [
  /\/src\/server\/server\.js$/,
  /\/src\/store\//,
  /\/src\/services\//,
  /\/src\/osv\//,
  /\/node_modules\/(kysely|better-sqlite3|pg|pino|ajv|prom-client|@peculiar\/x509)\//,
];

/** Which compiled modules (dist/src/..., node_modules/...) each chunk of the bundle holds, from its metafile. */
function bundleInputs(): Map<string, string[]> {
  const meta = JSON.parse(readFileSync(join(ROOT, "dist/cli-bundle.json"), "utf8")) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return new Map(
    Object.entries(meta.outputs).map(([file, out]) => [resolve(ROOT, file), Object.keys(out.inputs).map((i) => resolve(ROOT, i))]),
  );
}

describe("what a command loads", () => {
  let dir: string;
  let chunks: Map<string, string[]>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "arbor-startup-"));
    chunks = bundleInputs();
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  /** Runs arbor with args; what it printed and the modules it loaded (a chunk of the bundle counts as the modules in it). */
  async function loading(args: string[], env: Record<string, string> = {}): Promise<{ run: RunResult; modules: string[] }> {
    const file = join(dir, `${args.join("-").replace(/[^a-z0-9-]/gi, "_")}.txt`);
    const run = await runArbor(args, {
      NODE_OPTIONS: `--import=${HOOK}`,
      LOADED_MODULES_FILE: file,
      XDG_CONFIG_HOME: dir,
      XDG_CACHE_HOME: dir,
      ...env,
    });
    const urls = (await readFile(file, "utf8")).split("\n").filter((u) => u.startsWith("file:"));
    const modules = urls.flatMap((u) => chunks.get(fileURLToPath(u)) ?? [fileURLToPath(u)]);
    return { run, modules };
  }

  const heavy = (modules: string[]) => modules.filter((m) => HEAVY.some((p) => p.test(m))).map((m) => relative(ROOT, m));

  it.each([
    ["--version", ["--version"]],
    ["--help", ["--help"]],
    ["iam groups list --help", ["iam", "groups", "list", "--help"]],
    ["version --client", ["version", "--client"]],
  ])("%s loads the bundle's command tree and nothing of the server or the store", async (_, args) => {
    const { run, modules } = await loading(args);
    expect(run.code, run.stderr).toBe(0);
    expect(modules).toContain(join(ROOT, "bin/arbor.js"));
    expect(
      modules.some((m) => m.endsWith("/src/cli/main.js")),
      "the command tree, from the bundle",
    ).toBe(true);
    expect(heavy(modules)).toEqual([]);
  });

  it("an API command loads its RPC client, and still nothing of the server or the store", async () => {
    const { run, modules } = await loading(["iam", "groups", "list", "--api", "http://127.0.0.1:1"], { ARBOR_TOKEN: "not-a-token" });
    expect(run.stderr).toContain("cannot reach http://127.0.0.1:1");
    expect(modules.some((m) => m.includes("/node_modules/@connectrpc/connect-node/"))).toBe(true);
    expect(heavy(modules)).toEqual([]);
  });

  it("arbor __complete, which every TAB runs, loads nothing of the server or the store", async () => {
    const { run, modules } = await loading(["__complete", "--", "groups", "", "arbor iam groups get --api http://127.0.0.1:1 "], {
      ARBOR_TOKEN: "not-a-token",
    });
    expect([run.code, run.stdout, run.stderr]).toEqual([0, "", ""]);
    expect(
      modules.some((m) => m.endsWith("/src/cli/completion/complete-values.js")),
      "it did try the server",
    ).toBe(true);
    expect(heavy(modules)).toEqual([]);
  });

  it("a store command does load the store (so the checks above can see it)", async () => {
    const { run, modules } = await loading(["admin", "migrate", "--check", "--data-dir", join(dir, "no-store")]);
    expect(run.code, run.stderr).toBe(3);
    expect(heavy(modules)).toEqual(
      expect.arrayContaining([expect.stringMatching(/src\/store\//), expect.stringMatching(/node_modules\/kysely\//)]),
    );
  });
});
