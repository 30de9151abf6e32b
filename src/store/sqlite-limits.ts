/**
 * SQLite: a statement's bound LIMIT written into its text as the integer it is, before the
 * statement is prepared (sqlite-driver.ts).
 *
 * SQLite plans with the value bound to a LIMIT (`computeLimitRegisters`: the row estimate, a
 * LIMIT 0), and so marks the statement to be prepared again once that parameter is bound anew.
 * better-sqlite3 clears a statement's bindings after every run (`sqlite3_clear_bindings`), which
 * expires any statement so marked whatever the next value is: every run of a statement with a
 * bound LIMIT was a whole new prepare. In process, on a fresh store (bench/tools/sqlite-limits.ts;
 * bench/findings.md, "Statements prepared again on every run"), a page of an organization's
 * audit events or of advisories, or the outbox's read for a subscription with its descendants,
 * took five to six times as long as with the LIMIT written in. Written in, the LIMIT is the
 * value the planner saw before, and the statement is prepared once per value and kept by the
 * connection's statement cache; a page size is one of few values. Other marks remain (an
 * equality the plan's index does not use, beside an ORDER BY or a join; a GLOB or LIKE pattern;
 * a value `sqlite_stat4` is probed with): those statements are still prepared again on every
 * run, which for some is also what fits their plan to the values.
 *
 * Only a LIMIT whose value is an integer: anything else stays bound. Only where the text is what
 * Kysely writes, placeholders `?` in order: a text with a numbered or named parameter is left as
 * it is. The statement's other parameters keep their order.
 */

/** The text cut at each LIMIT placeholder to inline, and which parameter each one binds. */
interface LimitSlots {
  /** pieces.length === slots.length + 1: the text is pieces[0] + value0 + pieces[1] + ... */
  readonly pieces: readonly string[];
  /** The index in the parameters of each LIMIT's value. */
  readonly slots: readonly number[];
}

/** The analysis of each statement text, or null where there is nothing to inline; bounded. */
const analyses = new Map<string, LimitSlots | null>();
const MAX_ANALYSES = 4_096;

/** The statement text and parameters to prepare and bind: each integer LIMIT in the text. */
export function inlineLimits(sql: string, parameters: readonly unknown[]): { sql: string; parameters: readonly unknown[] } {
  let analysis = analyses.get(sql);
  if (analysis === undefined) {
    analysis = limitSlotsOf(sql);
    if (analyses.size >= MAX_ANALYSES) analyses.clear();
    analyses.set(sql, analysis);
  }
  if (analysis === null) return { sql, parameters };
  const { pieces, slots } = analysis;
  let text = pieces[0] as string;
  for (let i = 0; i < slots.length; i++) {
    const value = parameters[slots[i] as number];
    const literal = integerLiteral(value);
    if (literal === undefined) return { sql, parameters };
    text += literal + (pieces[i + 1] as string);
  }
  const inlined = new Set(slots);
  return { sql: text, parameters: parameters.filter((_, i) => !inlined.has(i)) };
}

function integerLiteral(value: unknown): string | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
  if (typeof value === "bigint") return String(value);
  return undefined;
}

/**
 * Where text binds a LIMIT's value: each `?` right after the keyword LIMIT, outside quotes and
 * comments, with its place among the text's placeholders. null where there is none, or where the
 * text has a placeholder other than `?` (its places could not be counted).
 */
export function limitSlotsOf(text: string): LimitSlots | null {
  const pieces: string[] = [];
  const slots: number[] = [];
  let placeholder = 0;
  let from = 0;
  let i = 0;
  /** Where the last keyword LIMIT outside quotes ended, if nothing but space came after it. */
  let afterLimit = -1;
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "'" || c === '"' || c === "`") {
      i = closing(text, i, c);
      afterLimit = -1;
    } else if (c === "[") {
      i = text.indexOf("]", i + 1);
      if (i < 0) return null;
      i++;
      afterLimit = -1;
    } else if (c === "-" && text[i + 1] === "-") {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end + 1;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      if (end < 0) return null;
      i = end + 2;
    } else if (c === "?") {
      if (/[0-9]/.test(text[i + 1] ?? "")) return null;
      if (afterLimit >= 0) {
        pieces.push(text.slice(from, i));
        slots.push(placeholder);
        from = i + 1;
      }
      placeholder++;
      i++;
      afterLimit = -1;
    } else if ((c === ":" || c === "@" || c === "$") && /[A-Za-z0-9_]/.test(text[i + 1] ?? "")) {
      return null;
    } else if (/[A-Za-z_]/.test(c)) {
      let end = i + 1;
      while (end < text.length && /[A-Za-z0-9_$]/.test(text[end] as string)) end++;
      afterLimit = text.slice(i, end).toLowerCase() === "limit" ? end : -1;
      i = end;
    } else {
      if (!/\s/.test(c)) afterLimit = -1;
      i++;
    }
    if (i < 0) return null;
  }
  if (slots.length === 0) return null;
  pieces.push(text.slice(from));
  return { pieces, slots };
}

/** The index just past the quote that closes the one at start (a doubled quote is one inside); -1 if none. */
function closing(text: string, start: number, quote: string): number {
  let i = start + 1;
  for (;;) {
    const end = text.indexOf(quote, i);
    if (end < 0) return -1;
    if (text[end + 1] !== quote) return end + 1;
    i = end + 2;
  }
}
