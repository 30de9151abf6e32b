import { describe, expect, it } from "vitest";
import { matchesPattern, patternProblem } from "../../src/domain/identity-patterns.js";

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
  ])("%s against %j: %s (anchored at both ends)", (pattern, value, want) => {
    expect(matchesPattern(pattern, value)).toBe(want);
  });

  it("matches nothing with a pattern that does not compile, or that escapes its anchors", () => {
    expect(matchesPattern("(", "(")).toBe(false);
    expect(matchesPattern("a)|(.*", "anything")).toBe(false);
  });

  it.each([".*", ".+", "[\\s\\S]*", "(.*)", "(?:.*)", ".{0,}", "\\S*", "[^\\n]*", "x*|.*", "(.|\\n)*"])(
    "refuses %s as matching everything",
    (pattern) => {
      expect(patternProblem(pattern, "subject")).toBe("must not match every subject");
    },
  );

  it.each(["repo:acme/.*", "https://token\\.actions\\.githubusercontent\\.com", ".*@acme\\.com", "system:serviceaccount:ns:.*", "x?"])(
    "accepts %s",
    (pattern) => {
      expect(patternProblem(pattern, "subject")).toBeUndefined();
    },
  );
});
