/**
 * A real HAProxy (Debian's `haproxy` package) in front of Arbor replicas, with the configuration
 * docs/operations.md gives operators ("Several replicas behind a load balancer"): round robin,
 * health checks on /readyz, a failed connection tried again on another replica, and refused
 * credentials throttled per client address.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A running HAProxy. */
export interface TestHaproxy {
  readonly url: string;
  readonly config: string;
  close(): Promise<void>;
}

/** Whether haproxy is installed; under CI=true its absence is a failure, not a skip. */
export function haveHaproxy(): boolean {
  const found = spawnSync("haproxy", ["-v"], { stdio: "ignore" }).status === 0;
  if (!found && process.env.CI === "true")
    throw new Error("haproxy is not installed (apt-get install haproxy); CI needs it for the replicas suite");
  return found;
}

/** A loopback port nothing listens on now (HAProxy's own, known before the replicas start). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The configuration: HAProxy on 127.0.0.1:port before the replicas at 127.0.0.1:<each of ports>. */
export function haproxyConfig(port: number, replicaPorts: readonly number[]): string {
  return `global
    maxconn 4096

defaults
    mode http
    timeout connect 2s
    timeout client 65s
    timeout server 65s
    timeout http-keep-alive 4s
    # A connection a replica refused (it is down) is tried again, on another replica; a request
    # that reached a replica is never sent twice (a create might have landed).
    retries 3
    retry-on conn-failure
    option redispatch 1

frontend arbor
    bind 127.0.0.1:${port}
    # The client's address, appended to X-Forwarded-For; the replicas trust HAProxy's
    # (ARBOR_TRUSTED_PROXIES) and key their per-address budgets by it.
    option forwardfor
    default_backend replicas

backend replicas
    balance roundrobin
    option httpchk GET /readyz
    http-check expect status 200
    default-server inter 1s fall 2 rise 2
${replicaPorts.map((p, i) => `    server replica${i + 1} 127.0.0.1:${p} check`).join("\n")}
`;
}

/** Starts haproxy in the foreground on port with the configuration above; resolves once it answers. */
export async function startHaproxy(port: number, replicaPorts: readonly number[]): Promise<TestHaproxy> {
  const dir = mkdtempSync(join(tmpdir(), "arbor-haproxy-"));
  const url = `http://127.0.0.1:${port}`;
  const ready = () =>
    fetch(`${url}/readyz`).then(
      (r) => r.status === 200,
      () => false,
    );
  return runHaproxy(dir, haproxyConfig(port, replicaPorts), url, ready, "does not answer");
}

/**
 * Checks config (`haproxy -c`), runs haproxy in the foreground on it from dir, and resolves once
 * ready() says so; close() stops it and removes dir.
 */
async function runHaproxy(dir: string, config: string, url: string, ready: () => Promise<boolean>, notReady: string): Promise<TestHaproxy> {
  const file = join(dir, "haproxy.cfg");
  writeFileSync(file, config);
  const check = spawnSync("haproxy", ["-c", "-f", file], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`haproxy -c: ${check.stdout}${check.stderr}`);
  const child = spawn("haproxy", ["-db", "-f", file], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited: ${stderr}`);
    if (await ready()) break;
    if (i > 100) throw new Error(`haproxy ${notReady}: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    config,
    async close() {
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** How a proxy mounted at a path forwards it: kept (`/arbor/iam/...`) or stripped (`/iam/...`). */
export type PrefixMode = "keeps" | "strips";

/**
 * The configuration of a TLS-terminating HAProxy that mounts Arbor at `prefix` of its origin, as
 * docs/operations.md shows ("Behind a proxy at a path"): only paths below the prefix reach Arbor
 * (anything else is HAProxy's 404), forwarded with the prefix or without it.
 */
export function prefixProxyConfig(port: number, pemFile: string, prefix: string, mode: PrefixMode, upstreamPort: number): string {
  return `global
    maxconn 256

defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s

frontend https
    bind 127.0.0.1:${port} ssl crt ${pemFile} alpn h2,http/1.1
    http-request deny deny_status 404 unless { path ${prefix} } || { path_beg ${prefix}/ }
    default_backend arbor

backend arbor
${mode === "strips" ? `    http-request replace-path ^${prefix}/?(.*)$ /\\1\n` : ""}    server arbor 127.0.0.1:${upstreamPort}
`;
}

/** Starts the proxy above; resolves once it listens (Arbor behind it may start later). */
export async function startPrefixProxy(
  port: number,
  tls: { certPem: string; keyPem: string },
  prefix: string,
  mode: PrefixMode,
  upstreamPort: number,
): Promise<TestHaproxy> {
  const dir = mkdtempSync(join(tmpdir(), "arbor-haproxy-"));
  const pemFile = join(dir, "site.pem");
  writeFileSync(pemFile, `${tls.certPem.trimEnd()}\n${tls.keyPem}`, { mode: 0o600 });
  const listening = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1", () => (socket.end(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
  const config = prefixProxyConfig(port, pemFile, prefix, mode, upstreamPort);
  return runHaproxy(dir, config, `https://localhost:${port}${prefix}`, listening, "does not listen");
}
