/**
 * OpenStack Keystone from Debian (package keystone, 2:22.0.2 in bookworm) as S8's peer, set up
 * the way Keystone's documentation recommends for production rather than Debian's defaults: a
 * PostgreSQL database of its own (python3-psycopg2), the cache on (`keystone-manage doctor`
 * calls caching "highly recommended") with memcached as its backend (dogpile.cache.memcached,
 * which oslo.cache recommends below 100 threaded servers; python3-memcache), fernet tokens, and
 * one uWSGI worker process per core (uwsgi-core with the python3 plugin, as Debian's own
 * keystone-uwsgi.ini serves /usr/bin/keystone-wsgi-public), all in the foreground of the harness
 * on loopback: `keystone-manage db_sync`, `fernet_setup`, `credential_setup`, `bootstrap`, then
 * memcached and uWSGI.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import net from "node:net";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { freePort, stopChild } from "./arbor-process.js";

const run = promisify(execFile);

/** A running Keystone. */
export interface Keystone {
  readonly base: string;
  /** An admin token scoped to the admin project. */
  readonly token: string;
  /** Its PostgreSQL database, as a libpq URL (for generating rows straight into it). */
  readonly databaseUrl: string;
  /** uWSGI worker processes (one per core). */
  readonly processes: number;
  stop(): Promise<void>;
}

/** The admin password bootstrap sets. */
const PASSWORD = "bench-admin-secret";

/**
 * Sets Keystone up in a temp dir with a database of its own on the PostgreSQL server of
 * serverUrl (created here, dropped by stop) and a memcached of its own, and starts it; resolves
 * when it hands out a token and every worker answers.
 */
export async function startKeystone(log: (line: string) => void, serverUrl: string): Promise<Keystone> {
  const dir = mkdtempSync(join(tmpdir(), "arbor-bench-keystone-"));
  const children: { child: ChildProcess; exited: Promise<unknown> }[] = [];
  const database = `keystone_bench_${process.pid}`;
  const databaseUrl = new URL(serverUrl);
  databaseUrl.pathname = `/${database}`;
  let created = false;
  const stop = async () => {
    for (const c of children.reverse()) await stopChild(c.child, c.exited);
    if (created) await admin(serverUrl, `drop database if exists ${database} with (force)`);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await admin(serverUrl, `drop database if exists ${database} with (force)`);
    await admin(serverUrl, `create database ${database}`);
    created = true;
    const cachePort = await freePort();
    children.push(
      background(
        "memcached",
        ["-l", "127.0.0.1", "-p", String(cachePort), "-U", "0", "-m", "64", ...(process.getuid?.() === 0 ? ["-u", "nobody"] : [])],
        dir,
      ),
    );
    await listening(cachePort);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const conf = join(dir, "keystone.conf");
    writeFileSync(
      conf,
      [
        "[DEFAULT]",
        `log_dir = ${dir}`,
        "log_file = keystone.log",
        "[database]",
        `connection = ${sqlalchemyUrl(databaseUrl)}`,
        "[cache]",
        "enabled = true",
        "backend = dogpile.cache.memcached",
        `memcache_servers = 127.0.0.1:${cachePort}`,
        "[token]",
        "provider = fernet",
        "[fernet_tokens]",
        `key_repository = ${dir}/fernet-keys`,
        "[fernet_receipts]",
        `key_repository = ${dir}/fernet-keys`,
        "[credential]",
        `key_repository = ${dir}/credential-keys`,
        "",
      ].join("\n"),
    );
    const manage = (...args: string[]) => run("keystone-manage", ["--config-file", conf, ...args], { maxBuffer: 16 << 20 });
    const user = ["--keystone-user", process.env.USER ?? "root", "--keystone-group", process.env.USER ?? "root"];
    const t0 = performance.now();
    await manage("db_sync");
    await manage("fernet_setup", ...user);
    await manage("credential_setup", ...user);
    await manage(
      "bootstrap",
      "--bootstrap-password",
      PASSWORD,
      "--bootstrap-admin-url",
      `${base}/v3/`,
      "--bootstrap-public-url",
      `${base}/v3/`,
      "--bootstrap-region-id",
      "RegionOne",
    );
    log(`S8: Keystone set up in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const processes = cpus().length;
    const uwsgi = background(
      "uwsgi",
      [
        "--plugin",
        "python3",
        "--http11-socket",
        `127.0.0.1:${port}`,
        "--wsgi-file",
        "/usr/bin/keystone-wsgi-public",
        "--master",
        "--lazy-apps",
        "--enable-threads",
        "--thunder-lock",
        "--die-on-term",
        "--need-app",
        "--processes",
        String(processes),
        "--threads",
        "1",
        "--buffer-size",
        "65535",
        "--logto",
        join(dir, "uwsgi.log"),
      ],
      dir,
      { OS_KEYSTONE_CONFIG_FILES: conf },
    );
    children.push(uwsgi);
    const started = performance.now();
    let token: string | undefined;
    while (token === undefined) {
      if (uwsgi.child.exitCode !== null) throw new Error(`uwsgi exited with ${uwsgi.child.exitCode}; see its log`);
      if (performance.now() - started > 180_000) throw new Error("Keystone did not answer in 180 s");
      token = await adminToken(base).catch(() => undefined);
      if (token === undefined) await new Promise((r) => setTimeout(r, 500));
    }
    await warmWorkers(base, token, processes);
    return { base, token, databaseUrl: databaseUrl.href, processes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Runs one statement on the server's maintenance connection (create or drop a database). */
async function admin(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** The SQLAlchemy URL of a libpq one, with the driver Debian packages (python3-psycopg2). */
function sqlalchemyUrl(url: URL): string {
  return `postgresql+psycopg2://${url.href.slice(url.protocol.length + 2)}`;
}

function background(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const child = spawn(command, args, { env: { ...process.env, ...env }, cwd, stdio: "ignore" });
  const exited = new Promise<unknown>((resolve) => child.once("exit", resolve));
  return { child, exited };
}

/** Waits until something accepts connections on 127.0.0.1:port. */
async function listening(port: number): Promise<void> {
  const started = performance.now();
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, "127.0.0.1", () => (socket.end(), resolve(true)));
      socket.once("error", () => resolve(false));
    });
    if (ok) return;
    if (performance.now() - started > 10_000) throw new Error(`nothing listens on port ${port} after 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * uWSGI loads the app in each worker on its first request (lazy apps), and a worker still
 * loading may drop a connection: the first API call of a run failed so once ("socket hang up").
 * Reads until every worker has answered several times in a row.
 */
async function warmWorkers(base: string, token: string, processes: number): Promise<void> {
  const started = performance.now();
  for (let ok = 0; ok < processes * 4;) {
    if (performance.now() - started > 120_000) throw new Error("Keystone's workers did not all answer in 120 s");
    const res = await request(`${base}/v3/domains`, "GET", { "x-auth-token": token }).catch(() => undefined);
    ok = res?.status === 200 ? ok + 1 : 0;
  }
}

async function adminToken(base: string): Promise<string | undefined> {
  const body = {
    auth: {
      identity: { methods: ["password"], password: { user: { name: "admin", domain: { id: "default" }, password: PASSWORD } } },
      scope: { project: { name: "admin", domain: { id: "default" } } },
    },
  };
  const res = await request(`${base}/v3/auth/tokens`, "POST", {}, body);
  return res.status === 201 ? res.headers["x-subject-token"] : undefined;
}

/** A Keystone API call that must succeed; returns the parsed body. */
export async function keystoneApi<T>(ks: Keystone, method: string, path: string, body?: unknown): Promise<T> {
  const res = await request(`${ks.base}${path}`, method, { "x-auth-token": ks.token }, body);
  if (res.status >= 300) throw new Error(`Keystone ${method} ${path}: ${res.status} ${res.text.slice(0, 300)}`);
  return (res.text ? JSON.parse(res.text) : {}) as T;
}

/**
 * One request on a connection of its own: uWSGI may close an idle keep-alive connection just
 * as fetch reuses it, which fails the call for no fault of Keystone's.
 */
function request(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; headers: Record<string, string | undefined>; text: string }> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method, agent: false, headers: { ...headers, ...(payload !== undefined && { "content-type": "application/json" }) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers as Record<string, string | undefined>,
            text: Buffer.concat(chunks).toString(),
          }),
        );
        res.on("error", reject);
      },
    );
    req.setTimeout(300_000, () => req.destroy(new Error(`Keystone ${method} ${url}: no answer in 300 s`)));
    req.on("error", reject);
    req.end(payload);
  });
}
