import { describe, it } from "vitest";
import { DPKG } from "../../../src/domain/versions/ecosystems.js";
import { expectAscending, expectComparison, expectRefused } from "./ordering-table.js";

describe("dpkg versions", () => {
  // Debian Policy 5.6.12: "~~, ~~a, ~, the empty part, a" (tilde before everything, even the end).
  it("orders the policy's tilde example", () => {
    expectAscending(DPKG, ["1.0~~", "1.0~~a", "1.0~", "1.0", "1.0a"]);
  });

  // Each line also checked with `dpkg --compare-versions` (dpkg 1.21): epochs, revisions,
  // backports and security updates as Debian and Ubuntu name them, numeric runs, letters
  // before non-letters.
  it.each([
    "1.0~~ < 1.0~~a",
    "1.0~~a < 1.0~",
    "1.0~ < 1.0",
    "1.0 < 1.0a",
    "1.0~rc1 < 1.0",
    "1.0~rc1 < 1.0~rc2",
    "1.0~rc2-1 < 1.0-1",
    "1.0-1 < 1.0-1ubuntu1",
    "1.0-1ubuntu1 < 1.0-1ubuntu1.1",
    "1.0-1ubuntu1.1 < 1.0-2",
    "1:0.9 > 2.0",
    "0:1.0 == 1.0",
    "1.0 == 1.0-0",
    "1.0-0 == 1.0-00",
    "1.00 == 1.0",
    "1.0 < 1.0.0",
    "1.0 < 1.0+dfsg",
    "1.0+dfsg < 1.0.1",
    "1.0a < 1.0+",
    "1.0A < 1.0a",
    "1.0 < 1.0A",
    "1.2.3 < 1.10",
    "2.30 > 2.4",
    "1.0-1 < 1.0-1+deb12u1",
    "1.0-1+deb12u1 < 1.0-1+deb12u2",
    "2.36.1-8+deb12u1 < 2.36.1-8+deb12u2",
    "7.88.1-10+deb12u5 < 7.88.1-10+deb12u12",
    "1:2.3-4 > 9.9-9",
    "1.0-a-1 > 1.0-1",
    "1.0-2 > 1.0-1~bpo12+1",
    "3.0.11-1~deb12u2 < 3.0.11-1",
    "1:2:3-4 > 1:2:2-4",
    "99999999999999999999999 > 1.0",
  ])("%s", (line) => expectComparison(DPKG, line));

  // dpkg's parseversion errors, and what policy forbids where dpkg only warns.
  it.each([
    "1.0-",
    ":1.0",
    "1:",
    "a1.0",
    "1.0_1",
    "1.0-1_1",
    "1.0 1",
    "-1:1.0",
    "1.0-@",
    "2147483648:1.0",
    "1.2:3-4",
    "x:1.0",
    " 1.0",
    "1.0-1:2",
  ])("refuses %j", (text) => expectRefused(DPKG, text));

  it("refuses the empty text and texts over 256 characters", () => {
    expectRefused(DPKG, "", "EMPTY");
    expectRefused(DPKG, `1.${"0".repeat(255)}`, "TOO_LONG");
  });
});
