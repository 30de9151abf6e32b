/**
 * The regular expressions of a claim match (DESIGN 1.7): RE2 syntax, as the service this API is
 * modeled on (Go's `regexp`), matched by re2js in time linear in the value, always against the
 * whole value. A backtracking engine would let one pattern and one token hold the event loop for
 * seconds (`(a|a)*b` against 31 `a`s); RE2 has no backtracking, and refuses what needs it
 * (lookaround, backreferences). This module is the one place that knows the engine.
 */
import { RE2JS, RE2JSException } from "re2js";

/** The longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 512;
/**
 * The largest compiled program accepted, in instructions. Matching costs program size times value
 * length; this keeps one match of a 16 KiB claim in the low milliseconds. A 512-character literal
 * needs about 520; `\pL{1000}` needs 1002 and is refused.
 */
export const MAX_PROGRAM_SIZE = 1000;
/** How many compiled patterns are kept (they are small: each is at most MAX_PROGRAM_SIZE instructions). */
const CACHE_SIZE = 1024;

/**
 * Unrelated values a narrowing pattern (audience, custom claims) tells apart. Such a pattern that
 * matches every one of them narrows nothing, which is a mistake worth refusing; it is no
 * safeguard, because issuers and subjects are pinned by their literal prefixes (pattern-pins.ts).
 */
export const MATCH_ALL_PROBES: readonly string[] = [
  "x",
  "0",
  "repo:any/thing:ref:refs/heads/main",
  "https://evil.example/attacker",
  "system:serviceaccount:other:default",
  "q7Zt2kLp9VwXr4sNb8YcH3mJ6dFg1aE5",
];

/** A pattern RE2 cannot compile, or one too large to match cheaply; message says why. */
export class PatternError extends Error {
  override readonly name = "PatternError";
}

const cache = new Map<string, RE2JS>();

/** The compiled pattern (cached); PatternError when RE2 refuses it or it is too large. */
export function compilePattern(pattern: string): RE2JS {
  const hit = cache.get(pattern);
  if (hit !== undefined) return hit;
  if ([...pattern].length > MAX_PATTERN_LENGTH) throw new PatternError(`must be at most ${MAX_PATTERN_LENGTH} characters`);
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    if (!(e instanceof RE2JSException)) throw e;
    // re2js says `error parsing regexp: <reason>: \`<part>\``, which names no field.
    throw new PatternError(`is not a valid RE2 regular expression: ${e.message.replace(/^error parsing regexp: /, "")}`);
  }
  if (re.programSize() > MAX_PROGRAM_SIZE)
    throw new PatternError(`is too complex: it compiles to more than ${MAX_PROGRAM_SIZE} instructions`);
  if (cache.size >= CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  cache.set(pattern, re);
  return re;
}

/** Tells whether value matches pattern as a whole; false for a pattern that does not compile. */
export function matchesPattern(pattern: string, value: string): boolean {
  let re: RE2JS;
  try {
    re = compilePattern(pattern);
  } catch (e) {
    if (e instanceof PatternError) return false;
    throw e;
  }
  return re.matches(value);
}

/**
 * What is wrong with a pattern, or undefined when it compiles. With `what`, a pattern matching
 * every probe is refused too (`what` "audience" gives "must not match every audience").
 */
export function patternProblem(pattern: string, what?: string): string | undefined {
  if (pattern === "") return "must not be empty";
  let re: RE2JS;
  try {
    re = compilePattern(pattern);
  } catch (e) {
    if (e instanceof PatternError) return e.message;
    throw e;
  }
  if (what !== undefined && MATCH_ALL_PROBES.every((probe) => re.matches(probe))) return `must not match every ${what}`;
  return undefined;
}
