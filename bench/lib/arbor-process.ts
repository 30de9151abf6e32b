/**
 * The Arbor server as its own process (the built bin/arbor.js), as users run it: ARBOR_*
 * environment, default log level (info, to a discarded stdout) unless a scenario says otherwise.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The repository: from bench/lib in the sources or dist/bench/lib once built. */
export const ROOT = findRoot(import.meta.dirname);
/** The CLI users run. */
export const ARBOR = join(ROOT, "bin/arbor.js");

function findRoot(dir: string): string {
  return existsSync(join(dir, "package.json")) ? dir : findRoot(dirname(dir));
}

/** A running server process. */
export interface ArborProcess {
  readonly base: string;
  readonly port: number;
  readonly pid: number;
  readonly env: NodeJS.ProcessEnv;
  /** Milliseconds from spawn to the first 200 of /readyz. */
  readonly readyMs: number;
  stop(): Promise<void>;
}

/** How to start one. */
export interface ArborStart {
  /** ARBOR_* settings on top of the port and base URL. */
  env: Record<string, string>;
  /** Extra node flags, e.g. --cpu-prof. */
  nodeArgs?: string[];
  /** Working directory (where --cpu-prof writes). */
  cwd?: string;
  /** The port; a free one when absent. */
  port?: number;
}

/** A free loopback TCP port. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The environment of a server on port with the given settings. */
export function arborEnv(port: number, settings: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, ARBOR_PORT: String(port), ARBOR_HOST: "127.0.0.1", ARBOR_BASE_URL: `http://127.0.0.1:${port}`, ...settings };
}

/** Spawns `node bin/arbor.js serve` and waits for /readyz to answer 200. */
export async function startArbor(start: ArborStart): Promise<ArborProcess> {
  const port = start.port ?? (await freePort());
  const env = arborEnv(port, start.env);
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, [...(start.nodeArgs ?? []), ARBOR, "serve"], {
    env,
    cwd: start.cwd ?? ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  for (;;) {
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null) throw new Error(`arbor serve exited with ${child.exitCode}: ${stderr}`);
    if (performance.now() - t0 > 120_000) throw new Error(`arbor serve was not ready in 120 s: ${stderr}`);
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - t0;
  return { base, port, pid: child.pid as number, env, readyMs, stop: () => stopChild(child, exited) };
}

/** SIGTERM, then SIGKILL after 10 s. */
export async function stopChild(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  await exited;
  clearTimeout(timer);
}

/** `arbor admin bootstrap --org` then `arbor admin token --org`: the org's uid and an owner token. */
export async function bootstrapOrg(env: NodeJS.ProcessEnv, org: string): Promise<{ org: string; token: string }> {
  const boot = await run(process.execPath, [ARBOR, "admin", "bootstrap", "--org", org], { env });
  const token = await run(process.execPath, [ARBOR, "admin", "token", "--org", org], { env });
  return { org: (JSON.parse(boot.stdout) as { uid: string }).uid, token: token.stdout.trim() };
}

/** Resident memory of a process in MB, from /proc/<pid>/status. */
export function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** A JSON API call that must answer 200. */
export async function api<T>(base: string, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}
