import { describe, expect, it } from "vitest";
import { PEP440 } from "../../../src/domain/versions/ecosystems.js";
import { expectAscending, expectComparison, expectRefused } from "./ordering-table.js";

describe("PEP 440", () => {
  // PEP 440, "Summary of permitted suffixes and relative ordering" (the example list, in order).
  it("orders the specification's example list", () => {
    expectAscending(PEP440, [
      "1.dev0",
      "1.0.dev456",
      "1.0a1",
      "1.0a2.dev456",
      "1.0a12.dev456",
      "1.0a12",
      "1.0b1.dev456",
      "1.0b2",
      "1.0b2.post345.dev456",
      "1.0b2.post345",
      "1.0rc1.dev456",
      "1.0rc1",
      "1.0",
      "1.0+abc.5",
      "1.0+abc.7",
      "1.0+5",
      "1.0.post456.dev34",
      "1.0.post456",
      "1.0.15",
      "1.1.dev1",
    ]);
  });

  // PEP 440, "Version epochs": the epoch outranks the release.
  it.each(["2013.10 < 2014.04", "1!1.0 > 2014.04", "1!1.0 < 1!2.0", "0!1.0 == 1.0", "1!0.1 > 9999.0"])("epochs: %s", (line) =>
    expectComparison(PEP440, line),
  );

  // PEP 440, "Normalization": each spelling equals its normal form.
  it.each([
    "1.1RC1 == 1.1rc1", // case sensitivity
    "00 == 0", // integer normalisation
    "09000 == 9000",
    "1.0+foo0100 == 1.0+foo0100",
    "1.1.a1 == 1.1a1", // pre-release separators
    "1.1-a1 == 1.1a1",
    "1.0a.1 == 1.0a1",
    "1.1alpha1 == 1.1a1", // pre-release spelling
    "1.1beta2 == 1.1b2",
    "1.1c3 == 1.1rc3",
    "1.1pre3 == 1.1rc3",
    "1.1preview3 == 1.1rc3",
    "1.2a == 1.2a0", // implicit pre-release number
    "1.2-post2 == 1.2.post2", // post-release separators
    "1.2post2 == 1.2.post2",
    "1.2_post2 == 1.2.post2",
    "1.0-r4 == 1.0.post4", // post-release spelling
    "1.0-rev4 == 1.0.post4",
    "1.2.post == 1.2.post0", // implicit post-release number
    "1.0-1 == 1.0.post1", // implicit post releases
    "1.2-dev2 == 1.2.dev2", // development release separators
    "1.2dev2 == 1.2.dev2",
    "1.2.dev == 1.2.dev0", // implicit development release number
    "1.0+ubuntu-1 == 1.0+ubuntu.1", // local version segments
    "1.0+UBUNTU.1 == 1.0+ubuntu.1",
    "v1.0 == 1.0", // preceding v
    "V1.0 == 1.0",
    "1.0a1 == 1.0.0a1", // release padding
    "1.0 == 1.0.0.0",
    "1.0+abc.01 == 1.0+abc.1",
  ])("normalises %s", (line) => expectComparison(PEP440, line));

  it("ignores leading and trailing whitespace", () => {
    const a = PEP440.parse("  1.0\n");
    const b = PEP440.parse("1.0");
    expect(a.ok && b.ok && PEP440.compare(a.version, b.version)).toBe(0);
  });

  // Local versions (PEP 440 "Local version identifiers"): absent first, numbers above text,
  // then segment by segment; pypa/packaging tests/test_version.py covers the same.
  it.each([
    "1.0 < 1.0+a",
    "1.0+a < 1.0+1",
    "1.0+abc < 1.0+abc.1",
    "1.0+1.a < 1.0+1.1",
    "1.0+a < 1.0+b",
    "1.0+9 < 1.0+10",
    "1.0+1 < 1.0.post0",
  ])("local versions: %s", (line) => expectComparison(PEP440, line));

  // Edge cases between the suffixes (pypa/packaging tests/test_version.py ordering cases).
  it.each([
    "1.0.dev0 < 1.0a0",
    "1.0a1.post1 < 1.0a2",
    "1.0.post1.dev0 < 1.0.post1",
    "1.0.dev1 < 1.0.dev2",
    "1.0a1.dev1 < 1.0a1",
    "1.0rc1 < 1.0.post0.dev0",
  ])("suffixes: %s", (line) => expectComparison(PEP440, line));

  it.each([
    "1.0-",
    "1.0.",
    "1.0+",
    "1.0+a..b",
    "1.0+é",
    "abc",
    "1.0alpha-beta",
    "1!",
    "!1.0",
    "1.0 1",
    "1.0ab",
    "1.0-post1-post2",
    "1.0.x",
    "1..0",
    "1.0_",
  ])("refuses %j", (text) => expectRefused(PEP440, text));

  it("refuses the empty text and blank texts", () => {
    expectRefused(PEP440, "", "EMPTY");
    expectRefused(PEP440, "  \t", "EMPTY");
  });
});
