import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { engineSetup } from "../../src/store/dialect.js";

describe("SQLite's page cache", () => {
  const dir = mkdtempSync(join(tmpdir(), "arbor-cache-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const cacheOf = async (sqliteCacheMb: number | undefined) => {
    const db = new Kysely<Record<string, never>>({ dialect: engineSetup({ dataDir: dir, sqliteCacheMb }).dialect });
    try {
      const { rows } = await sql<{ cache_size: number }>`pragma cache_size`.execute(db);
      return rows[0]?.cache_size;
    } finally {
      await db.destroy();
    }
  };

  it("is the driver's default unless asked, and the size asked for (as KiB) when it is, as the advisory import asks", async () => {
    // better-sqlite3 builds SQLite with a 16 MB default.
    expect(await cacheOf(undefined)).toBe(-16000);
    expect(await cacheOf(64)).toBe(-64 * 1024);
  });
});
