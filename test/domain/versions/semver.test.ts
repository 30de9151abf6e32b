import { describe, expect, it } from "vitest";
import { GO_SEMVER, SEMVER } from "../../../src/domain/versions/ecosystems.js";
import { expectAscending, expectComparison, expectRefused, read } from "./ordering-table.js";

describe("SemVer 2.0.0", () => {
  it("orders the precedence example of semver.org section 11.4", () => {
    expectAscending(SEMVER, [
      "1.0.0-alpha",
      "1.0.0-alpha.1",
      "1.0.0-alpha.beta",
      "1.0.0-beta",
      "1.0.0-beta.2",
      "1.0.0-beta.11",
      "1.0.0-rc.1",
      "1.0.0",
    ]);
  });

  it("orders the numbers of section 11.2 numerically", () => {
    expectAscending(SEMVER, ["1.0.0", "2.0.0", "2.1.0", "2.1.1", "2.10.0", "10.0.0"]);
  });

  // semver.org sections 9-11, and osv-scalibr semantic/testdata/semver-versions.txt.
  it.each([
    "1.0.0-alpha < 1.0.0", // 11.3: a pre-release is below its release
    "1.0.0-1 < 1.0.0-a", // 11.4.3: numeric identifiers below alphanumeric ones
    "1.0.0-2 < 1.0.0-10", // 11.4.1: numerically
    "1.0.0-a10 < 1.0.0-a9", // 11.4.2: lexically in ASCII
    "1.0.0-Z < 1.0.0-a", // ASCII: upper case first
    "1.0.0-alpha.1 < 1.0.0-alpha-1", // a hyphen is part of an identifier: alpha-1 is one, above alpha
    "1.0.0+build.1 == 1.0.0+build.2", // 10: build metadata has no precedence
    "1.0.0-rc.1+build.1 == 1.0.0-rc.1",
    "0.0.0-foo < 0.0.0",
    "0.10.0 > 0.9.0",
    "999999999999999999999999999991.0.0 < 999999999999999999999999999999.0.0", // beyond 2^53
  ])("%s", (line) => expectComparison(SEMVER, line));

  it.each([
    "", // empty
    "1",
    "1.2",
    "1.2.3.4", // exactly three numbers
    "01.2.3",
    "1.02.3",
    "1.2.03", // no leading zeros
    "1.2.3-01", // nor in numeric pre-release identifiers
    "1.2.3-",
    "1.2.3-a..b",
    "1.2.3+",
    "1.2.3+a..b", // no empty identifiers
    "v1.2.3",
    "=1.2.3",
    " 1.2.3",
    "1.2.3 ", // no prefixes or spaces outside Go
    "1.2.3-a_b",
    "1.2.3-é",
    "-1.2.3",
    "1.2.3-rc.1+b+c",
  ])("refuses %j", (text) => expectRefused(SEMVER, text, text === "" ? "EMPTY" : "MALFORMED"));

  it("refuses texts over 256 characters", () => {
    expectRefused(SEMVER, `1.0.0-${"a".repeat(251)}`, "TOO_LONG");
    expect(SEMVER.parse(`1.0.0-${"a".repeat(250)}`).ok).toBe(true);
  });

  it("keeps leading zeros in build metadata (section 10 allows them)", () => {
    expect(read(SEMVER, "1.0.0+001").build).toBe("001");
  });
});

describe("Go module versions", () => {
  it("accept the v prefix, and order as SemVer", () => {
    expectComparison(GO_SEMVER, "v1.2.3 == 1.2.3");
    expectComparison(GO_SEMVER, "v2.0.0+incompatible == v2.0.0");
    expectRefused(GO_SEMVER, "V1.2.3");
    expectRefused(GO_SEMVER, "vv1.2.3");
  });

  // Pseudo-versions, go.dev/ref/mod#pseudo-versions: a pseudo-version sorts after the tagged
  // version it derives from and before the next tag and its pre-releases.
  it("orders pseudo-versions", () => {
    expectAscending(GO_SEMVER, [
      "v0.0.0-20191109021931-daa7c04131f5",
      "v0.0.0-20200101000000-000000000000",
      "v1.2.3",
      "v1.2.4-0.20191109021931-daa7c04131f5",
      "v1.2.4-0.20200101000000-aaaaaaaaaaaa",
      "v1.2.4-pre",
      "v1.2.4-pre.0.20191109021931-daa7c04131f5",
      "v1.2.4",
    ]);
  });
});
