/**
 * The engines the store suite runs on. Each test file gets, per engine, a store of its own in a
 * fresh location: an empty temporary directory for SQLite, a new schema for PostgreSQL.
 *
 * PostgreSQL is at ARBOR_TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/test. When it
 * cannot be reached its cases are skipped with a warning, except under CI=true, where that fails.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe } from "vitest";
import { createSecretBox } from "../../src/domain/secret-box.js";
import { createStore, type StoreOptions } from "../../src/store/create-store.js";
import type { Store } from "../../src/store/store.js";

/** One engine under test. */
export interface TestEngine {
  readonly name: Store["engine"];
  /** Why this engine's cases are skipped; undefined when they run. */
  readonly skipReason: string | undefined;
  /** A fresh, empty place for a store; dispose removes it. */
  location(): Promise<TestLocation>;
}

/** Where a test store lives, and how to clean up after it. */
export interface TestLocation {
  readonly options: StoreOptions;
  dispose(): Promise<void>;
}

/** What a suite body gets for one engine. */
export interface EngineContext {
  readonly engine: Store["engine"];
  /** This file's store on the engine, opened before the first test and closed after the last. */
  store(): Store;
  /** The options this file's store was opened with, to open a second replica on the same data. */
  options(): StoreOptions;
  /** A fresh, empty location, removed after the file (for tests of opening a store). */
  freshLocation(): Promise<StoreOptions>;
}

/** The secrets key of stores the suite opens directly (a server makes its own in the data directory). */
export const TEST_SECRETS = createSecretBox([Buffer.alloc(32, 7)]);

const POSTGRES_URL = process.env.ARBOR_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** SQLite, and PostgreSQL when it can be reached. */
export const engines: readonly TestEngine[] = [sqliteEngine(), await postgresEngine(POSTGRES_URL)];

/**
 * Declares `title` once per engine, each with its own store for the file; an unreachable
 * engine's tests are reported as skipped.
 */
export function describeEachEngine(title: string, body: (t: EngineContext) => void): void {
  for (const engine of engines) {
    describe.skipIf(engine.skipReason !== undefined)(`${title} [${engine.name}]`, () => {
      const locations: TestLocation[] = [];
      let store: Store | undefined;
      const fresh = async () => {
        const location = await engine.location();
        locations.push(location);
        return location;
      };
      beforeAll(async () => {
        store = await createStore((await fresh()).options);
      });
      afterAll(async () => {
        await store?.close();
        for (const location of locations) await location.dispose();
      });
      body({
        engine: engine.name,
        store: () => defined(store),
        options: () => defined(locations[0]).options,
        freshLocation: async () => (await fresh()).options,
      });
    });
  }
}

function defined<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("the engine's store is opened in beforeAll");
  return value;
}

function sqliteEngine(): TestEngine {
  return {
    name: "sqlite",
    skipReason: undefined,
    async location() {
      const dataDir = await mkdtemp(join(tmpdir(), "arbor-store-"));
      return { options: { dataDir, secrets: TEST_SECRETS }, dispose: () => rm(dataDir, { recursive: true, force: true }) };
    },
  };
}

async function postgresEngine(url: string): Promise<TestEngine> {
  const problem = await unreachable(url);
  if (problem !== undefined) {
    const where = `PostgreSQL at ${safeHost(url)} cannot be reached (${problem})`;
    if (process.env.CI === "true") throw new Error(`${where}; CI needs it for the store suite`);
    console.warn(
      `${where}: the PostgreSQL store cases are skipped. Start PostgreSQL with trust auth for user ` +
        `postgres and a database "test" (e.g. apt-get install postgresql), or point ` +
        `ARBOR_TEST_DATABASE_URL at one.`,
    );
  }
  return {
    name: "postgres",
    skipReason: problem,
    async location() {
      const schema = `arbor_test_${randomBytes(6).toString("hex")}`;
      // A data directory of its own all the same: the server keeps its secrets key file there.
      const dataDir = await mkdtemp(join(tmpdir(), "arbor-pg-"));
      return {
        options: { databaseUrl: url, dataDir, schema, secrets: TEST_SECRETS },
        dispose: async () => {
          await withClient(url, (c) => c.query(`drop schema if exists ${schema} cascade`));
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
  };
}

async function unreachable(url: string): Promise<string | undefined> {
  try {
    await withClient(url, (c) => c.query("select 1"));
    return undefined;
  } catch (error) {
    // A refused connection is an AggregateError with an empty message; its code says more.
    if (!(error instanceof Error)) return String(error);
    return error.message || (error as { code?: string }).code || error.name;
  }
}

/** Runs fn with a PostgreSQL client of its own, outside any store. */
export async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  try {
    await client.connect();
    return await fn(client);
  } finally {
    // Ending a client that never connected rejects too; the connect error is the one to report.
    await client.end().catch(() => undefined);
  }
}

/** The URL without its credentials, for messages. */
function safeHost(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return "the configured URL";
  }
}
