/**
 * `arbor serve` caps V8's young generation (docs/operations.md, Memory): it restarts itself in
 * place with --max-semi-space-size=16, keeping its process id, unless the operator chose a value.
 * `arbor advisories import` does too, and holds glibc's malloc to two arenas (MALLOC_ARENA_MAX)
 * unless the operator set a number.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveArbor, spawnArbor } from "../support/process.js";

/** The command line a process runs now, from /proc. */
async function commandLine(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").filter((a) => a !== "");
}

/** A process's MALLOC_ARENA_MAX now, from /proc. */
async function arenaMax(pid: number): Promise<string | undefined> {
  const env = (await readFile(`/proc/${pid}/environ`, "utf8")).split("\0");
  return env.find((e) => e.startsWith("MALLOC_ARENA_MAX="))?.slice("MALLOC_ARENA_MAX=".length);
}

describe.runIf(process.platform === "linux")("arbor serve's heap", () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "arbor-serve-heap-"));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it.each([
    // The process we spawned now runs with the flag: it replaced itself, keeping its id.
    ["by default, caps the young generation, in the same process", {}, ["--max-semi-space-size=16"]],
    // NODE_OPTIONS reaches V8 without showing on the command line.
    ["leaves the operator's own value alone", { NODE_OPTIONS: "--max-semi-space-size=32" }, []],
  ])("%s", async (_name, env: Record<string, string>, flags: string[]) => {
    const serve = await serveArbor(["--data-dir", dataDir], env);
    try {
      const args = await commandLine(serve.child.pid as number);
      expect(args.filter((a) => a.startsWith("--max-semi-space-size"))).toEqual(flags);
      expect(args.slice(-5)).toEqual(["serve", "--port", "0", "--data-dir", dataDir]);
      // The server's malloc is left as it was (S7's memory was measured so).
      expect(await arenaMax(serve.child.pid as number)).toBe(process.env.MALLOC_ARENA_MAX);
    } finally {
      serve.child.kill("SIGTERM");
      expect(await serve.exited).toBe(0);
    }
  });
});

describe.runIf(process.platform === "linux")("arbor advisories import's memory", () => {
  let dir: string;
  let fifo: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "arbor-import-heap-"));
    // An archive nobody writes: the import waits in its open() as long as the test looks.
    fifo = join(dir, "waiting.zip");
    execFileSync("mkfifo", [fifo]);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    // (Unless the test's own environment sets a number, which the import keeps.)
    [
      "by default, caps the young generation and holds malloc to two arenas",
      {},
      ["--max-semi-space-size=16"],
      process.env.MALLOC_ARENA_MAX ?? "2",
    ],
    ["leaves the operator's own number of arenas alone", { MALLOC_ARENA_MAX: "8" }, ["--max-semi-space-size=16"], "8"],
  ])("%s", async (_name, env: Record<string, string>, flags: string[], arenas: string) => {
    const run = spawnArbor(["advisories", "import", fifo], { ...env, ARBOR_DATA_DIR: join(dir, "data") });
    try {
      const pid = run.child.pid as number;
      // Until it has replaced itself, the process runs the command line it was spawned with.
      const deadline = Date.now() + 10_000;
      while (!(await commandLine(pid)).some((a) => a.startsWith("--max-semi-space-size")) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
      }
      expect((await commandLine(pid)).filter((a) => a.startsWith("--max-semi-space-size"))).toEqual(flags);
      expect(await arenaMax(pid)).toBe(arenas);
    } finally {
      run.child.kill("SIGKILL");
      await run.done;
    }
  });
});
