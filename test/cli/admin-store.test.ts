/**
 * The admin commands find the store as the server does, say which one they opened, never make
 * one in the wrong place, and refuse to mint tokens the running server would refuse.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines, withClient } from "../support/engines.js";
import { runArbor, serveArbor, type ServeProcess } from "../support/process.js";

describe("arbor admin: which store, which issuer (SQLite)", () => {
  const dir = mkdtempSync(join(tmpdir(), "arbor-admin-store-"));
  const dataDir = join(dir, "data");
  let serve: ServeProcess;

  beforeAll(async () => {
    serve = await serveArbor(["--data-dir", dataDir]);
    const made = await runArbor(["admin", "bootstrap", "--org", "acme"], { ARBOR_DATA_DIR: dataDir, ARBOR_PORT: String(serve.port) });
    expect(made.code, made.stderr).toBe(0);
  });
  afterAll(async () => {
    serve?.child.kill("SIGTERM");
    await serve?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ["token", "--org", "acme"],
    ["rotate-signing-key"],
    ["audit"],
    ["registry-config", "--listen", ":5000", "--storage", "/nonexistent", "--registry-host", "r.example"],
  ])("admin %s refuses a store that does not exist, naming where it looked, and makes nothing", async (...args) => {
    const nowhere = join(dir, `nowhere-${args[0]}`);
    const run = await runArbor(["admin", ...args], { ARBOR_DATA_DIR: nowhere });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(`arbor: there is no Arbor store at SQLite ${join(nowhere, "arbor.db")}.`);
    expect(run.stderr).toContain("ARBOR_DATA_DIR");
    expect(existsSync(nowhere)).toBe(false);
  });

  it("bootstrap still makes a new store, and says which", async () => {
    const fresh = join(dir, "fresh");
    const run = await runArbor(["admin", "bootstrap", "--org", "new"], { ARBOR_DATA_DIR: fresh });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(`arbor: store: SQLite ${join(fresh, "arbor.db")}\n`);
  });

  it("finds the store and the server's port through the config file, as the server does", async () => {
    const file = join(dir, "arbor.yaml");
    writeFileSync(file, `dataDir: ${dataDir}\nport: ${serve.port}\n`);
    const run = await runArbor(["admin", "token", "--org", "acme"], { ARBOR_CONFIG: file });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toBe(`arbor: store: SQLite ${join(dataDir, "arbor.db")}\n`);
    const res = await fetch(`http://127.0.0.1:${serve.port}/iam/v2beta1/groups?uidp.in_root=true`, {
      headers: { authorization: `Bearer ${run.stdout.trim()}` },
    });
    expect(res.status).toBe(200);
  });

  it("refuses to mint for an issuer the running server does not use, naming both", async () => {
    const served = `http://localhost:${serve.port}`;
    const run = await runArbor(["admin", "token", "--org", "acme"], { ARBOR_DATA_DIR: dataDir });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      `the server over this store issues tokens as ${served}, but this command would mint them as http://localhost:8080`,
    );
    const explicit = await runArbor(["admin", "token", "--org", "acme", "--issuer-url", "https://elsewhere.example"], {
      ARBOR_DATA_DIR: dataDir,
      ARBOR_PORT: String(serve.port),
    });
    expect(explicit.code).toBe(2);
    expect(explicit.stderr).toContain("would mint them as https://elsewhere.example");
  });

  it("refuses a token for another base URL unless --audience says so", async () => {
    const env = {
      ARBOR_DATA_DIR: dataDir,
      ARBOR_ISSUER_URL: `http://localhost:${serve.port}`,
      ARBOR_BASE_URL: "https://api.elsewhere.example",
    };
    const run = await runArbor(["admin", "token", "--org", "acme"], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      `answers as http://localhost:${serve.port}, but this command would mint tokens for https://api.elsewhere.example`,
    );
    const audience = await runArbor(["admin", "token", "--org", "acme", "--audience", "r.example"], env);
    expect(audience.code, audience.stderr).toBe(0);
  });
});

const postgres = engines.find((e) => e.name === "postgres");

describe.skipIf(postgres?.skipReason !== undefined)("arbor admin: which store (PostgreSQL)", () => {
  const url = process.env.ARBOR_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
  // A password in the URL (trust auth ignores it) must not be printed.
  const withPassword = url.replace("postgres://postgres@", "postgres://postgres:hunter2secret@");
  const schema = `arbor_admin_${randomBytes(6).toString("hex")}`;
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-admin-pg-"));
  const env = { ARBOR_DATABASE_URL: withPassword, ARBOR_DATABASE_SCHEMA: schema, ARBOR_DATA_DIR: dataDir };
  const schemaExists = () =>
    withClient(
      url,
      async (c) => (await c.query("select 1 from information_schema.schemata where schema_name = $1", [schema])).rowCount === 1,
    );

  afterAll(async () => {
    await withClient(url, (c) => c.query(`drop schema if exists ${schema} cascade`));
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses a schema that holds no store, names the database without credentials, and creates nothing", async () => {
    const run = await runArbor(["admin", "token", "--org", "acme"], env);
    expect(run.code).toBe(2);
    const host = new URL(url);
    expect(run.stderr).toContain(
      `there is no Arbor store at PostgreSQL ${host.hostname}:${host.port || "5432"}${host.pathname} (schema ${schema})`,
    );
    expect(run.stderr).not.toContain("hunter2secret");
    expect(run.stderr).not.toContain("postgres:");
    expect(await schemaExists()).toBe(false);
  });

  it("opens the store bootstrap made, and says which", async () => {
    const made = await runArbor(["admin", "bootstrap", "--org", "acme"], env);
    expect(made.code, made.stderr).toBe(0);
    const run = await runArbor(["admin", "token", "--org", "acme"], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(new RegExp(`^arbor: store: PostgreSQL [^\\n]+ \\(schema ${schema}\\)\\n$`));
    expect(run.stderr).not.toContain("hunter2secret");
  });
});
