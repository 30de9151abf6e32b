import { describe, expect, it } from "vitest";
import { RUBYGEMS } from "../../../src/domain/versions/ecosystems.js";
import { expectAscending, expectComparison, expectRefused, read } from "./ordering-table.js";

describe("Gem::Version", () => {
  // The class documentation of rubygems lib/rubygems/version.rb: "Prereleases sort between real
  // releases (newest to oldest): 1.0, 1.0.b1, 1.0.a.2, 0.9".
  it("orders the documented pre-release example", () => {
    expectAscending(RUBYGEMS, ["0.9", "1.0.a.2", "1.0.b1", "1.0"]);
  });

  // rubygems test/rubygems/test_gem_version.rb: test_spaceship, test_semver, test_equals2,
  // test_hash, test_canonical_segments.
  it.each([
    "1.0 == 1.0.0",
    "1.0 > 1.0.a",
    "1.8.2 > 0.0.0",
    "1.8.2 > 1.8.2.a",
    "1.8.2.b > 1.8.2.a",
    "1.8.2.a < 1.8.2",
    "1.8.2.a10 > 1.8.2.a9",
    "0.beta.1 == 0.0.beta.1",
    "0.0.beta < 0.0.beta.1",
    "0.0.beta < 0.beta.1",
    "5.a < 5.0.0.rc2",
    "5.x > 5.0.0.rc2",
    "1.9.3 > 1.9.2.99",
    "1.9.3 < 1.9.3.1",
    "1.0.0-alpha < 1.0.0-alpha.1",
    "1.0.0-alpha.1 < 1.0.0-beta.2",
    "1.0.0-beta.2 < 1.0.0-beta.11",
    "1.0.0-beta.11 < 1.0.0-rc.1",
    "1.0.0-rc1 < 1.0.0",
    "1.0.0-1 < 1",
    "1.2.b1 == 1.2.b.1",
    "1.2 == 1.2.0",
    "1.2.pre.1 == 1.2.0.pre.1.0",
    "1.0.0.a.1.0 == 1.a.1",
    "1.2.3-1 == 1.2.3.pre.1",
    "1.0.a < 1.0", // a letter makes a pre-release, below its release
    "1.0.A < 1.0.a", // letters compare by byte
    "1.a < 1.0.1",
    "1.0.a10 > 1.0.a.9",
    "2 > 1.99999999999999999999999",
  ])("%s", (line) => expectComparison(RUBYGEMS, line));

  it("ignores surrounding whitespace (test_initialize)", () => {
    for (const good of ["1.0 ", " 1.0 ", "1.0\n", "\n1.0\n"]) expect(RUBYGEMS.compare(read(RUBYGEMS, good), read(RUBYGEMS, "1.0"))).toBe(0);
  });

  // test_initialize_invalid, including the CVE-2013-4287 text (a regular expression that
  // backtracked took minutes on it; this reader is linear).
  it.each([
    "junk",
    "1.0\n2.0",
    "1..2",
    "1.2 3.4",
    "2.3422222.222.222222222.22222.ads0as.dasd0.ddd2222.2.qd3e.",
    "1.0-",
    "1.0.",
    "1beta",
    "-1",
    "1.0+build",
    "1.é",
  ])("refuses %j", (text) => expectRefused(RUBYGEMS, text));

  it("refuses blank texts (RubyGems reads them as 0, a caller's mistake here)", () => {
    expectRefused(RUBYGEMS, "", "EMPTY");
    expectRefused(RUBYGEMS, "   ", "EMPTY");
  });
});
