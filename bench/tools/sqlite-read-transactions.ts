/**
 * What S1's two SQLite read transactions cost, and what the alternatives to them would save
 * (bench/findings.md, S1): two point reads each in its own (autocommit) read transaction, as a
 * request makes them today; the same two in one explicit read transaction (BEGIN ... COMMIT);
 * `PRAGMA data_version` (the check that another connection committed, which is itself a read
 * transaction); and a point read inside an open transaction (the statement without the
 * transaction). A WAL database like Arbor's (synchronous NORMAL) in a fresh directory, one
 * connection, better-sqlite3 as the server uses it; each form timed over 200,000 runs after a
 * warm-up, the forms alternated for 5 rounds, the median per form printed.
 * Usage: node dist/bench/tools/sqlite-read-transactions.js
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";

const RUNS = 200_000;
const ROUNDS = 5;
const dir = mkdtempSync(join(tmpdir(), "arbor-read-tx-"));
try {
  const db = new BetterSqlite3(join(dir, "arbor.db"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.exec("create table generation (id integer primary key, value text not null)");
  db.exec("create table groups (uid text primary key, name text, description text, create_time integer, update_time integer)");
  db.prepare("insert into generation values (1, '17')").run();
  db.prepare("insert into groups values (?, 'target', 'the group S1 reads', 1, 2)").run("a".repeat(40));
  const generation = db.prepare("select value from generation where id = ?");
  const group = db.prepare("select * from groups where uid = ?");
  const dataVersion = db.prepare("pragma data_version").pluck();
  const begin = db.prepare("begin");
  const commit = db.prepare("commit");
  const uid = "a".repeat(40);
  const forms: [string, () => void][] = [
    ["two point reads, each its own read transaction (today)", () => (generation.all(1), group.all(uid))],
    ["the same two in one read transaction (BEGIN, COMMIT)", () => (begin.run(), generation.all(1), group.all(uid), commit.run())],
    ["one point read in its own read transaction", () => generation.all(1)],
    ["PRAGMA data_version (a read transaction of its own)", () => dataVersion.get()],
    ["one point read inside an open transaction", () => generation.all(1)],
  ];
  const times = new Map<string, number[]>(forms.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of forms) {
      const inside = name.includes("inside");
      if (inside) begin.run();
      for (let i = 0; i < RUNS / 10; i++) run();
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < RUNS; i++) run();
      times.get(name)?.push(Number(process.hrtime.bigint() - t0) / RUNS / 1000);
      if (inside) commit.run();
    }
  }
  db.close();
  for (const [name, us] of times) {
    const sorted = [...us].sort((a, b) => a - b);
    process.stdout.write(
      `${name}: ${(sorted[Math.floor(sorted.length / 2)] as number).toFixed(2)} µs (rounds: ${us.map((u) => u.toFixed(2)).join(", ")})\n`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
