import { describe, expect, it } from "vitest";
import { baseEcosystem, GO_SEMVER, orderingOf, SEMVER, semverOrderingOf } from "../../../src/domain/versions/ecosystems.js";

describe("ecosystem orderings", () => {
  // OSV schema, "Defined ecosystems": the spellings, with release and repository suffixes.
  it.each([
    ["Go", "semver"],
    ["npm", "semver"],
    ["crates.io", "semver"],
    ["PyPI", "pep440"],
    ["Maven", "maven"],
    ["Maven:https://maven.google.com", "maven"],
    ["RubyGems", "rubygems"],
    ["Alpine", "apk"],
    ["Alpine:v3.18", "apk"],
    ["Wolfi", "apk"],
    ["Chainguard", "apk"],
    ["Debian", "dpkg"],
    ["Debian:12", "dpkg"],
    ["Debian:sid", "dpkg"],
    ["Ubuntu", "dpkg"],
    ["Ubuntu:22.04:LTS", "dpkg"],
    ["Ubuntu:Pro:18.04:LTS", "dpkg"],
  ])("%s follows %s", (ecosystem, name) => {
    expect(orderingOf(ecosystem)?.name).toBe(name);
  });

  it.each(["pypi", "NPM", "Hackage", "NuGet", "Packagist", "Red Hat:rhel_aus:8.4::appstream", "Root:Alpine:3.18", "", ":Debian"])(
    "%j has none",
    (ecosystem) => {
      expect(orderingOf(ecosystem)).toBeUndefined();
    },
  );

  it("reads Go's v prefix in Go only", () => {
    expect(orderingOf("Go")).toBe(GO_SEMVER);
    expect(semverOrderingOf("Go")).toBe(GO_SEMVER);
    expect(semverOrderingOf("npm")).toBe(SEMVER);
    expect(semverOrderingOf("PyPI")).toBe(SEMVER);
    expect(semverOrderingOf("")).toBe(SEMVER);
  });

  it("takes the part before the first colon as the ecosystem", () => {
    expect(baseEcosystem("Maven:https://maven.google.com")).toBe("Maven");
    expect(baseEcosystem("npm")).toBe("npm");
  });
});
