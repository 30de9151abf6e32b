/**
 * `arbor admin migrate` and `--check`, and `arbor serve` with migrating at start off, on each
 * engine: a store as the previous release left it (every migration but the newest), then one a
 * newer release migrated further (a migration this Arbor does not know).
 */
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MIGRATIONS_PENDING_EXIT_CODE } from "../../src/cli/admin-store.js";
import { engineSetup } from "../../src/store/dialect.js";
import { knownMigrations } from "../../src/store/migrate.js";
import type { StoreOptions } from "../../src/store/create-store.js";
import { engines, type TestLocation } from "../support/engines.js";
import { migrateUpTo } from "../support/older-store.js";
import { runArbor, serveArbor } from "../support/process.js";

const known = knownMigrations();
const newest = known[known.length - 1] as string;
const previous = known[known.length - 2] as string;

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`arbor admin migrate [${engine.name}]`, () => {
    let location: TestLocation;
    let env: Record<string, string>;
    beforeAll(async () => {
      location = await engine.location();
      env = envOf(location.options);
      await migrateUpTo(location.options, previous);
    });
    afterAll(() => location.dispose());

    it("--check lists what is pending, exits 3 and changes nothing; serve --no-migrate refuses to start", async () => {
      const check = await runArbor(["admin", "migrate", "--check"], env);
      expect(check.code, check.stderr).toBe(MIGRATIONS_PENDING_EXIT_CODE);
      expect(check.stdout).toBe(`1 migration(s) pending:\n${newest}\n`);
      expect(await applied(location.options)).not.toContain(newest);

      await expect(serveArbor(["--no-migrate"], env)).rejects.toThrow(`behind this Arbor by 1 migration(s) (${newest})`);
      const byEnv = await runArbor(["admin", "token", "--org", "acme"], { ...env, ARBOR_MIGRATE: "false" });
      expect(byEnv.code).toBe(1);
      expect(byEnv.stderr).toContain("run `arbor admin migrate` first");
      expect(await applied(location.options)).not.toContain(newest);
    });

    it("applies the pending migration and says so; then --check exits 0 and serve --no-migrate starts", async () => {
      const run = await runArbor(["admin", "migrate"], env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toBe(`applied 1 migration(s):\n${newest}\n`);
      expect(await applied(location.options)).toEqual(known);
      expect((await runArbor(["admin", "migrate"], env)).stdout).toBe("the schema is up to date; nothing applied\n");
      const check = await runArbor(["admin", "migrate", "--check"], env);
      expect([check.code, check.stdout]).toEqual([0, "the schema is up to date\n"]);
      const server = await serveArbor(["--no-migrate"], env);
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    });

    it("serves on a store a newer release migrated further, and leaves its migrations alone", async () => {
      await recordMigration(location.options, "9999_from_a_newer_release");
      const server = await serveArbor([], env);
      const health = await fetch(`http://127.0.0.1:${server.port}/readyz`);
      expect(health.status).toBe(200);
      server.child.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      const check = await runArbor(["admin", "migrate", "--check"], env);
      expect(check.code).toBe(0);
      expect(check.stdout).toContain("migrations of a newer Arbor: 9999_from_a_newer_release");
      expect(await applied(location.options)).toEqual([...known, "9999_from_a_newer_release"]);
    });

    it("refuses a store that ran a newer release's migrations but misses one of its own", async () => {
      await deleteMigration(location.options, newest);
      const run = await runArbor(["admin", "migrate"], env);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("its schema is not one any release made");
      expect(await applied(location.options)).toEqual([...known.filter((n) => n !== newest), "9999_from_a_newer_release"]);
    });
  });
}

describe("arbor admin migrate --check without a store", () => {
  it("lists every migration as pending and makes no file", async () => {
    const dataDir = join(tmpdir(), `arbor-no-store-${process.pid}-${Date.now()}`);
    const check = await runArbor(["admin", "migrate", "--check"], { ARBOR_DATA_DIR: dataDir });
    expect(check.code).toBe(MIGRATIONS_PENDING_EXIT_CODE);
    expect(check.stdout).toContain(`${known.length} migration(s) pending:\n${known.join("\n")}\n`);
    expect(existsSync(dataDir)).toBe(false);
  });
});

function envOf(o: StoreOptions): Record<string, string> {
  return {
    ARBOR_DATA_DIR: o.dataDir,
    ...(o.databaseUrl !== undefined && { ARBOR_DATABASE_URL: o.databaseUrl }),
    ...(o.schema !== undefined && { ARBOR_DATABASE_SCHEMA: o.schema }),
  };
}

async function withDb<T>(o: StoreOptions, fn: (db: Kysely<any>) => Promise<T>): Promise<T> {
  const db = new Kysely<any>({ dialect: engineSetup(o).dialect });
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

function applied(o: StoreOptions): Promise<string[]> {
  return withDb(o, async (db) =>
    (await db.selectFrom("kysely_migration").select("name").orderBy("name").execute()).map((r) => r.name as string),
  );
}

function recordMigration(o: StoreOptions, name: string): Promise<unknown> {
  return withDb(o, (db) => sql`insert into kysely_migration (name, timestamp) values (${name}, ${new Date().toISOString()})`.execute(db));
}

function deleteMigration(o: StoreOptions, name: string): Promise<unknown> {
  return withDb(o, (db) => db.deleteFrom("kysely_migration").where("name", "=", name).execute());
}
