/**
 * Which part of a `query` text SQLite looks up in its trigram index (issue 19, item 2).
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
