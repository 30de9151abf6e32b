/**
 * The regular expressions of a claim match (DESIGN 1.7): JavaScript syntax with the `u` flag,
 * always matched against the whole value, and never so broad that they match anything.
 */

/** The longest pattern accepted, in characters. */
export const MAX_PATTERN_LENGTH = 512;

/**
 * Unrelated values a real pattern tells apart. A pattern that matches every one of them would
 * match any issuer, subject or audience an attacker can obtain, so it is refused: `.*`, `.+`,
 * `\S+`, `[\s\S]*`, `(.*)`, `[a-z0-9:/._-]+` all fail here, while `repo:acme/.*` or
 * `https://token\.actions\.githubusercontent\.com` match at most one. A heuristic, not a proof:
 * it cannot see every over-broad pattern, only the ones that say "anything" in some spelling.
 * The empty string is not among them, so a pattern need not match it to be refused (`.+`).
 * They are short, so checking a pattern with catastrophic backtracking stays cheap.
 */
export const MATCH_ALL_PROBES: readonly string[] = [
  "x",
  "0",
  "repo:any/thing:ref:refs/heads/main",
  "https://evil.example/attacker",
  "system:serviceaccount:other:default",
  "q7Zt2kLp9VwXr4sNb8YcH3mJ6dFg1aE5",
];

/**
 * The compiled form of a pattern: anchored at both ends, with the `u` flag. Throws a SyntaxError
 * for a pattern that does not compile. The pattern is compiled alone first: `a)|(b` compiles once
 * wrapped, as `^(?:a)|(b)$`, which is no longer anchored.
 */
export function compilePattern(pattern: string): RegExp {
  new RegExp(pattern, "u");
  return new RegExp(`^(?:${pattern})$`, "u");
}

/** Tells whether value matches pattern as a whole (`^(?:pattern)$`); false for a pattern that does not compile. */
export function matchesPattern(pattern: string, value: string): boolean {
  let re: RegExp;
  try {
    re = compilePattern(pattern);
  } catch {
    return false;
  }
  return re.test(value);
}

/**
 * What is wrong with a pattern, or undefined when it is acceptable. `what` names the values it
 * matches in the description (`subject` gives "must not match every subject").
 */
export function patternProblem(pattern: string, what: string): string | undefined {
  if (pattern === "") return "must not be empty";
  if ([...pattern].length > MAX_PATTERN_LENGTH) return `must be at most ${MAX_PATTERN_LENGTH} characters`;
  let re: RegExp;
  try {
    re = compilePattern(pattern);
  } catch (e) {
    // V8 says `Invalid regular expression: /<source>/u: <reason>`; the source is ours, the reason theirs.
    const message = (e as Error).message;
    return `is not a valid regular expression: ${message.slice(message.lastIndexOf(": ") + 2)}`;
  }
  if (MATCH_ALL_PROBES.every((probe) => re.test(probe))) return `must not match every ${what}`;
  return undefined;
}
