/**
 * CheckAdvisories: which advisories affect each of a batch of package versions. What the check
 * reads of the advisories of the batch's packages is read in one pass (src/store/advisory-store.ts,
 * ofPackages: each package row's compact CheckedPackage, never the whole documents), and each
 * affected entry naming the package is evaluated as OSV's evaluation says
 * (src/domain/versions/affected.ts): its explicit versions, then its ranges in the ecosystem's
 * version order. An entry that cannot be evaluated for the version (a version that does not parse
 * in the ecosystem's order, or an ecosystem with no known order and no version list that settles
 * it) puts its advisory under `undecided`, never silently under neither.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { invalidArgument } from "../../domain/errors.js";
import { osvTimeMs, type OsvAffected } from "../../domain/osv.js";
import { compileAffected, type AffectedMatcher, type CannotTell } from "../../domain/versions/affected.js";
import { orderingOf } from "../../domain/versions/ecosystems.js";
import type { OrderingName } from "../../domain/versions/ordering.js";
import {
  AffectingAdvisorySchema,
  CheckAdvisoriesResponseSchema,
  PackageVersionResultSchema,
  PackageVersionSchema,
  type AffectingAdvisory,
  type CheckAdvisoriesRequest,
  type CheckAdvisoriesResponse,
  type PackageVersion,
} from "../../gen/arbor/vulnerabilities/v2beta1/advisories_pb.js";
import type { AdvisoryStore, PackageAdvisory } from "../../store/advisory-store.js";
import { severities } from "./advisory-messages.js";

/** The most package versions one check takes. */
export const MAX_CHECKED_PACKAGES = 1_000;
/**
 * The most (package version, advisory of its package) pairs one check evaluates: what its answer
 * could list at most. Each version asked of a package counts every advisory of that package, so
 * a batch of 1,000 versions of a package with 2,600 advisories (Debian's linux has more) asks
 * for 2.6 million: hundreds of megabytes of answer, past what JSON.stringify can write.
 */
export const MAX_CHECKED_PAIRS = 100_000;
/** The longest ecosystem, name or version taken (OSV's longest names are well under this). */
const MAX_FIELD_LENGTH = 512;

/** Answers req from the advisories in store. */
export async function checkAdvisories(store: AdvisoryStore, req: CheckAdvisoriesRequest): Promise<CheckAdvisoriesResponse> {
  validate(req);
  const byPackage = new Map<string, PackageAdvisory[]>();
  for (const advisory of await store.ofPackages(uniquePackages(req.packages))) {
    if (!req.includeWithdrawn && advisory.checked.withdrawn !== undefined) continue;
    const key = packageKey(advisory.ecosystem, advisory.name);
    const list = byPackage.get(key);
    if (list === undefined) byPackage.set(key, [advisory]);
    else list.push(advisory);
  }
  const pairs = req.packages.reduce((n, p) => n + (byPackage.get(packageKey(p.ecosystem, p.name))?.length ?? 0), 0);
  if (pairs > MAX_CHECKED_PAIRS) {
    throw invalidArgument(
      "packages",
      `the ${req.packages.length} package versions have ${pairs} advisories to evaluate between them (a package's advisories ` +
        `counted once for each version asked of it); at most ${MAX_CHECKED_PAIRS} are evaluated at once: send fewer versions per request`,
    );
  }
  // Each affected entry is read (its ranges parsed) once, however many versions of it are asked.
  const matchers = new Map<OsvAffected, AffectedMatcher>();
  const matcherOf = (entry: OsvAffected) => {
    let m = matchers.get(entry);
    if (m === undefined) matchers.set(entry, (m = compileAffected(entry)));
    return m;
  };
  return create(CheckAdvisoriesResponseSchema, {
    results: req.packages.map((p) => resultFor(p, byPackage.get(packageKey(p.ecosystem, p.name)) ?? [], matcherOf)),
  });
}

/** What one affected entry says of a version. */
type Verdict = { kind: "affected" } | { kind: "unaffected" } | { kind: "undecided"; reason: string };

/**
 * The entry's answer for version. Beyond affected.ts's: an entry of an ecosystem whose order
 * Arbor does not know, with ECOSYSTEM ranges and no `versions` list to settle it, is undecided
 * (its ranges were not evaluated, so "not affected" would be a guess). With a list, the list is
 * taken as complete, as OSV's databases generate it from the ranges.
 */
function verdictOf(entry: OsvAffected, matcher: AffectedMatcher, version: string): Verdict {
  const answer = matcher.check(version);
  if (answer.status === "affected") return { kind: "affected" };
  if (answer.status === "cannot_tell") return { kind: "undecided", reason: cannotTell(answer.cause) };
  const ecosystem = entry.package?.ecosystem ?? "";
  const unordered = orderingOf(ecosystem) === undefined && (entry.ranges ?? []).some((r) => r.type === "ECOSYSTEM");
  if (unordered && (entry.versions ?? []).length === 0) {
    return {
      kind: "undecided",
      reason: `Arbor knows no version order for the ecosystem "${ecosystem}", and the advisory lists no versions`,
    };
  }
  return { kind: "unaffected" };
}

function cannotTell(cause: CannotTell): string {
  const what = cause.subject === "version" ? `the version "${cause.value}"` : `the advisory's range event "${cause.value}"`;
  return `${what} is not a ${ORDERING_NAMES[cause.error.ordering]} version (${cause.error.message})`;
}

const ORDERING_NAMES: Record<OrderingName, string> = {
  semver: "SemVer",
  pep440: "PEP 440",
  maven: "Maven",
  rubygems: "RubyGems",
  apk: "apk",
  dpkg: "dpkg",
};

function resultFor(p: PackageVersion, advisories: readonly PackageAdvisory[], matcherOf: (entry: OsvAffected) => AffectedMatcher) {
  const affecting: AffectingAdvisory[] = [];
  const undecided: AffectingAdvisory[] = [];
  const reasons = new Set<string>();
  for (const advisory of advisories) {
    // The package's own entries, as the store kept them with its row.
    const entries = advisory.checked.affected;
    let verdict: "affected" | "unaffected" | "undecided" = "unaffected";
    for (const entry of entries) {
      const v = verdictOf(entry, matcherOf(entry), p.version);
      if (v.kind === "affected") {
        verdict = "affected";
        break;
      }
      if (v.kind === "undecided") {
        verdict = "undecided";
        reasons.add(v.reason);
      }
    }
    if (verdict === "affected") affecting.push(affectingMessage(advisory, entries));
    else if (verdict === "undecided") undecided.push(affectingMessage(advisory, entries));
  }
  return create(PackageVersionResultSchema, {
    package: create(PackageVersionSchema, { ecosystem: p.ecosystem, name: p.name, version: p.version }),
    advisories: affecting,
    undecided,
    undecidedReason: undecided.length === 0 ? "" : [...reasons].join("; "),
  });
}

function affectingMessage(advisory: PackageAdvisory, entries: readonly OsvAffected[]): AffectingAdvisory {
  const d = advisory.checked;
  const fixed = entries.flatMap((e) =>
    (e.ranges ?? []).flatMap((r) => (r.type === "GIT" ? [] : r.events.flatMap((ev) => ("fixed" in ev ? [ev.fixed] : [])))),
  );
  return create(AffectingAdvisorySchema, {
    advisoryId: advisory.uid,
    aliases: d.aliases ?? [],
    summary: d.summary ?? "",
    severities: severities([...(d.severity ?? []), ...entries.flatMap((e) => e.severity ?? [])]),
    fixedVersions: [...new Set(fixed)],
    ...(d.withdrawn !== undefined && { withdrawnTime: timestampFromMs(osvTimeMs(d.withdrawn)) }),
  });
}

function validate(req: CheckAdvisoriesRequest): void {
  if (req.packages.length === 0) throw invalidArgument("packages", "is required: at least one package version");
  if (req.packages.length > MAX_CHECKED_PACKAGES)
    throw invalidArgument("packages", `holds ${req.packages.length} package versions; at most ${MAX_CHECKED_PACKAGES} are checked at once`);
  for (const [i, p] of req.packages.entries()) {
    for (const [field, value] of [
      ["ecosystem", p.ecosystem],
      ["name", p.name],
      ["version", p.version],
    ] as const) {
      if (value === "") throw invalidArgument(`packages[${i}].${field}`, "is required");
      if (value.length > MAX_FIELD_LENGTH)
        throw invalidArgument(`packages[${i}].${field}`, `is ${value.length} characters long; at most ${MAX_FIELD_LENGTH}`);
    }
  }
}

function uniquePackages(packages: readonly PackageVersion[]): { ecosystem: string; name: string }[] {
  const seen = new Map<string, { ecosystem: string; name: string }>();
  for (const p of packages) seen.set(packageKey(p.ecosystem, p.name), { ecosystem: p.ecosystem, name: p.name });
  return [...seen.values()];
}

function packageKey(ecosystem: string, name: string): string {
  return `${ecosystem}\u0000${name}`;
}
