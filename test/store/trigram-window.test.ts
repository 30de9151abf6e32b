/**
 * Which part of a `query` SQLite and PostgreSQL look up (src/store/trigram-window.ts): the
 * trigrams as FTS5's trigram tokenizer makes them, and the choice on the counts of the bench's
 * 500,000 advisories (2026-11-27), or on PostgreSQL's guesses over them (2026-11-29), where the
 * times of each read were measured.
 */
import { describe, expect, it } from "vitest";
import { MAX_PART_TRIGRAMS, MAX_PG_PARTS, pgParts, pgSearchPart, searchWindow, trigramsOf } from "../../src/store/trigram-window.js";

/** Trigram counts of the bench's 500,000 generated advisories (fts5vocab), for the four queries it times. */
const BENCH = new Map<string, number>(
  Object.entries({
    inj: 65_677,
    nje: 65_677,
    jec: 65_677,
    ect: 82_803,
    cti: 65_677,
    tio: 220_098,
    ion: 220_098,
    use: 82_603,
    "se-": 82_603,
    "e-a": 24_240,
    "-af": 24_240,
    aft: 92_587,
    fte: 92_587,
    ter: 59_880,
    "er-": 24_240,
    "r-f": 24_240,
    "-fr": 24_240,
    fre: 24_240,
    ree: 24_240,
    pac: 397_479,
    ack: 423_728,
    cka: 397_479,
    kag: 397_479,
    age: 404_307,
    "ge-": 397_479,
    "e-2": 470_858,
    "-23": 28_923,
    "234": 4_534,
    "345": 3_629,
    cve: 458_017,
    "ve-": 458_017,
    "-20": 484_793,
    "201": 266_108,
    "019": 55_465,
    "19-": 49_315,
    "9-1": 6_654,
  }),
);

describe("trigramsOf", () => {
  it("makes every three consecutive characters a trigram, spaces and punctuation included", () => {
    expect(trigramsOf("use-after")).toEqual(["use", "se-", "e-a", "-af", "aft", "fte", "ter"]);
    expect(trigramsOf("a b\nc")).toEqual(["a b", " b\n", "b\nc"]);
  });

  it("counts characters as code points, as the tokenizer does, not UTF-16 units", () => {
    expect(trigramsOf("déjà")).toEqual(["déj", "éjà"]);
    expect(trigramsOf("a😀bc")).toEqual(["a😀b", "😀bc"]);
  });

  it("has none for a text shorter than three characters", () => {
    expect(trigramsOf("")).toEqual([]);
    expect(trigramsOf("ab")).toEqual([]);
    expect(trigramsOf("😀😀")).toEqual([]);
  });
});

describe("searchWindow", () => {
  it("looks up the rare part of a text whose other trigrams every advisory holds", () => {
    // The phrase read 20 ms for 81 matches; `2345` finds 289 candidates, tested in 0.4 ms.
    expect(searchWindow("package-2345", BENCH)).toBe("2345");
    // 6,654 candidates tested in 3.5 ms against the phrase's 6.9 ms.
    expect(searchWindow("cve-2019-1", BENCH)).toBe("9-1");
  });

  it("keeps the whole phrase where every part has about as many matches to test", () => {
    // Testing 65,677 candidates of `inj` took 67.5 ms; the phrase 19 ms.
    expect(searchWindow("injection", BENCH)).toBeUndefined();
    // Testing 24,240 candidates of `e-af` took 36 ms; the phrase 12.5 ms.
    expect(searchWindow("use-after-free", BENCH)).toBeUndefined();
  });

  it("keeps the whole phrase where no count is known, or the text has one trigram or none", () => {
    expect(searchWindow("package-2345", new Map())).toBeUndefined();
    expect(searchWindow("abc", new Map([["abc", 1]]))).toBeUndefined();
    expect(searchWindow("ab", BENCH)).toBeUndefined();
  });

  it("takes a trigram without a count as held by none, and looks it up alone", () => {
    const docs = new Map([
      ["abc", 100_000],
      ["bcd", 100_000],
      ["cde", 100_000],
    ]);
    expect(searchWindow("abcdef", docs)).toBe("def");
  });

  it("joins the rarest trigram's neighbours while they are nearly as rare, as one consecutive part", () => {
    const docs = new Map([
      ["abc", 1_000_000],
      ["bcd", 40],
      ["cde", 10],
      ["def", 41],
      ["efg", 1_000_000],
    ]);
    // `bcd` at 4 times `cde`'s count joins; `def`, above it, does not.
    expect(searchWindow("abcdefg", docs)).toBe("bcde");
  });

  it("looks up at most MAX_PART_TRIGRAMS trigrams of a long text, where every one is as common", () => {
    expect(MAX_PART_TRIGRAMS).toBe(16);
    // 256 zeros: one trigram, 254 times over. The whole phrase would read its list 254 times.
    expect(searchWindow("0".repeat(256), new Map([["000", 120_000]]))).toBe("0".repeat(18));
    // A long text whose trigrams are all about as common, `raf` a little less: 16 consecutive
    // trigrams holding it, as every one would join it, and testing its candidates costs less than
    // reading all 73 lists.
    const text = "remote attackers may execute code through a crafted request to the service";
    const docs = new Map(trigramsOf(text).map((t) => [t, t === "raf" ? 5_000 : 10_000]));
    const at = trigramsOf(text).indexOf("raf");
    const part = searchWindow(text, docs);
    expect(part).toBe([...text].slice(at - MAX_PART_TRIGRAMS + 1, at + 3).join(""));
    expect(trigramsOf(part ?? "")).toHaveLength(MAX_PART_TRIGRAMS);
    // A short text keeps its choice: under the bound, nothing changes.
    expect(searchWindow("injection", BENCH)).toBeUndefined();
  });

  it("returns a part of the text itself, counting characters as code points", () => {
    const docs = new Map([
      ["x😀y", 5],
      ["😀yz", 1_000_000],
      ["yzw", 1_000_000],
    ]);
    expect(searchWindow("x😀yzw", docs)).toBe("x😀y");
  });
});

/**
 * PostgreSQL's guesses (`EXPLAIN` of `search like '%part%'`) over the bench's 500,000 advisories
 * after ANALYZE, 2026-11-29. 50 is its floor there (a ten-thousandth of the rows): a part none of
 * its sample holds.
 */
const PG_GUESSES = new Map<string, number>(
  Object.entries({ package: 413_981, "2345": 50, cve: 444_272, "2019": 55_534, use: 95_922, after: 30_291, free: 30_291, "44228": 50 }),
);

describe("pgParts", () => {
  it("is the runs of three ASCII letters or digits or more, longest first, where a text has two or more", () => {
    expect(pgParts("package-2345")).toEqual(["package", "2345"]);
    expect(pgParts("cve-2019-1")).toEqual(["2019", "cve"]);
    expect(pgParts("CVE-2021-44228")).toEqual(["44228", "2021", "CVE"]);
    expect(pgParts("use after free")).toEqual(["after", "free", "use"]);
    expect(pgParts("déjà vu-abc-xyz")).toEqual(["abc", "xyz"]);
  });

  it("is none for a text of one such run or none: there is no part to choose", () => {
    expect(pgParts("injection")).toEqual([]);
    expect(pgParts("in-jection")).toEqual([]);
    expect(pgParts("%_~")).toEqual([]);
    expect(pgParts("abc abc")).toEqual([]);
  });

  it("keeps at most MAX_PG_PARTS, the longest, so that a long text asks the planner a bounded number of times", () => {
    expect(MAX_PG_PARTS).toBe(4);
    const text = Array.from({ length: 60 }, (_, i) => `w${String(i).padStart(2, "0")}`).join(" ") + " longest longer";
    const parts = pgParts(text);
    expect(parts).toHaveLength(MAX_PG_PARTS);
    expect(parts.slice(0, 2)).toEqual(["longest", "longer"]);
  });
});

describe("pgSearchPart", () => {
  it("looks up the rare part of a text whose other words nearly every advisory holds", () => {
    // The whole read 10 ms for 81 matches; `2345` finds 289 candidates, tested in 0.5 ms.
    expect(pgSearchPart("package-2345", PG_GUESSES)).toBe("2345");
    expect(pgSearchPart("cve-2021-44228", new Map([...PG_GUESSES, ["2021", 60_000]]))).toBe("44228");
  });

  it("keeps the whole text where its rarest part still leaves many candidates to test", () => {
    // `2019` alone: 55,534 candidates tested in 138 ms against the whole's 97 to 118 ms.
    expect(pgSearchPart("cve-2019-1", PG_GUESSES)).toBeUndefined();
    expect(pgSearchPart("use-after-free", PG_GUESSES)).toBeUndefined();
    expect(pgSearchPart("injection", PG_GUESSES)).toBeUndefined();
  });

  it("keeps the whole text where a part's guess is missing, and returns a part of the text itself", () => {
    expect(pgSearchPart("package-2345", new Map())).toBeUndefined();
    expect(pgSearchPart("package-2345", new Map([["2345", 50]]))).toBeUndefined();
    const part = pgSearchPart("see package-2345!", new Map([...PG_GUESSES, ["see", 200_000]]));
    expect(part).toBe("2345");
  });
});
