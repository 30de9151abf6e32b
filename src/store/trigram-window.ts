/**
 * Which part of a `query` text SQLite, and PostgreSQL (pgSearchPart, at the end), look up in
 * their trigram index (issue 19, item 2).
 *
 * An FTS5 phrase of the whole text holds exactly where the text is a substring, but reads the
 * list of every one of its trigrams, however common: `package-2345` reads those of `pac`, `age`
 * and the rest that every package name holds (20 ms for 81 matches at 500,000 advisories). A
 * phrase of a part of the text holds wherever that part is a substring, so it finds every match
 * of the whole and more; testing each of those candidates for the whole text (`instr`) makes the
 * answer exact again. The part `2345` has 289 candidates, found and tested in 0.4 ms.
 *
 * The choice follows the trigrams' document counts (migration 0028), measured on the bench's
 * 500,000 advisories (2026-11-27, better-sqlite3): testing a candidate costs about 1 µs, a
 * phrase about 0.01 µs per entry of its trigrams' lists (0.003 to 0.024). A part is chosen when
 * its rarest trigram's advisories, each tested, cost less than the whole phrase's reading:
 * `cve-2019-1` reads `9-1` and tests 6,654 (3.5 ms against 6.9 ms), while `injection` (65,677
 * matches, every trigram as common) and `use-after-free` (24,240) stay whole phrases, whose
 * matches need no test. The counts only choose the read: a stale or missing count can make a
 * query slower, never its answer different.
 */

/** What testing one candidate costs, in entries of a trigram list read by a phrase. */
const TEST_COST = 100;

/** A neighbouring trigram joins the part while its list is at most this many times the rarest one's. */
const NEIGHBOUR_RATIO = 4;

/**
 * The most trigrams a part looks up. A phrase reads one list per trigram, once for each place the
 * trigram stands in it, so a query of 256 zeros read the list of `000` 254 times: 0.35 to 0.97 s
 * holding the server's thread (an attacker's review, 2026-11-27, 30,000 to 120,000 advisories
 * holding `000`), where 32 zeros took 0.04 s. A part of at most this many finds every match
 * of the whole and each candidate is tested, so a long text costs what its best part does.
 */
export const MAX_PART_TRIGRAMS = 16;

/** The trigrams of text as the FTS5 trigram tokenizer makes them: every three consecutive characters (code points). */
export function trigramsOf(text: string): string[] {
  const chars = [...text];
  const out: string[] = [];
  for (let i = 0; i + 3 <= chars.length; i++) out.push(chars.slice(i, i + 3).join(""));
  return out;
}

/**
 * The part of text to look up, each candidate then tested for the whole text; undefined to look
 * up the whole text as one phrase (also where text has no trigram, or no count is known: a store
 * whose counts were never taken reads as before). docs gives each trigram's advisories; a
 * trigram without a count is taken as held by none (absent from the index when it was counted,
 * so its list is empty or holds only what came since).
 */
export function searchWindow(text: string, docs: ReadonlyMap<string, number>): string | undefined {
  const trigrams = trigramsOf(text);
  if (trigrams.length < 2 || docs.size === 0) return undefined;
  const counts = trigrams.map((t) => docs.get(t) ?? 0);
  let rarest = 0;
  for (let i = 1; i < counts.length; i++) if ((counts[i] ?? 0) < (counts[rarest] ?? 0)) rarest = i;
  const fewest = counts[rarest] ?? 0;
  // Neighbours nearly as rare join the part: their lists are short to read, and a longer part
  // leaves fewer candidates to test.
  let first = rarest;
  let last = rarest;
  const near = (i: number) => i >= 0 && i < counts.length && (counts[i] ?? 0) <= fewest * NEIGHBOUR_RATIO;
  while (near(first - 1)) first--;
  while (near(last + 1)) last++;
  const sum = (from: number, to: number) => counts.slice(from, to + 1).reduce((a, b) => a + b, 0);
  if (last - first + 1 > MAX_PART_TRIGRAMS) {
    // The MAX_PART_TRIGRAMS consecutive trigrams around the rarest whose lists are shortest.
    let best = Math.max(first, rarest - MAX_PART_TRIGRAMS + 1);
    for (let start = best + 1; start <= Math.min(rarest, last - MAX_PART_TRIGRAMS + 1); start++) {
      if (sum(start, start + MAX_PART_TRIGRAMS - 1) < sum(best, best + MAX_PART_TRIGRAMS - 1)) best = start;
    }
    first = best;
    last = best + MAX_PART_TRIGRAMS - 1;
  }
  if (first === 0 && last === counts.length - 1) return undefined;
  const whole = sum(0, counts.length - 1);
  const part = sum(first, last) + fewest * TEST_COST;
  if (part >= whole) return undefined;
  return [...text].slice(first, last + 3).join("");
}

/**
 * PostgreSQL: what reading one candidate's row and testing it costs, in entries of pg_trgm's
 * posting lists read. Measured on the bench's 500,000 advisories (2026-11-29, psql): reading the
 * lists of `package-2345` (the trigrams of `package` are in nearly every advisory) took 10 ms,
 * about 5 ns an entry; testing a candidate's row 2 to 3 µs (`injection`'s 65,677 in 180 ms).
 */
const PG_TEST_COST = 500;

/** PostgreSQL: the most parts of one text the planner is asked about (each an `EXPLAIN`). */
export const MAX_PG_PARTS = 4;

/**
 * PostgreSQL: the parts of text pg_trgm can look up alone: its runs of ASCII letters and digits
 * three long or more (pgIndexable's, src/store/dialect.ts), distinct, the longest MAX_PG_PARTS.
 * None where text has fewer than two: a text of one run has no part to choose.
 */
export function pgParts(text: string): string[] {
  const runs = [...new Set(text.match(/[a-z0-9]{3,}/gi) ?? [])];
  if (runs.length < 2) return [];
  return runs.sort((a, b) => b.length - a.length).slice(0, MAX_PG_PARTS);
}

/**
 * PostgreSQL: the part of text to look up, each candidate then tested for the whole text, or
 * undefined for the whole text. pg_trgm's index reads the posting list of every trigram of a
 * LIKE pattern, however common: `package-2345` reads those of `pac`, `age` and the rest that
 * nearly every advisory holds (10 ms), where `2345` alone reads two short lists and tests its
 * 289 candidates (0.5 ms). PostgreSQL keeps no count per trigram, so the planner's guess of each
 * part's matches (estimates, from its statistics' sample of the column) stands for its lists:
 * the whole text reads about the sum over its parts of their matches times their trigrams, and
 * the rarest part the same for itself plus a test of each of its candidates. The guesses only
 * choose the read: a wrong one can make a query slower, never its answer different.
 */
export function pgSearchPart(text: string, estimates: ReadonlyMap<string, number>): string | undefined {
  const parts = pgParts(text).filter((p) => estimates.has(p));
  if (parts.length < 2) return undefined;
  const lists = (p: string) => (estimates.get(p) ?? 0) * (p.length - 2);
  const whole = parts.reduce((sum, p) => sum + lists(p), 0);
  let rarest = parts[0] ?? "";
  for (const p of parts) if ((estimates.get(p) ?? 0) < (estimates.get(rarest) ?? 0)) rarest = p;
  const part = lists(rarest) + (estimates.get(rarest) ?? 0) * PG_TEST_COST;
  return part < whole ? rarest : undefined;
}
