/**
 * SQLite's count thread (src/store/search-count-thread.ts): it answers a statement's count from
 * its own read-only connection, sees what was committed when it runs, reports a statement it
 * cannot run as an error of that count alone, changes nothing, and starts again after close.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import { CompiledQuery } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { countThread, type CountThread } from "../../src/store/search-count-thread.js";

describe("the search count thread", () => {
  let dir: string;
  let db: BetterSqlite3.Database;
  let thread: CountThread;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "arbor-count-thread-"));
    db = new BetterSqlite3(join(dir, "arbor.db"));
    db.pragma("journal_mode = WAL");
    db.exec("create table t (x integer)");
    db.prepare("insert into t (x) select value from json_each(?)").run(JSON.stringify([1, 2, 3, 4, 5]));
    thread = countThread({ file: join(dir, "arbor.db"), busyTimeoutMs: 1_000 });
  });

  afterEach(async () => {
    await thread.close();
    db.close();
    await rm(dir, { recursive: true, force: true });
  });

  const query = (sql: string, ...parameters: unknown[]) => CompiledQuery.raw(sql, parameters);

  it("answers the first row's n of a statement, its parameters bound", async () => {
    expect(await thread.count(query("select count(*) as n from t where x > ?", 2))).toBe(3);
    expect(await thread.count(query("select count(*) as n from t where x > ?", 4))).toBe(1);
  });

  it("answers many counts at once, each its own", async () => {
    const answers = await Promise.all([0, 1, 2, 3, 4, 5].map((k) => thread.count(query("select count(*) as n from t where x > ?", k))));
    expect(answers).toEqual([5, 4, 3, 2, 1, 0]);
  });

  it("sees what another connection committed since its last count", async () => {
    expect(await thread.count(query("select count(*) as n from t"))).toBe(5);
    db.prepare("insert into t (x) values (6)").run();
    expect(await thread.count(query("select count(*) as n from t"))).toBe(6);
  });

  it("fails the count of a statement it cannot run, and goes on counting", async () => {
    await expect(thread.count(query("select count(*) as n from no_such_table"))).rejects.toThrow(/no such table/);
    expect(await thread.count(query("select count(*) as n from t"))).toBe(5);
  });

  it("changes nothing, even through a statement that returns rows", async () => {
    await expect(thread.count(query("insert into t (x) values (7) returning 1 as n"))).rejects.toThrow(/readonly|read-only/i);
    await expect(thread.count(query("delete from t"))).rejects.toThrow(/only statements that return rows/);
    expect(db.prepare("select count(*) as n from t").get()).toEqual({ n: 5 });
  });

  it("fails a count when it cannot start, and does not start again for every count after", async () => {
    const missing = countThread({ file: join(dir, "no-such.db"), busyTimeoutMs: 1_000 });
    try {
      const first = await missing.count(query("select 1 as n")).catch((e: unknown) => e);
      expect(first).toBeInstanceOf(Error);
      // Refused at once with the same failure: no second thread was started for it.
      expect(await missing.count(query("select 1 as n")).catch((e: unknown) => e)).toBe(first);
    } finally {
      await missing.close();
    }
  });

  it("keeps no process alive once its counts are answered, closed or not", () => {
    const module = pathToFileURL(join(import.meta.dirname, "../../dist/src/store/search-count-thread.js")).href;
    const script = [
      `import { countThread } from ${JSON.stringify(module)};`,
      `const thread = countThread({ file: ${JSON.stringify(join(dir, "arbor.db"))}, busyTimeoutMs: 1000 });`,
      `console.log(await thread.count({ sql: "select count(*) as n from t", parameters: [] }));`,
    ].join("\n");
    const file = join(dir, "count.mjs");
    writeFileSync(file, script);
    const run = spawnSync(process.execPath, [file], { encoding: "utf8", timeout: 20_000 });
    expect({ status: run.status, out: run.stdout.trim(), err: run.stderr }).toEqual({ status: 0, out: "5", err: "" });
  });

  it("fails the counts under way when closed, and starts again at the next count", async () => {
    const under = thread.count(
      query("with recursive r(i) as (select 1 union all select i + 1 from r where i < 3000000) select count(*) as n from r"),
    );
    await thread.close();
    await expect(under).rejects.toThrow(/ended/);
    expect(await thread.count(query("select count(*) as n from t"))).toBe(5);
  });
});
