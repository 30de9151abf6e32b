/**
 * 0030: the search texts stored before `searchFold` (src/domain/advisories.ts) folded as it folds
 * them (issue 19; an attacker's review of 2026-11-27). SQLite's FTS5 trigram tokenizer folds 15
 * characters that lowercasing leaves alone (`ſ` to `s`, `µ` to `μ`, a final `ς` to `σ`, ...), so
 * its phrase matched texts that the GLOB and `instr` tests of the same query did not: a page
 * could list none of the matches its totalCount counted. Texts and queries are now folded alike
 * before either engine sees them; this folds the texts already stored. Only rows holding one of
 * the characters change (on SQLite the update trigger refreshes their FTS5 entries; on
 * PostgreSQL their trigram index entries follow).
 *
 * Frozen: never edit; change the schema in a new migration. Typed against Kysely<any>, importing
 * nothing of the living code.
 */
import { sql, type Kysely } from "kysely";

/** Each folded character and what it folds to, as searchFold had them when this was written. */
const FOLDS: readonly (readonly [string, string])[] = [
  ["\u017f", "s"],
  ["\u03d0", "\u03b2"],
  ["\u03f5", "\u03b5"],
  ["\u03d1", "\u03b8"],
  ["\u0345", "\u03b9"],
  ["\u1fbe", "\u03b9"],
  ["\u03f0", "\u03ba"],
  ["\u00b5", "\u03bc"],
  ["\u03d6", "\u03c0"],
  ["\u03f1", "\u03c1"],
  ["\u03c2", "\u03c3"],
  ["\u03d5", "\u03c6"],
  ["\u1e9b", "\u1e61"],
  ["\ufffe", "\ufffd"],
  ["\uffff", "\ufffd"],
];

export async function up(db: Kysely<any>, engine: "sqlite" | "postgres"): Promise<void> {
  if (engine === "postgres") {
    const from = FOLDS.map(([c]) => c).join("");
    const to = FOLDS.map(([, f]) => f).join("");
    await sql`update advisories set search = translate(search, ${from}, ${to}) where search <> translate(search, ${from}, ${to})`.execute(
      db,
    );
    return;
  }
  let folded = sql`search`;
  for (const [c, f] of FOLDS) folded = sql`replace(${folded}, ${c}, ${f})`;
  await sql`update advisories set search = ${folded} where search <> ${folded}`.execute(db);
}
