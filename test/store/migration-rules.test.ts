/**
 * The rolling-upgrade rule (docs/operations.md, "Upgrades"): while release N migrates, servers of
 * release N-1 keep serving on the same store, so a migration only adds. Whatever would break the
 * older release's reads or writes (dropping or renaming a table or column, a NOT NULL column
 * without a default, a column's type or default or nullability changed) goes in a later release,
 * once nothing reads the old shape, and its statement carries `// rolling-unsafe: <why>`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const MIGRATIONS = join(import.meta.dirname, "../../src/store/migrations");

/** What makes a statement unsafe for the release before it, by Kysely builder or SQL text. */
const RULES: { why: string; test: (statement: string) => boolean }[] = [
  { why: "drops a table", test: (s) => /\.dropTable\(|\bdrop\s+table\b/i.test(s) },
  { why: "drops a column", test: (s) => /\.dropColumn\(|\bdrop\s+column\b/i.test(s) },
  {
    why: "renames a table or column",
    test: (s) => /\.renameColumn\(|\.renameTo\(|\brename\s+(column\s+)?\w+\s+to\b|\brename\s+to\b/i.test(s),
  },
  {
    why: "changes a column's type, nullability or default",
    test: (s) => /\.alterColumn\(|\balter\s+column\b|\bmodify\s+column\b/i.test(s),
  },
  {
    why: "adds a NOT NULL column without a default",
    test: (s) =>
      isAlter(s) && /addColumn\(|\badd\s+column\b/i.test(s) && /notNull\(\)|\bnot\s+null\b/i.test(s) && !/defaultTo\(|\bdefault\b/i.test(s),
  },
];

function isAlter(statement: string): boolean {
  return /\.alterTable\(|\balter\s+table\b/i.test(statement);
}

/** A migration's text cut into its statements: each ends at an `.execute(`. Comments stay with the statement they precede. */
function statements(text: string): string[] {
  return text.split(/\.execute\(/).slice(0, -1);
}

/** The unsafe statements of a migration's text that carry no `// rolling-unsafe: <reason>`. */
export function unmarkedUnsafe(text: string): string[] {
  const found: string[] = [];
  for (const statement of statements(text)) {
    // The statement's own text, without comments, decides; the marker is a comment.
    const code = statement.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
    const broken = RULES.filter((rule) => rule.test(code)).map((rule) => rule.why);
    if (broken.length === 0) continue;
    if (/\/\/\s*rolling-unsafe:\s*\S{3,}/.test(statement)) continue;
    const last = code.trim().split("\n").slice(-3).join(" ").replace(/\s+/g, " ");
    found.push(`${broken.join(", ")}: ...${last.slice(-120)}`);
  }
  return found;
}

describe("migrations and rolling upgrades", () => {
  const files = readdirSync(MIGRATIONS).filter((f) => /^\d{4}_.*\.ts$/.test(f));

  it.each(files)("%s only adds, or marks why not", (file) => {
    expect(unmarkedUnsafe(readFileSync(join(MIGRATIONS, file), "utf8"))).toEqual([]);
  });

  it("finds each kind of unsafe statement, and accepts the marker", () => {
    const unsafe = [
      `await db.schema.dropTable("groups").execute();`,
      `await db.schema.alterTable("groups").dropColumn("name").execute();`,
      `await db.schema.alterTable("groups").renameColumn("name", "title").execute();`,
      `await db.schema.alterTable("groups").renameTo("teams").execute();`,
      `await db.schema.alterTable("a").alterColumn("t", (c) => c.dropDefault()).execute();`,
      `await db.schema.alterTable("a").alterColumn("t", (c) => c.setDataType("text")).execute();`,
      `await db.schema.alterTable("a").addColumn("t", "bigint", (c) => c.notNull()).execute();`,
      "await sql`alter table a drop column b`.execute(db);",
      "await sql`alter table a rename column b to c`.execute(db);",
      "await sql`alter table a alter column b set not null`.execute(db);",
      "await sql`alter table a add column b text not null`.execute(db);",
      "await sql`drop table a`.execute(db);",
    ];
    for (const statement of unsafe) {
      expect(unmarkedUnsafe(statement), statement).toHaveLength(1);
      expect(unmarkedUnsafe(`// rolling-unsafe: nothing reads it since release 1.4\n${statement}`), statement).toEqual([]);
    }
    const safe = [
      `await db.schema.createTable("a").addColumn("t", "bigint", (c) => c.notNull()).execute();`,
      `await db.schema.alterTable("a").addColumn("t", "bigint", (c) => c.notNull().defaultTo(0)).execute();`,
      `await db.schema.alterTable("a").addColumn("t", "text").execute();`,
      `await db.schema.createIndex("a_t").on("a").column("t").execute();`,
      "await sql`alter table a add column b text not null default ''`.execute(db);",
    ];
    for (const statement of safe) expect(unmarkedUnsafe(statement), statement).toEqual([]);
  });
});
