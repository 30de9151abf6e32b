/**
 * CNCF Distribution (`docker-registry`) and `skopeo` for end-to-end tests: whether they are
 * installed (under CI=true their absence fails the tests instead of skipping them), a free
 * loopback port, the registry started on a configuration and waited for, and skopeo runs.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";

/** Why the registry tests cannot run here; undefined when both tools are installed. */
export function missingRegistryTools(): string | undefined {
  const missing = ["docker-registry", "skopeo"].filter((tool) => spawnSync("sh", ["-c", `command -v ${tool}`]).status !== 0);
  return missing.length === 0
    ? undefined
    : `not installed: ${missing.join(", ")} (Debian packages docker-registry and skopeo; .ci/run installs them)`;
}

/** A loopback port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** A running registry. */
export interface TestRegistry {
  child: ChildProcess;
  /** Everything it logged. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `docker-registry serve configFile` and waits until http://address/v2/ answers. */
export async function startRegistry(configFile: string, address: string): Promise<TestRegistry> {
  const child = spawn("docker-registry", ["serve", configFile], { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const registry = {
    child,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with ${child.exitCode}: ${output}`);
    const status = await fetch(`http://${address}/v2/`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 401) return registry;
    if (Date.now() > deadline) {
      await registry.stop();
      throw new Error(`docker-registry did not answer on ${address} (last status ${status}): ${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** What a finished skopeo printed. */
export interface SkopeoResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs skopeo with args in env to completion. */
export function skopeo(args: string[], env: NodeJS.ProcessEnv): Promise<SkopeoResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("skopeo", args, { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}
