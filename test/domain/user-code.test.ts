/**
 * User codes of headless login: eight letters of the consonant alphabet, each letter equally
 * likely (bytes past 239 are drawn again, not folded onto the first letters), and typed codes
 * read in any case, with or without the dash.
 */
import { describe, expect, it } from "vitest";
import { newUserCode, normalizeUserCode, USER_CODE_ALPHABET } from "../../src/domain/user-code.js";
import type { IdSource } from "../../src/domain/uid.js";

/** An id source that hands out these bytes, in order, then zeros. */
function bytes(...values: number[]): IdSource {
  const queue = [...values];
  return { hex: (n) => Array.from({ length: n }, () => (queue.shift() ?? 0).toString(16).padStart(2, "0")).join("") };
}

describe("user codes", () => {
  it("takes each byte below 240 modulo 20, skips the rest, and shows XXXX-XXXX", () => {
    expect(newUserCode(bytes(0, 1, 2, 19, 20, 239, 240, 255, 39, 7))).toBe("BCDZ-BZZK");
  });

  it("draws again when a whole draw was skipped", () => {
    expect(newUserCode(bytes(...Array<number>(16).fill(250), 3, 4, 5, 6, 7, 8, 9, 10))).toBe("FGHJ-KLMN");
  });

  it("spreads evenly over the alphabet", () => {
    const counts = new Map<string, number>();
    let n = 0;
    const cycling: IdSource = { hex: (k) => Array.from({ length: k }, () => (n++ % 256).toString(16).padStart(2, "0")).join("") };
    for (let i = 0; i < 3_000; i++) for (const c of newUserCode(cycling).replace("-", "")) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort().join("")).toBe(USER_CODE_ALPHABET);
    expect(Math.max(...counts.values()) - Math.min(...counts.values())).toBeLessThanOrEqual(1);
  });

  it.each([
    ["BCDF-GHJK", "BCDF-GHJK"],
    ["bcdfghjk", "BCDF-GHJK"],
    [" bcdf - ghjk ", "BCDF-GHJK"],
  ])("reads %j as %s", (typed, canonical) => {
    expect(normalizeUserCode(typed)).toBe(canonical);
  });

  it.each(["", "BCDF-GHJ", "BCDF-GHJKL", "BCDF-GHJA", "BCDF-GHJ1", "BCDF_GHJK", `${"B".repeat(64)}CDFGHJKL`])(
    "refuses %j naming user_code",
    (typed) => {
      expect(() => normalizeUserCode(typed)).toThrow(
        expect.objectContaining({ code: 3, details: { fieldViolations: [expect.objectContaining({ field: "user_code" })] } }),
      );
    },
  );
});
