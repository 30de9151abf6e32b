/**
 * `arbor admin audit` against a running server's data directory: the changes made through the
 * API, newest first, as a table and as JSON lines, narrowed by organization and method.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runArbor, serveArbor, type ServeProcess } from "../support/process.js";

describe("arbor admin audit (SQLite)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-audit-"));
  let serve: ServeProcess;
  let env: Record<string, string>;
  let org: string;
  let team: string;

  beforeAll(async () => {
    serve = await serveArbor(["--data-dir", dataDir]);
    env = { ARBOR_DATA_DIR: dataDir, ARBOR_PORT: String(serve.port) };
    org = (JSON.parse((await runArbor(["admin", "bootstrap", "--org", "acme"], env)).stdout) as { uid: string }).uid;
    const token = (await runArbor(["admin", "token", "--org", "acme"], env)).stdout.trim();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`http://127.0.0.1:${serve.port}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { uid: string };
    };
    team = (await call("POST", `/iam/v2beta1/groups/${org}`, { name: "team" })).uid;
    await call("PATCH", `/iam/v2beta1/groups/${team}`, { description: "the team" });
  });
  afterAll(async () => {
    serve?.child.kill("SIGTERM");
    await serve?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints a table, newest first, times as every table shows them, full uids when wide", async () => {
    const { code, stdout, stderr } = await runArbor(["admin", "audit", "--org", "acme", "-o", "wide"], env);
    expect(stderr).toBe(`arbor: store: SQLite ${join(dataDir, "arbor.db")}\n`);
    expect(code).toBe(0);
    const lines = stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^TIME\s+ACTOR\s+ACTION\s+TYPE\s+RESOURCE$/);
    const row = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC {2}\S+\s+(\S+)\s+(\S+)\s+(\S+)$/;
    expect(lines.slice(1).map((l) => row.exec(l)?.slice(1))).toEqual([
      ["update", "Group", team],
      ["create", "Group", team],
    ]);
    const short = (await runArbor(["admin", "audit", "--org", "acme", "-o", "table"], env)).stdout;
    expect(short).toContain(`…${team.slice(team.lastIndexOf("/"))}\n`);
    expect(short).not.toContain(team);
  });

  it("prints JSON lines in a pipe unless told otherwise, as every command does", async () => {
    const { code, stdout } = await runArbor(["admin", "audit", "--org", "acme"], env);
    expect(code).toBe(0);
    expect(
      stdout
        .trimEnd()
        .split("\n")
        .map((l) => (JSON.parse(l) as { action: string }).action),
    ).toEqual(["update", "create"]);
  });

  it("prints JSON lines as the API shows events, narrowed by method", async () => {
    const { code, stdout } = await runArbor(
      ["admin", "audit", "--org", org, "--method", "arbor.iam.v2beta1.GroupsService/UpdateGroup", "-o", "json"],
      env,
    );
    expect(code).toBe(0);
    const events = stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      action: "update",
      resourceUid: team,
      before: { description: "" },
      after: { description: "the team" },
    });
  });

  it("exports the events before a time, oldest first, to a new 0600 file it will not overwrite", async () => {
    const file = join(dataDir, "export.jsonl");
    const later = new Date(Date.now() + 60_000).toISOString();
    const { code, stdout } = await runArbor(["admin", "audit", "--org", "acme", "--before", later, "--export", file], env);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(`exported 2 events to ${file}`);
    const events = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, any>);
    expect(events.map((e) => e.action)).toEqual(["create", "update"]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const none = join(dataDir, "none.jsonl");
    expect((await runArbor(["admin", "audit", "--before", "2000-01-01T00:00:00Z", "--export", none], env)).stdout.trim()).toBe(
      `exported 0 events to ${none}`,
    );
    const again = await runArbor(["admin", "audit", "--export", file], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${file} exists: export to a new file`);
  });

  it.each([
    { args: ["--limit", "0"], want: "--limit must be a whole number" },
    { args: ["--org", "nope"], want: 'no organization named "nope"' },
    { args: ["--before", "yesterday"], want: "--before must be an RFC 3339 time" },
  ])("refuses $args with exit code 2", async ({ args, want }) => {
    const { code, stderr } = await runArbor(["admin", "audit", ...args], env);
    expect(code).toBe(2);
    expect(stderr).toContain(want);
  });
});
