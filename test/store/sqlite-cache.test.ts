import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, sql } from "kysely";
import { afterAll, describe, expect, it } from "vitest";
import { engineSetup } from "../../src/store/dialect.js";

describe("SQLite's page cache and checkpoints", () => {
  const dir = mkdtempSync(join(tmpdir(), "arbor-cache-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const pragmaOf = async (name: string, options: { sqliteCacheMb?: number; sqliteCheckpointPages?: number }) => {
    const db = new Kysely<Record<string, never>>({ dialect: engineSetup({ dataDir: dir, ...options }).dialect });
    try {
      const { rows } = await sql<Record<string, number>>`pragma ${sql.raw(name)}`.execute(db);
      return rows[0]?.[name];
    } finally {
      await db.destroy();
    }
  };
  const cacheOf = (sqliteCacheMb: number | undefined) => pragmaOf("cache_size", sqliteCacheMb === undefined ? {} : { sqliteCacheMb });

  it("is the driver's default unless asked, and the size asked for (as KiB) when it is, as the advisory import asks", async () => {
    // better-sqlite3 builds SQLite with a 16 MB default.
    expect(await cacheOf(undefined)).toBe(-16000);
    expect(await cacheOf(64)).toBe(-64 * 1024);
  });

  it("checkpoint every 1,000 WAL pages with the WAL file kept unless asked, as the advisory import asks otherwise", async () => {
    expect(await pragmaOf("wal_autocheckpoint", {})).toBe(1000);
    expect(await pragmaOf("journal_size_limit", {})).toBe(-1);
    expect(await pragmaOf("wal_autocheckpoint", { sqliteCheckpointPages: 65_536 })).toBe(65_536);
    // Twice the pages the WAL may hold, of 4 KiB each: the file written over in place between checkpoints.
    expect(await pragmaOf("journal_size_limit", { sqliteCheckpointPages: 65_536 })).toBe(2 * 65_536 * 4096);
  });
});
