/**
 * The admin commands against a running server on the same data directory, as a fresh install
 * uses them: bootstrap an organization, mint a token, call the API with it.
 */
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeProtectedHeader } from "jose";
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
    expect(first.stderr).toBe(`arbor: store: SQLite ${join(dataDir, "arbor.db")}\n`);
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

  it("rotate-signing-key makes a new key sign; the running server still accepts the old key's tokens and publishes both", async () => {
    const before = (await runArbor(["admin", "token", "--org", "acme"], env)).stdout.trim();
    const rotated = await runArbor(["admin", "rotate-signing-key"], env);
    expect(rotated.stderr).toBe(`arbor: store: SQLite ${join(dataDir, "arbor.db")}\n`);
    expect(rotated.code).toBe(0);
    const { kid, previousKeysRetireTime } = JSON.parse(rotated.stdout) as { kid: string; previousKeysRetireTime: string };
    const oldKid = decodeProtectedHeader(before).kid;
    expect(kid).not.toBe(oldKid);
    // The token lifetime, a minute for replicas to notice, five of skew: 66 minutes from now.
    expect(Date.parse(previousKeysRetireTime) - Date.now()).toBeGreaterThan(65 * 60_000);
    expect(Date.parse(previousKeysRetireTime) - Date.now()).toBeLessThanOrEqual(66 * 60_000);
    const after = (await runArbor(["admin", "token", "--org", "acme"], env)).stdout.trim();
    expect(decodeProtectedHeader(after).kid).toBe(kid);
    const base = `http://127.0.0.1:${serve.port}`;
    const jwks = (await (await fetch(`${base}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] };
    expect(jwks.keys.map((k) => k.kid).sort()).toEqual([kid, oldKid].sort());
    for (const token of [before, after]) {
      const res = await fetch(`${base}/iam/v2beta1/groups?uidp.in_root=true`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.status).toBe(200);
    }
  });

  it("a copy of the database without its secrets key signs nothing: admin token fails and says why", async () => {
    const copy = mkdtempSync(join(tmpdir(), "arbor-copy-"));
    try {
      for (const f of ["arbor.db", "arbor.db-wal"]) if (existsSync(join(dataDir, f))) copyFileSync(join(dataDir, f), join(copy, f));
      const { code, stdout, stderr } = await runArbor(["admin", "token", "--org", "acme"], { ...env, ARBOR_DATA_DIR: copy });
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toContain(
        `arbor: the store's secrets are sealed with a secrets key that the key file ${join(copy, "secrets.key")} ` +
          "(ARBOR_SECRETS_KEY is unset) does not hold",
      );
      // With the installation's key it works: the key file is all the copy lacked.
      const key = readFileSync(join(dataDir, "secrets.key"), "utf8").trim();
      const keyed = await runArbor(["admin", "token", "--org", "acme"], { ...env, ARBOR_DATA_DIR: copy, ARBOR_SECRETS_KEY: key });
      expect(keyed.code).toBe(0);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("token for an organization that does not exist is a usage error", async () => {
    const { code, stderr, stdout } = await runArbor(["admin", "token", "--org", "nope"], env);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain('there is no organization named "nope"');
  });
});

describe("arbor command line", () => {
  it.each([
    ["--help"],
    ["serve", "--help"],
    ["admin", "bootstrap", "--help"],
    ["admin", "token", "--help"],
    ["admin", "rotate-signing-key", "--help"],
  ])("%s prints help and exits 0", async (...args) => {
    const { code, stdout } = await runArbor(args);
    expect(code).toBe(0);
    expect(stdout).toContain("Usage: arbor");
  });

  it("an unknown command exits 2", async () => {
    const { code, stderr } = await runArbor(["frobnicate"]);
    expect(code).toBe(2);
    expect(stderr).toContain("unknown command");
  });

  it("a typo says what was meant and where help is, not the whole help after it", async () => {
    const { code, stderr, stdout } = await runArbor(["iam", "grops"]);
    expect(code).toBe(2);
    expect(stderr).toBe("error: unknown command 'grops'\n(Did you mean groups?)\n(add --help for the commands and flags)\n");
    expect(stdout).toBe("");
  });

  it("a bad setting exits 2 naming it", async () => {
    const { code, stderr } = await runArbor(["admin", "token", "--org", "x"], { ARBOR_DATABASE_URL: "mysql://nope" });
    expect(code).toBe(2);
    expect(stderr).toContain("ARBOR_DATABASE_URL");
  });
});
