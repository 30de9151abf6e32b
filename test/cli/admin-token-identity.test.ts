/**
 * `arbor admin token --identity UID` against a running server on the same data directory: the
 * token is that identity's and carries exactly what its role bindings grant; a uid that is no
 * identity gets no token.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BUILTIN_ROLES } from "../../src/domain/roles.js";
import { runArbor, serveArbor, type ServeProcess } from "../support/process.js";

describe("arbor admin token --identity (SQLite)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-cli-"));
  const person = "abcdef0123456789abcdef0123456789abcdef01";
  /** A workload identity made through the API in the first test (a person exists only after a login). */
  let robot: string;
  let serve: ServeProcess;
  let env: Record<string, string>;
  let base: string;

  beforeAll(async () => {
    serve = await serveArbor(["--data-dir", dataDir, "--log-level", "info"]);
    env = { ARBOR_DATA_DIR: dataDir, ARBOR_PORT: String(serve.port) };
    base = `http://127.0.0.1:${serve.port}`;
  });
  afterAll(async () => {
    serve?.child.kill("SIGTERM");
    await serve?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const api = (token: string, path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" } });

  it("prints a one-hour token for the identity, which holds what its bindings grant", async () => {
    const org = JSON.parse((await runArbor(["admin", "bootstrap", "--org", "acme"], env)).stdout) as { uid: string };
    const ownerToken = (await runArbor(["admin", "token", "--org", "acme"], env)).stdout.trim();
    const made = await api(ownerToken, `/iam/v2beta1/identities/${org.uid}`, {
      method: "POST",
      body: JSON.stringify({ name: "robot", claimMatch: { issuer: "https://ci.example", subject: "robot" } }),
    });
    robot = ((await made.json()) as { uid: string }).uid;

    const { code, stdout, stderr } = await runArbor(["admin", "token", "--identity", robot], env);
    expect(stderr).toBe(`arbor: store: SQLite ${join(dataDir, "arbor.db")}\n`);
    expect(code).toBe(0);
    const token = stdout.trim();
    const claims = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as Record<string, any>;
    expect(claims).toMatchObject({ sub: robot, aud: `http://localhost:${serve.port}` });
    expect(claims.exp - claims.iat).toBe(3600);

    expect((await api(token, `/iam/v2beta1/groups/${org.uid}`)).status).toBe(403);
    const bound = await api(ownerToken, `/iam/v2beta1/roleBindings/${org.uid}`, {
      method: "POST",
      body: JSON.stringify({ identityUid: robot, roleUid: BUILTIN_ROLES.get("viewer")!.uid }),
    });
    expect(bound.status).toBe(200);
    expect((await api(token, `/iam/v2beta1/groups/${org.uid}`)).status).toBe(200);
    expect((await api(token, `/iam/v2beta1/groups/${org.uid}`, { method: "POST", body: '{"name": "x"}' })).status).toBe(403);
  });

  it.each([
    ["both --org and --identity", ["--org", "acme", "--identity", person], "give exactly one of --org and --identity"],
    ["neither", [], "give exactly one of --org and --identity"],
    ["a malformed uid", ["--identity", "alice"], '--identity: "alice" is not a valid uid'],
    ["an uppercase uid", ["--identity", person.toUpperCase()], "is not a valid uid"],
    // Its token would be refused: a person who never logged in, or a deleted identity, has no row.
    ["a uid no identity has", ["--identity", person], `--identity: no identity has the uid ${person}`],
  ])("refuses %s as a usage error (exit 2)", async (_name, args, message) => {
    const { code, stdout, stderr } = await runArbor(["admin", "token", ...args], env);
    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toContain(message);
  });

  it("documents --identity in its help", async () => {
    const { code, stdout } = await runArbor(["admin", "token", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("--identity <uid>");
    expect(stdout).toContain("arbor admin token --identity");
  });
});
