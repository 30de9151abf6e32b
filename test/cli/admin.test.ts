/**
 * The admin commands against a running server on the same data directory, as a fresh install
 * uses them: bootstrap an organization, mint a token, call the API with it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runArbor, serveArbor, type ServeProcess } from "../support/process.js";

describe("arbor admin with a running server (SQLite)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-cli-"));
  let serve: ServeProcess;
  let env: Record<string, string>;

  beforeAll(async () => {
    serve = await serveArbor(["--data-dir", dataDir, "--log-level", "info"]);
    env = { ARBOR_DATA_DIR: dataDir, ARBOR_PORT: String(serve.port) };
  });
  afterAll(async () => {
    serve?.child.kill("SIGTERM");
    await serve?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("bootstrap creates the organization once and prints it as JSON", async () => {
    const first = await runArbor(["admin", "bootstrap", "--org", "acme", "--description", "Acme"], env);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const org = JSON.parse(first.stdout) as Record<string, unknown>;
    expect(org).toMatchObject({ name: "acme", description: "Acme", verified: false, resourceLimits: {} });
    expect(org.uid).toMatch(/^[0-9a-f]{40}$/);
    const again = await runArbor(["admin", "bootstrap", "--org", "acme"], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ uid: org.uid });
  });

  it("token prints an owner token the running server accepts, for that organization only", async () => {
    await runArbor(["admin", "bootstrap", "--org", "other"], env);
    const { code, stdout } = await runArbor(["admin", "token", "--org", "acme"], env);
    expect(code).toBe(0);
    const token = stdout.trim();
    expect(token.split(".")).toHaveLength(3);
    const base = `http://127.0.0.1:${serve.port}`;
    const res = await fetch(`${base}/iam/v2beta1/groups?uidp.in_root=true`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { groups: { name: string }[]; totalCount: string };
    expect(body.groups.map((g) => g.name)).toEqual(["acme"]);
    const create = await fetch(`${base}/iam/v2beta1/groups/${(body.groups[0] as unknown as { uid: string }).uid}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "engineering" }),
    });
    expect(create.status).toBe(200);
  });

  it("token for an organization that does not exist is a usage error", async () => {
    const { code, stderr, stdout } = await runArbor(["admin", "token", "--org", "nope"], env);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain('there is no organization named "nope"');
  });
});

describe("arbor command line", () => {
  it.each([["--help"], ["serve", "--help"], ["admin", "bootstrap", "--help"], ["admin", "token", "--help"]])(
    "%s prints help and exits 0",
    async (...args) => {
      const { code, stdout } = await runArbor(args);
      expect(code).toBe(0);
      expect(stdout).toContain("Usage: arbor");
    },
  );

  it("an unknown command exits 2", async () => {
    const { code, stderr } = await runArbor(["frobnicate"]);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown command");
  });

  it("a bad setting exits 2 naming it", async () => {
    const { code, stderr } = await runArbor(["admin", "token", "--org", "x"], { ARBOR_DATABASE_URL: "mysql://nope" });
    expect(code).toBe(2);
    expect(stderr).toContain("ARBOR_DATABASE_URL");
  });
});
