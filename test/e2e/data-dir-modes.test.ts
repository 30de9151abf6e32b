/**
 * The data directory and its files are Arbor's user's alone (real files, stat modes): a fresh one
 * is made 0700 with the database, its WAL and shared memory, and the secrets key file 0600; one
 * left readable by others (an older Arbor made it 0755 and 0644) is tightened at start, with one
 * log line per path.
 */
import { chmod, mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { engines } from "../support/engines.js";
import { startTestServer } from "../support/server.js";

const sqlite = engines.find((e) => e.name === "sqlite");
const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

describe.skipIf(sqlite === undefined || process.platform === "win32")("the data directory's modes [sqlite]", () => {
  let parent: string;
  let dataDir: string;
  const files = ["arbor.db", "arbor.db-wal", "arbor.db-shm", "secrets.key"];

  beforeAll(async () => {
    parent = await mkdtemp(join(tmpdir(), "arbor-modes-"));
    dataDir = join(parent, "data");
  });
  afterAll(async () => {
    await rm(parent, { recursive: true, force: true });
  });

  it("makes a fresh data directory 0700 and its files 0600", async () => {
    const t = await startTestServer(sqlite!, { dataDir });
    try {
      await t.organization("written");
      expect(await modeOf(dataDir)).toBe(0o700);
      for (const f of files) expect([f, await modeOf(join(dataDir, f))]).toEqual([f, 0o600]);
      expect(t.logs.filter((l) => String(l.msg).includes("data path"))).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it("tightens a data directory and files readable by others at start, one log line each", async () => {
    await chmod(dataDir, 0o755);
    for (const f of ["arbor.db", "secrets.key"]) await chmod(join(dataDir, f), 0o644);
    const t = await startTestServer(sqlite!, { dataDir });
    try {
      await t.organization("rewritten");
      expect(await modeOf(dataDir)).toBe(0o700);
      for (const f of files) expect([f, await modeOf(join(dataDir, f))]).toEqual([f, 0o600]);
      const fixed = t.logs.filter((l) => l.msg === "restricted a data path readable by others");
      expect(fixed.map((l) => [l.path, l.mode, l.now, l.level])).toEqual([
        [dataDir, "0755", "0700", 40],
        [join(dataDir, "arbor.db"), "0644", "0600", 40],
        [join(dataDir, "secrets.key"), "0644", "0600", 40],
      ]);
    } finally {
      await t.close();
    }
  });
});
