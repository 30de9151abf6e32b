/**
 * What runs, said three ways (docs/operations.md, Versions): `arbor version` (the command's and
 * the server's version and commit), the start-up line on stderr, and `arbor_build_info` on
 * /metrics. The commit is the one `npm run build` recorded, the checkout's HEAD.
 */
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeStore } from "../../src/cli/startup-line.js";
import { runArbor, serveArbor, type ServeProcess } from "../support/process.js";

const ROOT = join(import.meta.dirname, "../..");
const METRICS_TOKEN = "version-test-metrics-token-0123456789";

/** HEAD of this checkout: what the build must have recorded. */
function headCommit(): string {
  return execFileSync("git", ["rev-parse", "HEAD"], { cwd: ROOT, encoding: "utf8" }).trim();
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  expect(check(), what).toBe(true);
}

describe("versions", () => {
  let dataDir: string;
  let serve: ServeProcess;
  let version: string;
  let commit: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "arbor-version-"));
    version = (JSON.parse(await readFile(join(ROOT, "package.json"), "utf8")) as { version: string }).version;
    commit = headCommit();
    serve = await serveArbor(["--data-dir", dataDir], { ARBOR_METRICS_TOKEN: METRICS_TOKEN, ARBOR_ISSUER_URL: "https://id.example.test" });
  });
  afterAll(async () => {
    serve?.child.kill("SIGTERM");
    await serve?.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  it("the build recorded the checkout's commit", async () => {
    expect(JSON.parse(await readFile(join(ROOT, "dist/build-info.json"), "utf8"))).toEqual({ commit });
  });

  it("arbor version prints the command's and the server's version and commit", async () => {
    const api = `http://127.0.0.1:${serve.port}`;
    const r = await runArbor(["version", "--api", api]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `client: ${version} (commit ${commit}, node ${process.version})\nserver: ${version} (commit ${commit}) at ${api}\n`,
    );
    const json = await runArbor(["version", "-o", "json"], { ARBOR_API_URL: api });
    expect(JSON.parse(json.stdout)).toEqual({ client: { version, commit, node: process.version }, server: { version, commit, url: api } });
  });

  it("arbor version without a server prints the client's and fails; --client asks no server", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const r = await runArbor(["version", "--api", `http://127.0.0.1:${port}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(`client: ${version} (commit ${commit}, node ${process.version})\n`);
    expect(r.stderr).toContain(`cannot reach the server at http://127.0.0.1:${port}: ECONNREFUSED`);
    const client = await runArbor(["version", "--client", "--api", `http://127.0.0.1:${port}`]);
    expect(client).toEqual({ code: 0, stdout: `client: ${version} (commit ${commit}, node ${process.version})\n`, stderr: "" });
  });

  it("arbor version prints nothing a server makes up but a version", async () => {
    // Something else at the API URL, answering with terminal escape sequences.
    const liar = createServer((_req, res) =>
      res.end(JSON.stringify({ status: "SERVING", version: "1.0\u001b]0;pwned\u0007", commit: "abc" })),
    );
    await new Promise<void>((r) => liar.listen(0, "127.0.0.1", r));
    try {
      const r = await runArbor(["version", "--api", `http://127.0.0.1:${(liar.address() as { port: number }).port}`]);
      expect(r.code).toBe(1);
      expect(r.stdout + r.stderr).not.toContain("\u001b");
      expect(r.stderr).toContain("did not say its version");
    } finally {
      liar.close();
    }
  });

  it("arbor_build_info on /metrics carries version, commit and Node.js version", async () => {
    const text = await (
      await fetch(`http://127.0.0.1:${serve.port}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).text();
    expect(text).toContain(`arbor_build_info{version="${version}",commit="${commit}",node="${process.version}"} 1`);
  });

  it("writes one readable start-up line on stderr: version, listen address, store, issuer", async () => {
    await eventually(() => serve.stderr().includes("\n"), "a start-up line on stderr");
    expect(serve.stderr()).toBe(
      `arbor ${version} (commit ${commit.slice(0, 12)}, node ${process.version}) listening on http://*:${serve.port}; ` +
        `store SQLite ${resolve(dataDir, "arbor.db")}; issuer https://id.example.test\n`,
    );
    // The JSON log says the same for collectors.
    expect(serve.lines.find((l) => l.msg === "arbor is serving")).toMatchObject({ version, commit, port: serve.port });
  });

  it("names a PostgreSQL store by user, host and database, never its password or query", () => {
    const store = describeStore({
      dataDir: "x",
      databaseUrl: "postgres://arbor:s3cret@db.internal:5433/arbor?password=other&sslmode=require",
      databaseSchema: "tenant1",
    });
    expect(store).toBe("PostgreSQL arbor@db.internal:5433/arbor (schema tenant1)");
  });
});
