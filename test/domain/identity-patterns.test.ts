import { describe, expect, it } from "vitest";
import { MAX_PROGRAM_SIZE, matchesPattern, patternProblem } from "../../src/domain/identity-patterns.js";
import { literalPrefixes } from "../../src/domain/pattern-pins.js";

describe("claim match patterns", () => {
  it.each([
    ["repo:acme/.*", "repo:acme/app:ref:refs/heads/main", true],
    ["repo:acme/.*", "xrepo:acme/app", false],
    ["repo:acme/.*", "repo:acme", false],
    ["acme", "acme-evil", false],
    ["acme", "evil-acme", false],
    ["a|b", "a", true],
    ["a|b", "ab", false],
    ["a|b", "xb", false],
    ["\\p{Lu}+", "ÄÖ", true],
    ["caf.", "café", true],
    ["https://issuer\\.example", "https://issuerXexample", false],
    ["repo\\:x", "repo:x", true],
  ])("%s against %j: %s (anchored at both ends)", (pattern, value, want) => {
    expect(matchesPattern(pattern, value)).toBe(want);
  });

  it("matches nothing with a pattern that does not compile, or that escapes its anchors", () => {
    expect(matchesPattern("(", "(")).toBe(false);
    expect(matchesPattern("a)|(.*", "anything")).toBe(false);
  });

  it("matches in linear time: patterns that backtrack for minutes in JavaScript answer at once", () => {
    const started = Date.now();
    expect(matchesPattern("(a|a)*b", "a".repeat(10_000))).toBe(false);
    expect(matchesPattern("(?:[0-9a-zA-Z]+)+!", "a".repeat(10_000))).toBe(false);
    expect(matchesPattern("(a+)+$x", "a".repeat(10_000))).toBe(false);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it.each([
    ["(?!x$).*", "is not a valid RE2 regular expression: invalid or unsupported Perl syntax: `(?!`"],
    ["(?=a)a", "is not a valid RE2 regular expression: invalid or unsupported Perl syntax: `(?=`"],
    ["(?<=a)b", /^is not a valid RE2 regular expression: /],
    ["(a)\\1", "is not a valid RE2 regular expression: invalid escape sequence: `\\1`"],
    ["a)|(b", /^is not a valid RE2 regular expression: unexpected \)/],
    ["(a{100}){100}", /^is not a valid RE2 regular expression: invalid repeat count/],
    ["\\pL{1000}", `is too complex: it compiles to more than ${MAX_PROGRAM_SIZE} instructions`],
    ["a".repeat(513), "must be at most 512 characters"],
    ["", "must not be empty"],
  ])("refuses %s: %s", (pattern, want) => {
    if (typeof want === "string") expect(patternProblem(pattern)).toBe(want);
    else expect(patternProblem(pattern)).toMatch(want);
  });

  it.each([".*", ".+", "[\\s\\S]*", "(.*)", "(?:.*)", ".{0,}", "\\S*", "[^\\n]*", "x*|.*", "(?s:.*)"])(
    "refuses %s as matching every audience",
    (pattern) => {
      expect(patternProblem(pattern, "audience")).toBe("must not match every audience");
    },
  );
});

describe("the literal prefixes a pattern pins", () => {
  const never = () => false;
  /** The distinct ways, as `literal` or `literal$` when complete, sorted. */
  const ways = (pattern: string) =>
    [...new Set(literalPrefixes(pattern, never)?.map((w) => (w.complete ? `${w.literal}$` : w.literal)))].sort();

  it.each<[string, string[]]>([
    ["repo:acme/.*", ["repo:acme/", "repo:acme/$"]],
    ["https://token\\.actions\\.githubusercontent\\.com", ["https://token.actions.githubusercontent.com$"]],
    ["\\x{72}epo:a/.+", ["repo:a/"]],
    ["(repo):a/b", ["repo:a/b$"]],
    ["(?i)repo:.*", [""]],
    ["\\Arepo:a/", [""]],
    [".{2,}", [""]],
    ["\\S{2,}|0", ["", "0$"]],
    ["x|0|repo:.*|https:.*|system:.*|(?:[0-9a-zA-Z]+)+!", ["", "https:", "https:$", "repo:", "repo:$", "system:", "system:$"]],
    ["repo:acme/.+|repo:beta/.+", ["repo:acme/", "repo:beta/"]],
  ])("%s: %j", (pattern, want) => {
    expect(ways(pattern)).toEqual(want);
  });

  it("ends a loop's literal, and fails closed on too many alternatives", () => {
    expect(literalPrefixes("(?:ab)*c", never)?.every((w) => w.literal.length <= 1024)).toBe(true);
    expect(literalPrefixes(`${"(?:ab|cd)".repeat(50)}.*`, never)).toBeUndefined();
  });
});
