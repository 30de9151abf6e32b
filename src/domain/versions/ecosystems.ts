/**
 * Which version order each OSV ecosystem follows, for evaluating an advisory's ranges
 * (ossf.github.io/osv-schema, "Defined ecosystems"). The decisions, for the advisories check to
 * cite:
 *
 * - Go, npm and crates.io versions are SemVer 2.0.0 (semver.ts); for Go a leading "v" is
 *   accepted (module versions carry it; OSV events do not), elsewhere it is refused, as the
 *   registries refuse it. PyPI follows PEP 440 (pep440.ts), Maven Maven 3.9's
 *   ComparableVersion (maven.ts), RubyGems Gem::Version (rubygems.ts), Alpine, Wolfi and
 *   Chainguard apk-tools (apk.ts), Debian and Ubuntu dpkg (dpkg.ts).
 * - An ecosystem name is matched exactly, as OSV spells it ("PyPI", not "pypi"), on the part
 *   before the first colon: "Alpine:v3.18", "Debian:12", "Ubuntu:22.04:LTS" and
 *   "Maven:https://maven.google.com" take their base ecosystem's order.
 * - Every other ecosystem has no order here: its ECOSYSTEM ranges are skipped and only the
 *   advisory's `versions` list (and any SEMVER range) can match. OSV.dev fills `versions` from
 *   ECOSYSTEM ranges for the ecosystems it knows, so such advisories still answer.
 * - SEMVER ranges use SemVer 2.0.0 in every ecosystem, as the schema defines them.
 */
import * as apk from "./apk.js";
import * as dpkg from "./dpkg.js";
import * as maven from "./maven.js";
import type { VersionOrdering } from "./ordering.js";
import * as pep440 from "./pep440.js";
import * as rubygems from "./rubygems.js";
import * as semver from "./semver.js";

/** SemVer 2.0.0 as SEMVER ranges and npm and crates.io use it. */
export const SEMVER: VersionOrdering<semver.SemVer> = { name: "semver", parse: (text) => semver.parse(text), compare: semver.compare };
/** SemVer 2.0.0 with Go's "v" prefix. */
export const GO_SEMVER: VersionOrdering<semver.SemVer> = {
  name: "semver",
  parse: (text) => semver.parse(text, { v: true }),
  compare: semver.compare,
};
export const PEP440: VersionOrdering<pep440.Pep440> = { name: "pep440", parse: pep440.parse, compare: pep440.compare };
export const MAVEN: VersionOrdering<maven.MavenVersion> = { name: "maven", parse: maven.parse, compare: maven.compare };
export const RUBYGEMS: VersionOrdering<rubygems.GemVersion> = { name: "rubygems", parse: rubygems.parse, compare: rubygems.compare };
export const APK: VersionOrdering<apk.ApkVersion> = { name: "apk", parse: apk.parse, compare: apk.compare };
export const DPKG: VersionOrdering<dpkg.DpkgVersion> = { name: "dpkg", parse: dpkg.parse, compare: dpkg.compare };

const BY_ECOSYSTEM: ReadonlyMap<string, VersionOrdering> = new Map<string, VersionOrdering>([
  ["Go", GO_SEMVER],
  ["npm", SEMVER],
  ["crates.io", SEMVER],
  ["PyPI", PEP440],
  ["Maven", MAVEN],
  ["RubyGems", RUBYGEMS],
  ["Alpine", APK],
  ["Wolfi", APK],
  ["Chainguard", APK],
  ["Debian", DPKG],
  ["Ubuntu", DPKG],
]);

/** The ecosystem without its release or repository suffix ("Debian:12" is "Debian"). */
export function baseEcosystem(ecosystem: string): string {
  const colon = ecosystem.indexOf(":");
  return colon < 0 ? ecosystem : ecosystem.slice(0, colon);
}

/** The order of an ecosystem's versions, or undefined when Arbor knows none (see above). */
export function orderingOf(ecosystem: string): VersionOrdering | undefined {
  return BY_ECOSYSTEM.get(baseEcosystem(ecosystem));
}

/** The order of SEMVER ranges in an ecosystem: SemVer 2.0.0, reading Go's "v" prefix in Go. */
export function semverOrderingOf(ecosystem: string): VersionOrdering {
  return baseEcosystem(ecosystem) === "Go" ? GO_SEMVER : SEMVER;
}
