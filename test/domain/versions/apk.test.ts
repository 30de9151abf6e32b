import { describe, it } from "vitest";
import { APK } from "../../../src/domain/versions/ecosystems.js";
import { expectAscending, expectComparison, expectRefused, read } from "./ordering-table.js";

describe("apk versions", () => {
  // alpinelinux/apk-tools test/unit/version.data: comparisons.
  it.each([
    "2.34 > 0.1.0_alpha",
    "0.1.0_alpha == 0.1.0_alpha",
    "0.1.0_alpha < 0.1.3_alpha",
    "0.1.0_alpha2 > 0.1.0_alpha",
    "0.1.0_alpha < 2.2.39-r1",
    "1.0.4-r3 < 1.0.4-r4",
    "1.1 > 1.1_alpha1",
    "1.2.1 > 1.2",
    "1.3_alpha < 1.3_alpha2",
    "0.8_beta1 < 0.8_beta2",
    "2.3.0b-r1 < 2.3.0b-r2",
    "0.12.3 > 0.12",
    "3.1_p16 < 3.1_p17",
    "4.2.52_p2-r1 < 4.2.52_p4-r2",
    "3.9_pre20060124 > 0.01",
    "2.1_pre20 < 2.1_pre26",
    "4.5_p1-r1 > 4.5_p1",
    "1.8.5 < 1.8.5_p2",
    "2.9.11_pre20051101-r3 > 2.9.11_pre20051101",
    "1.6.8_p12-r1 > 1.6.8_p9-r2",
    "1.3_pre1-r1 < 1.3.2",
    "1.0_p10-r0 > 1.0_p9-r0",
    "0.1.0_alpha_pre2 < 0.1.0_alpha",
    "1.0.0_pre20191002222144-r0 < 1.0.0_pre20210530193627-r0",
    "6.0_pre1 < 6.0",
    "6.0_p1 > 6.0",
    "8.2.0 < 8.2.001", // a leading zero compares as text
    "8.2.0015 < 8.2.002",
    "1.0~1234 < 1.0~2345", // commit hashes
    "1.0~1234-r1 < 1.0~2345-r0",
    "1.0~1234-r1 > 1.0~1234-r0",
    "0.9.8c-r1 < 4.5_p1",
  ])("%s", (line) => expectComparison(APK, line));

  // version.c: the suffixes' order around the release, and the token kinds when one side ends.
  it("orders suffixes, letters and revisions", () => {
    expectAscending(APK, [
      "1.2_alpha",
      "1.2_alpha1",
      "1.2_beta",
      "1.2_pre",
      "1.2_rc",
      "1.2",
      "1.2-r1",
      "1.2_cvs",
      "1.2_svn",
      "1.2_git",
      "1.2_hg",
      "1.2_p",
      "1.2_p1",
      "1.2a",
      "1.2b",
      "1.2.0",
      "1.2.1",
    ]);
    expectAscending(APK, ["1.01", "1.1", "1.2", "1.10"]);
  });

  it.each(["01 == 1", "1-r00 == 1-r0", "1.2_p01 == 1.2_p1"])("%s", (line) => expectComparison(APK, line));

  // version.data: validity ("!" lines are invalid).
  it.each(["1.2", "0.1_pre2", "0.1_pre2~1234abcd", "0.1_p1_pre2", "0.1_alpha1_pre2", "0.1_git20240101_pre1"])("accepts %j", (text) => {
    read(APK, text);
  });

  it.each([
    "0.1bc",
    "0.1bc1",
    "0.1a1",
    "0.1a.1",
    "0.1_pre2~",
    "0.1_pre2~1234xbcd",
    "0.1_pre2~1234abcd_pre1",
    "0.1_pre2-r1~1234xbcd",
    "0.1_foobar",
    "0.1_foobar1",
    "0.1-pre1.1",
    "0.1-r",
    "0.1-r2_pre1",
    "0.1-r2_p3_pre1",
    "0.1-r2-r3",
    "0.1-r2.1",
    ".1",
    "a",
    "_pre1",
    "-r1",
    "0.1_",
    "0.1_-r0",
    "0.1__alpha",
    "0.1_1_alpha",
    "1.0A",
    "1.0 ",
    "v1.0",
  ])("refuses %j", (text) => expectRefused(APK, text));

  it("refuses the empty text", () => expectRefused(APK, "", "EMPTY"));
});
