/**
 * A reader that stops early (`arbor --help | head`, a pager quit) closes arbor's stdout: the
 * command stops quietly, with the status it has, not with Node's stack trace of the EPIPE.
 */
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ARBOR_BIN, cleanEnv } from "../support/process.js";

/** Runs arbor with its stdout's reading end closed before it writes anything. */
function withClosedStdout(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ARBOR_BIN, ...args], { env: cleanEnv({}), stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.destroy();
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stderr }));
  });
}

describe("arbor writing into a closed pipe", () => {
  it.each(["--help", "serve --help", "completion bash"])("arbor %s stops quietly with status 0", async (command) => {
    const { code, stderr } = await withClosedStdout(command.split(" "));
    expect(stderr).toBe("");
    expect(code).toBe(0);
  });
});
