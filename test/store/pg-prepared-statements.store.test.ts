/**
 * Named statements on PostgreSQL (src/store/pg-prepared-statements.ts): a text run a second time
 * is prepared on the connection that runs it, within the bounds; one made stale by a change of
 * its table elsewhere is prepared again, retried outside a transaction and failed as unavailable
 * inside one; and turned off, nothing is prepared.
 */
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { classifyFailure } from "../../src/store/dialect.js";
import { createStore, type StoreOptions } from "../../src/store/create-store.js";
import {
  isStalePreparedStatement,
  MAX_NAMED_TEXTS,
  namedTextCount,
  preparable,
  preparedStatements,
} from "../../src/store/pg-prepared-statements.js";
import type { Store } from "../../src/store/store.js";
import { describeEachEngine, withClient } from "../support/engines.js";
import { execRaw } from "../support/raw-sql.js";

describeEachEngine("prepared statements", (t) => {
  if (t.engine !== "postgres") {
    it("are PostgreSQL's alone: SQLite keeps its own statement cache", () => {
      expect(t.engine).toBe("sqlite");
    });
    return;
  }
  const url = () => t.options().databaseUrl as string;
  const pools: pg.Pool[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.end();
    for (const store of stores.splice(0)) await store.close();
  });

  /** A pool of one connection with prepared statements attached, and that connection's prepared statements. */
  const onePool = (perConnection?: number) => {
    const pool = new pg.Pool({ connectionString: url(), max: 1 });
    pools.push(pool);
    const prepared = preparedStatements(perConnection === undefined ? {} : { perConnection });
    pool.on("connect", (client) => prepared.attach(client));
    // As Kysely runs them: on a connection the pool hands out, with no callback (pg-pool's own query() passes one).
    const query = async (text: string, values?: unknown[]) => {
      const client = await pool.connect();
      try {
        return (await client.query(text, values)).rows as Record<string, unknown>[];
      } finally {
        client.release();
      }
    };
    const held = async () =>
      (await query("select name, statement from pg_prepared_statements order by name")) as { name: string; statement: string }[];
    return { pool, query, held };
  };

  it("prepares a text declared preparable on the connection that runs it, and no other", async () => {
    const { query, held } = onePool();
    const text = "select $1::int + 1 as n";
    expect(await query(text, [1])).toEqual([{ n: 2 }]);
    expect(await query(text, [1])).toEqual([{ n: 2 }]);
    expect(await held()).toEqual([]);
    preparable(text);
    expect(await query(text, [2])).toEqual([{ n: 3 }]);
    expect(await query(text, [3])).toEqual([{ n: 4 }]);
    expect((await held()).map((s) => s.statement)).toEqual([text]);
    // Statements without parameters (Kysely's begin and commit) are never named.
    preparable("select 2");
    await query("select 2", []);
    expect((await held()).length).toBe(1);
  });

  it("prepares at most perConnection statements on a connection, and runs the rest unnamed", async () => {
    const { query, held } = onePool(3);
    const texts = [0, 1, 2, 3, 4, 5].map((i) => `select $1::int * ${i} as n`);
    texts.forEach(preparable);
    for (const [i, text] of texts.entries()) {
      for (let run = 0; run < 3; run++) expect(await query(text, [run])).toEqual([{ n: run * i }]);
    }
    expect((await held()).map((s) => s.statement).sort()).toEqual(texts.slice(0, 3));
  });

  it("prepares a statement again after its table changed: retried at once outside a transaction, failing one inside", async () => {
    const { pool, query, held } = onePool();
    await pool.query("create temporary table if not exists t (a int)");
    await pool.query("insert into t values (1)");
    const read = "select * from t where a = $1";
    preparable(read);
    for (let i = 0; i < 2; i++) expect(await query(read, [1])).toEqual([{ a: 1 }]);
    const [first] = (await held()).map((s) => s.name);
    // The pool's one connection owns the temporary table: the change comes through it, as a migration's would from elsewhere.
    await pool.query("alter table t add column b int");
    // Run again at once, unnamed; prepared afresh under a new name the next time.
    expect(await query(read, [1])).toEqual([{ a: 1, b: null }]);
    expect((await held()).map((s) => s.name)).toEqual([first]);
    expect(await query(read, [1])).toEqual([{ a: 1, b: null }]);
    expect((await held()).map((s) => s.name)).toEqual([first, `${first}_1`]);

    await pool.query("alter table t add column c int");
    const client = await pool.connect();
    try {
      await client.query("begin", []);
      const failure = await client.query(read, [1]).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isStalePreparedStatement(failure)).toBe(true);
      expect(classifyFailure(failure)).toBe("unavailable");
      await client.query("rollback", []);
      expect((await client.query(read, [1])).rows).toEqual([{ a: 1, b: null, c: null }]);
    } finally {
      client.release();
    }
  });

  describe("through the store", () => {
    const open = async (options: StoreOptions) => {
      const store = await createStore(options);
      stores.push(store);
      return store;
    };
    const organization = (store: Store, name: string) =>
      store.groups.insert({ uid: `${"a".repeat(39)}${name}`, parentUid: null, name, description: "", createTime: 1, updateTime: 1 });

    it("reads on through another replica's change of a table's columns; a transaction failed by it succeeds when retried", async () => {
      const options = await t.freshLocation();
      const store = await open(options);
      await organization(store, "b");
      const uid = `${"a".repeat(39)}b`;
      // One at a time, so the pool hands out the same connection, which prepares the read.
      for (let i = 0; i < 3; i++) expect((await store.groups.get(uid))?.name).toBe("b");
      const migrate = (column: string) =>
        withClient(options.databaseUrl as string, (c) => c.query(`alter table "${options.schema}".groups add column ${column} text`));
      await migrate("later_a");
      expect((await store.groups.get(uid))?.name).toBe("b");

      for (let i = 0; i < 3; i++) await store.atomically((tx) => tx.groups.get(uid));
      await migrate("later_b");
      await expect(store.atomically((tx) => tx.groups.get(uid))).rejects.toMatchObject({ code: 14 });
      expect((await store.atomically((tx) => tx.groups.get(uid)))?.name).toBe("b");
    });

    it("prepares nothing when turned off", async () => {
      const options = { ...(await t.freshLocation()), preparedStatements: false };
      const store = await open(options);
      await organization(store, "c");
      const uid = `${"a".repeat(39)}c`;
      for (let i = 0; i < 3; i++) expect((await store.atomically((tx) => tx.groups.get(uid)))?.name).toBe("c");
      // A column added elsewhere breaks nothing unprepared, in a transaction or out of one.
      await execRaw({ ...t, options: () => options }, "alter table groups add column later_c text");
      expect((await store.atomically((tx) => tx.groups.get(uid)))?.name).toBe("c");
    });
  });

  // Last: it uses up the process's names, which every test before it needed.
  it("names at most MAX_NAMED_TEXTS texts in the process", async () => {
    const { query, held } = onePool(MAX_NAMED_TEXTS + 10);
    const before = namedTextCount();
    const texts = Array.from({ length: MAX_NAMED_TEXTS + 5 }, (_, i) => `select $1::int + ${i}`);
    texts.forEach(preparable);
    expect(namedTextCount()).toBe(MAX_NAMED_TEXTS);
    for (const text of texts) await query(text, [0]);
    expect((await held()).map((s) => s.statement).sort()).toEqual(texts.slice(0, MAX_NAMED_TEXTS - before).sort());
  });
});
