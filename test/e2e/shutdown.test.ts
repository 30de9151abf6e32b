/**
 * Graceful shutdown of `arbor serve`: on SIGTERM it stops accepting, finishes the request in
 * flight, closes the store and exits 0.
 */
import http from "node:http";
import net from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runArbor, serveArbor } from "../support/process.js";

describe("arbor serve on SIGTERM", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-shutdown-"));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("finishes the request in flight, refuses new connections, and exits 0", async () => {
    const env = { ARBOR_DATA_DIR: dataDir };
    await runArbor(["admin", "bootstrap", "--org", "acme"], env);
    const serve = await serveArbor(["--log-level", "info"], env);
    const token = (await runArbor(["admin", "token", "--org", "acme"], { ...env, ARBOR_PORT: String(serve.port) })).stdout.trim();
    const orgs = await fetch(`http://127.0.0.1:${serve.port}/iam/v2beta1/groups?uidp.in_root=true`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const org = ((await orgs.json()) as { groups: { uid: string }[] }).groups[0]!.uid;

    const body = JSON.stringify({ name: "made during shutdown" });
    let answered = false;
    const req = http.request({
      host: "127.0.0.1",
      port: serve.port,
      method: "POST",
      path: `/iam/v2beta1/groups/${org}`,
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "content-length": String(body.length) },
    });
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      req.once("response", (res) => {
        answered = true;
        let text = "";
        res.on("data", (d: Buffer) => (text += d.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.once("error", reject);
    });
    req.write(body.slice(0, 5));
    await new Promise((r) => setTimeout(r, 100));
    serve.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));

    const refused = await new Promise<boolean>((resolve) => {
      const s = net.connect(serve.port, "127.0.0.1");
      s.once("connect", () => (s.destroy(), resolve(false)));
      s.once("error", () => resolve(true));
    });
    expect(refused).toBe(true);
    expect(answered).toBe(false);

    req.end(body.slice(5));
    const { status, text } = await response;
    expect(status).toBe(200);
    expect(JSON.parse(text)).toMatchObject({ name: "made during shutdown" });
    expect(await serve.exited).toBe(0);
    expect(serve.lines.map((l) => l.msg)).toEqual(expect.arrayContaining(["shutting down: finishing in-flight requests", "stopped"]));
  });
});
