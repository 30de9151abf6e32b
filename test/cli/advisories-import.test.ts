/**
 * `arbor advisories import` as a person runs it, beside a running server on the same data
 * directory: reports, the summary line, exit codes, and the advisories the API then serves.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createStore } from "../../src/store/create-store.js";
import { TEST_SECRETS } from "../support/engines.js";
import { runArbor, serveArbor, type ServeProcess } from "../support/process.js";
import { FEED_IDS, folderEntries, OSV, writeZip } from "../support/osv.js";

const SUMMARY =
  /^imported (\d+), updated (\d+), unchanged (\d+), skipped (\d+)(, unreadable paths (\d+))? \((\d+) documents in \d+\.\d s\)$/;

function counts(stdout: string) {
  const m = SUMMARY.exec(stdout.trim().split("\n").at(-1) ?? "");
  if (!m) throw new Error(`no summary line in ${JSON.stringify(stdout)}`);
  return { imported: Number(m[1]), updated: Number(m[2]), unchanged: Number(m[3]), skipped: Number(m[4]), unreadable: Number(m[6] ?? 0) };
}

describe("arbor advisories import (SQLite, with a running server)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-cli-advisories-"));
  const work = mkdtempSync(join(tmpdir(), "arbor-cli-osv-"));
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
    rmSync(work, { recursive: true, force: true });
  });

  it("imports a folder and a zip, reports each malformed document with file and reason, and exits 0", async () => {
    const zip = join(work, "ghsa.zip");
    await writeZip(zip, { ...folderEntries(join(OSV.feed, "ghsa"), "advisories/"), "advisories/bad.json": "{" });
    const run = await runArbor(["advisories", "import", join(OSV.feed, "go"), zip, OSV.malformed], env);
    expect(run.code).toBe(0);
    expect(counts(run.stdout)).toEqual({ imported: 6, updated: 0, unchanged: 0, skipped: 9, unreadable: 0 });
    const reports = run.stderr.trim().split("\n");
    expect(reports).toHaveLength(9);
    expect(reports).toContain(
      `arbor: skipped ${zip}!advisories/bad.json: not JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2)`,
    );
    expect(reports).toContain(
      `arbor: skipped ${join(OSV.malformed, "missing-modified.json")}: document: must have required property 'modified'`,
    );
    // Not a terminal: no progress bar, no control characters.
    expect(run.stderr).not.toMatch(/[\r\u001b]/);
  });

  it("imports the rest, and the running server serves them", async () => {
    const run = await runArbor(["advisories", "import", OSV.feed], env);
    expect(counts(run.stdout)).toEqual({ imported: FEED_IDS.length - 6, updated: 0, unchanged: 6, skipped: 0, unreadable: 0 });
    await runArbor(["admin", "bootstrap", "--org", "acme"], env);
    const token = (await runArbor(["admin", "token", "--org", "acme"], env)).stdout.trim();
    const res = await fetch(`http://127.0.0.1:${serve.port}/vulnerabilities/v2beta1/advisories?page_size=200`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const body = (await res.json()) as { advisories: { uid: string }[]; totalCount: string };
    expect(body.advisories.map((a) => a.uid)).toEqual(FEED_IDS);
  });

  it("changes nothing when run again, and counts a newer version as updated", async () => {
    expect(counts((await runArbor(["advisories", "import", OSV.feed], env)).stdout)).toMatchObject({
      imported: 0,
      updated: 0,
      unchanged: FEED_IDS.length,
    });
    expect(counts((await runArbor(["advisories", "import", OSV.updates], env)).stdout)).toMatchObject({
      imported: 0,
      updated: 1,
      unchanged: 2,
    });
  });

  it.each([
    // The exit code second, so that the title's %i is it.
    [
      "a path that cannot be read",
      1,
      () => [join(work, "missing"), join(OSV.feed, "go")],
      /^arbor: cannot read .*missing: no such file or folder$/m,
    ],
    ["a folder without documents", 1, () => [mkdirSync(join(work, "empty"), { recursive: true }) ?? join(work, "empty")], /^$/],
    ["skipped documents under --strict", 1, () => [OSV.malformed, "--strict"], /must have required property 'modified'/],
    ["skipped documents without --strict", 0, () => [OSV.malformed, join(OSV.feed, "go")], /must have required property 'modified'/],
  ])("exits for %s with %i", async (_name, code, args, stderr) => {
    const run = await runArbor(["advisories", "import", ...args()], env);
    expect(run.code).toBe(code);
    expect(run.stderr.trim()).toMatch(stderr);
  });

  it("needs at least one path (usage, exit 2)", async () => {
    const run = await runArbor(["advisories", "import"], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/missing required argument 'paths'/);
  });
});

describe("arbor advisories import: a bulk first import (SQLite)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "arbor-cli-bulk-"));
  const work = mkdtempSync(join(tmpdir(), "arbor-cli-bulk-osv-"));
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  });

  // 10,000 documents into an empty store: the bulk path, written from the bundled writer thread
  // (dist/cli/advisory-write-worker.js); a thread that cannot start fails the import as UNAVAILABLE.
  it("writes 10,000 documents from its writer thread, builds the indexes once, and a second run changes nothing", async () => {
    const entries: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) {
      const id = `BULK-${String(i).padStart(5, "0")}`;
      const ecosystem = i % 3 === 0 ? "PyPI" : "npm";
      const document = {
        id,
        modified: "2026-11-27T04:00:00Z",
        aliases: [`CVE-2026-${i}`],
        affected: [{ package: { ecosystem, name: `pkg-${i % 50}` } }],
      };
      entries[`all/${id}.json`] = JSON.stringify(document);
    }
    const zip = join(work, "all.zip");
    await writeZip(zip, entries);
    const env = { ARBOR_DATA_DIR: dataDir };
    const first = await runArbor(["advisories", "import", zip], env);
    expect({ code: first.code, stderr: first.stderr.trim() }).toEqual({
      code: 0,
      stderr: "arbor: building the advisories' indexes, counts and search index (a large first import builds them once, at its end)",
    });
    expect(counts(first.stdout)).toEqual({ imported: 10_000, updated: 0, unchanged: 0, skipped: 0, unreadable: 0 });
    const store = await createStore({ dataDir, secrets: TEST_SECRETS });
    try {
      expect(await store.advisories.count({ ecosystem: "PyPI" })).toBe(3_334);
      expect(await store.advisories.count({ aliases: ["CVE-2026-9999"] })).toBe(1);
      expect(await store.advisories.count({ query: "pkg-49" })).toBe(200);
    } finally {
      await store.close();
    }
    const second = await runArbor(["advisories", "import", zip], env);
    expect(second.code).toBe(0);
    expect(counts(second.stdout)).toEqual({ imported: 0, updated: 0, unchanged: 10_000, skipped: 0, unreadable: 0 });
  }, 120_000);
});
