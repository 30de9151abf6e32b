/**
 * `arbor serve` caps V8's young generation (docs/operations.md, Memory): it restarts itself in
 * place with --max-semi-space-size=16, keeping its process id, unless the operator chose a value.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveArbor } from "../support/process.js";

/** The command line a process runs now, from /proc. */
async function commandLine(pid: number): Promise<string[]> {
  return (await readFile(`/proc/${pid}/cmdline`, "utf8")).split("\0").filter((a) => a !== "");
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
    } finally {
      serve.child.kill("SIGTERM");
      expect(await serve.exited).toBe(0);
    }
  });
});
