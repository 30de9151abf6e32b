/**
 * Arbor behind a real HAProxy (`option forwardfor`), listed in ARBOR_TRUSTED_PROXIES: each client
 * behind the proxy has its own budget of refused credentials, and a client that writes its own
 * X-Forwarded-For gains nothing (HAProxy adds its header after the client's, and Arbor reads from
 * the right). Clients are 127.0.0.2 and 127.0.0.4; HAProxy connects to Arbor from 127.0.0.3.
 * Without HAProxy installed the suite is skipped, and fails under CI=true (.ci/run installs it).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fetchFrom } from "../support/from-address.js";
import { serveArbor, type ServeProcess } from "../support/process.js";
import { freePort } from "../support/registry.js";

const missing =
  spawnSync("sh", ["-c", "command -v haproxy"]).status === 0
    ? undefined
    : "haproxy is not installed (Debian package haproxy; .ci/run installs it)";
if (missing !== undefined && process.env.CI === "true") throw new Error(`${missing}; CI needs it`);

const PROXY_SOURCE = "127.0.0.3";

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ port, host: "127.0.0.1" }, () => {
        socket.end();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing listens on ${port}`);
}

describe.skipIf(missing !== undefined)("Arbor behind HAProxy with ARBOR_TRUSTED_PROXIES", () => {
  const dir = mkdtempSync(join(tmpdir(), "arbor-haproxy-"));
  let serve: ServeProcess;
  let haproxy: ChildProcess;
  let front: number;

  beforeAll(async () => {
    serve = await serveArbor(["--data-dir", join(dir, "data"), "--host", "127.0.0.1"], {
      ARBOR_TRUSTED_PROXIES: PROXY_SOURCE,
      ARBOR_AUTH_FAILURES_PER_ADDRESS: "2/h",
      ARBOR_AUTH_FAILURES_PER_IDENTITY: "off",
    });
    front = await freePort();
    const config = join(dir, "haproxy.cfg");
    writeFileSync(
      config,
      [
        "global",
        "  log stderr format raw local0 err",
        "defaults",
        "  mode http",
        "  timeout connect 5s",
        "  timeout client 30s",
        "  timeout server 30s",
        "  option forwardfor",
        "frontend api",
        `  bind 127.0.0.1:${front}`,
        "  default_backend arbor",
        "backend arbor",
        `  server arbor 127.0.0.1:${serve.port} source ${PROXY_SOURCE}`,
        "",
      ].join("\n"),
    );
    haproxy = spawn("haproxy", ["-db", "-f", config], { stdio: ["ignore", "inherit", "inherit"] });
    await waitForPort(front);
  });
  afterAll(async () => {
    haproxy?.kill("SIGTERM");
    serve?.child.kill("SIGTERM");
    await serve?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  const refused = (client: string, forwardedFor?: string) =>
    fetchFrom(client, `http://127.0.0.1:${front}/sts/exchange?aud=x&identity=${"0".repeat(40)}`, {
      headers: { authorization: "Bearer not.a.token", ...(forwardedFor !== undefined && { "x-forwarded-for": forwardedFor }) },
    });

  it("throttles each client behind the proxy by its own address, whatever X-Forwarded-For it sends", async () => {
    const first: number[] = [];
    for (let i = 0; i < 3; i++) first.push((await refused("127.0.0.2", `203.0.113.${i + 1}`)).status);
    expect(first).toEqual([401, 401, 429]);
    // Another client behind the same proxy is untouched.
    expect((await refused("127.0.0.4")).status).toBe(401);
    const logged = () => serve.lines.filter((l) => l.msg === "request" && l.path === "/sts/exchange").map((l) => l.address);
    // The access log line is written as the response closes, and read from the child's stdout.
    for (let i = 0; i < 100 && logged().length < 4; i++) await new Promise((r) => setTimeout(r, 20));
    expect(logged()).toEqual(["127.0.0.2", "127.0.0.2", "127.0.0.2", "127.0.0.4"]);
  });
});
