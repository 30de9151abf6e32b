import { describe, it } from "vitest";
import { MAVEN } from "../../../src/domain/versions/ecosystems.js";
import { expectAscending, expectComparison, expectRefused } from "./ordering-table.js";

describe("Maven ComparableVersion", () => {
  // apache/maven ComparableVersionTest.java, VERSIONS_QUALIFIER and VERSIONS_NUMBER (each also
  // checked against maven-artifact 3.9.6).
  it("orders the qualifier list of ComparableVersionTest", () => {
    expectAscending(MAVEN, [
      "1-alpha2snapshot",
      "1-alpha2",
      "1-alpha-123",
      "1-beta-2",
      "1-beta123",
      "1-m2",
      "1-m11",
      "1-rc",
      "1-cr2",
      "1-rc123",
      "1-SNAPSHOT",
      "1",
      "1-sp",
      "1-sp2",
      "1-sp123",
      "1-abc",
      "1-def",
      "1-pom-1",
      "1-1-snapshot",
      "1-1",
      "1-2",
      "1-123",
    ]);
  });

  it("orders the number list of ComparableVersionTest", () => {
    expectAscending(MAVEN, [
      "2.0",
      "2.0.a",
      "2-1",
      "2.0.2",
      "2.0.123",
      "2.1.0",
      "2.1-a",
      "2.1b",
      "2.1-c",
      "2.1-1",
      "2.1.0.1",
      "2.2",
      "2.123",
      "11.a2",
      "11.a11",
      "11.b2",
      "11.b11",
      "11.m2",
      "11.m11",
      "11",
      "11.a",
      "11b",
      "11c",
      "11m",
    ]);
  });

  // maven.apache.org/pom.html "Version Order Specification": the qualifier ranks.
  it("ranks the known qualifiers, then unknown ones lexically", () => {
    expectAscending(MAVEN, ["1-alpha", "1-beta", "1-milestone", "1-rc", "1-snapshot", "1", "1-sp", "1-abc", "1-xyz"]);
  });

  // ComparableVersionTest testVersionsEqual, testVersionsHaveSameOrderButAreNotEqual and
  // testVersionEqualWithLeadingZeroes.
  it.each([
    "1 == 1.0",
    "1 == 1.0.0",
    "1.0 == 1.0.0",
    "1 == 1-0",
    "1 == 1.0-0",
    "1.0 == 1.0-0", // trailing zeros
    "1a == 1-a",
    "1a == 1.0-a",
    "1a == 1.0.0-a",
    "1.0a == 1-a",
    "1.0.0a == 1-a",
    "1x == 1-x",
    "1.0.0x == 1-x", // transitions
    "1cr == 1rc",
    "1a1 == 1-alpha-1",
    "1b2 == 1-beta-2",
    "1m3 == 1-milestone-3", // aliases
    "1X == 1x",
    "1Cr == 1Rc",
    "1m3 == 1MILESTONE3",
    "1.0.0-ALPHA1 == 1.0.0-alpha1", // case
    "1ga == 1",
    "1release == 1",
    "1final == 1",
    "1-GA == 1",
    "1.FINAL == 1", // release qualifiers
    "01 == 1",
    "0000000000000000001 == 1",
    "000 == 0",
  ])("%s", (line) => expectComparison(MAVEN, line));

  // ComparableVersionTest testVersionComparing, testLeadingZeroes, testMng5568, testMng6572,
  // testMng6964, testCompareDigitToLetter, testLexicographicOrder.
  it.each([
    "1 < 2",
    "1.5 < 2",
    "1 < 2.5",
    "1.0 < 1.1",
    "1.0.0 < 1.1",
    "1.0.1 < 1.1",
    "1.1 < 1.2.0",
    "1.0-alpha-1 < 1.0",
    "1.0-alpha-1 < 1.0-alpha-2",
    "1.0-alpha-1 < 1.0-beta-1",
    "1.0-beta-1 < 1.0-SNAPSHOT",
    "1.0-SNAPSHOT < 1.0",
    "1.0-alpha-1-SNAPSHOT < 1.0-alpha-1",
    "1.0 < 1.0-1",
    "1.0-1 < 1.0-2",
    "1.0.0 < 1.0-1",
    "2.0-1 < 2.0.1",
    "2.0.1-klm < 2.0.1-lmn",
    "2.0.1 < 2.0.1-xyz",
    "2.0.1 < 2.0.1-123",
    "2.0.1-xyz < 2.0.1-123",
    "0.7 < 2",
    "0.2 < 1.0.7",
    "6.1.0rc3 < 6.1.0",
    "6.1.0rc3 < 6.1H.5-beta",
    "6.1.0 < 6.1H.5-beta",
    "20190126.230843 < 1234567890.12345",
    "1234567890.12345 < 123456789012345.1H.5-beta",
    "123456789012345.1H.5-beta < 12345678901234567890.1H.5-beta",
    "1-0.alpha < 1",
    "1-0.beta < 1",
    "J < 7",
    "c < 7",
    "aardvark < zebra",
    "1.0.RC1 == 1.0-RC1", // a qualifier after a dot counts as after a hyphen
    "1.0-RC1 < 1.0.1",
  ])("%s", (line) => expectComparison(MAVEN, line));

  // Maven's order is not transitive on some texts; Arbor answers as Maven does (each cycle
  // checked against maven-artifact 3.9.6), since Maven's resolver is what the advisory means.
  it.each([
    ["1-0-alpha", "1", "1-b"],
    ["1-ga-alpha", "1", "1-a"],
    ["1-rc", "1", "1.zeta.2"],
    ["-rc", "0", "zeta"],
  ])("keeps Maven's cycle %s < %s < %s (< the first)", (a, b, c) => {
    expectComparison(MAVEN, `${a} < ${b}`);
    expectComparison(MAVEN, `${b} < ${c}`);
    expectComparison(MAVEN, `${c} < ${a}`);
  });

  // Qualifiers named like Object.prototype's members are plain unknown qualifiers.
  it.each(["1-constructor1 == 1-constructor-1", "1-toString1 == 1-tostring-1", "1-sp < 1-__proto__", "1-hasownproperty2 < 1-valueOf"])(
    "%s",
    (line) => expectComparison(MAVEN, line),
  );

  it.each(["1.0 beta", "1.0-é", "1.0\t", " 1.0", "1.0\u0000"])("refuses %j", (text) => expectRefused(MAVEN, text));

  it("refuses the empty text and texts over 256 characters", () => {
    expectRefused(MAVEN, "", "EMPTY");
    expectRefused(MAVEN, "1.".repeat(129), "TOO_LONG");
  });
});
