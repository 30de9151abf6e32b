/**
 * Whether one affected package of an OSV advisory covers a version: the schema's evaluation
 * algorithm (ossf.github.io/osv-schema/#evaluation), answering in three ways. The decisions, for
 * the advisories check to cite:
 *
 * - The `versions` list matches first: the exact text, or (in an ecosystem with an order, see
 *   ecosystems.ts) any entry equal in that order, so PyPI 1.0 matches a listed 1.0.0 and Go
 *   v1.2.3 a listed 1.2.3.
 * - SEMVER ranges are read in SemVer 2.0.0 whatever the ecosystem; ECOSYSTEM ranges in the
 *   ecosystem's order, and are skipped when Arbor knows none; GIT ranges are skipped (a commit
 *   graph is needed to evaluate them).
 * - A range's events are sorted by version, `introduced: "0"` first (it means "from the start");
 *   events at the same version keep the advisory's order, so back-to-back ranges ([1, 2) then
 *   [2, 3)) join and an empty one (introduced and fixed at 1) stays empty. Walking them, a
 *   version at or past `introduced` is affected, at or past `fixed` is not, past
 *   `last_affected` is not; with `limit` events the version must also be below one of them (a
 *   limit containing "*" is infinity).
 * - "Cannot tell" is distinct from "not affected": it is the answer when nothing matched and the
 *   version does not parse in its ecosystem's order (or in SemVer, for a SEMVER range), or an
 *   event of a range that could have matched does not parse. A version Arbor cannot read is
 *   never reported unaffected. A range of only `introduced: "0"` (every version, as malicious
 *   package advisories say) covers any text, read or not.
 */
import type { OsvAffected, OsvEvent, OsvRange } from "../osv.js";
import { orderingOf, semverOrderingOf } from "./ecosystems.js";
import type { Parsed, VersionError, VersionOrdering } from "./ordering.js";

/** Why the answer is "cannot tell": which text did not parse, and the refusal. */
export interface CannotTell {
  /** The version asked about, or a version in one of the advisory's range events. */
  readonly subject: "version" | "event";
  readonly value: string;
  readonly error: VersionError;
}

/** The answer for one version. */
export type AffectsAnswer =
  { readonly status: "affected" } | { readonly status: "not_affected" } | { readonly status: "cannot_tell"; readonly cause: CannotTell };

/** An affected package prepared once, to answer for many versions. */
export interface AffectedMatcher {
  check(version: string): AffectsAnswer;
}

const AFFECTED: AffectsAnswer = { status: "affected" };
const NOT_AFFECTED: AffectsAnswer = { status: "not_affected" };

/** Sorts before every version (`introduced: "0"`). */
const START = Symbol("start");
/** Sorts after every version (a `limit` containing "*"). */
const INFINITY = Symbol("infinity");

const INTRODUCED = 0;
const FIXED = 1;
const LAST_AFFECTED = 2;

interface Bound {
  readonly kind: number;
  readonly at: unknown;
}

interface CompiledRange {
  readonly ordering: VersionOrdering;
  /** Sorted by version; ties in the advisory's order. */
  readonly bounds: readonly Bound[];
  readonly limits: readonly unknown[];
  /** Set when an event did not parse: the range cannot be evaluated. */
  readonly broken?: CannotTell;
  /** Only `introduced: "0"` (and infinite limits): every version, read or not. */
  readonly everything?: boolean;
}

/** Answers for one version; the same as compileAffected(affected).check(version). */
export function affects(affected: OsvAffected, version: string): AffectsAnswer {
  return compileAffected(affected).check(version);
}

/** Parses an affected package's ranges and list once, for checking many versions. */
export function compileAffected(affected: OsvAffected): AffectedMatcher {
  const ecosystem = affected.package?.ecosystem ?? "";
  const ordering = orderingOf(ecosystem);
  const semver = semverOrderingOf(ecosystem);
  const ranges: CompiledRange[] = [];
  for (const range of affected.ranges ?? []) {
    const o = range.type === "SEMVER" ? semver : range.type === "ECOSYSTEM" ? ordering : undefined;
    if (o !== undefined) ranges.push(compileRange(range, o));
  }
  const listed = new Set(affected.versions ?? []);
  const equalListed = ordering === undefined ? () => false : listedInOrder(affected.versions ?? [], ordering);

  return {
    check(version: string): AffectsAnswer {
      if (listed.has(version)) return AFFECTED;
      // At most two orders apply (the ecosystem's and SEMVER's): parse in each at most once.
      let o1: VersionOrdering | undefined;
      let p1: Parsed<unknown> | undefined;
      let p2: Parsed<unknown> | undefined;
      const read = (o: VersionOrdering): Parsed<unknown> => {
        if (o1 === undefined || o === o1) return (p1 ??= (o1 = o).parse(version));
        return (p2 ??= o.parse(version));
      };
      let unreadable: CannotTell | undefined;
      let brokenEvent: CannotTell | undefined;
      for (const r of ranges) {
        if (r.everything === true) return AFFECTED;
        if (r.broken !== undefined) {
          brokenEvent ??= r.broken;
          continue;
        }
        const p = read(r.ordering);
        if (!p.ok) unreadable ??= { subject: "version", value: version, error: p.error };
        else if (inRange(r, p.version)) return AFFECTED;
      }
      if (ordering !== undefined) {
        const p = read(ordering);
        if (!p.ok) unreadable ??= { subject: "version", value: version, error: p.error };
        else if (equalListed(p.version)) return AFFECTED;
      }
      const cause = unreadable ?? brokenEvent;
      return cause === undefined ? NOT_AFFECTED : { status: "cannot_tell", cause };
    },
  };
}

function eventOf(e: OsvEvent): { kind: number; text: string } | { kind: "limit"; text: string } | undefined {
  if ("introduced" in e) return { kind: INTRODUCED, text: e.introduced };
  if ("fixed" in e) return { kind: FIXED, text: e.fixed };
  if ("last_affected" in e) return { kind: LAST_AFFECTED, text: e.last_affected };
  if ("limit" in e) return { kind: "limit", text: e.limit };
  return undefined;
}

function compileRange(range: OsvRange, ordering: VersionOrdering): CompiledRange {
  const bounds: Bound[] = [];
  const limits: unknown[] = [];
  for (const raw of range.events) {
    const e = eventOf(raw);
    if (e === undefined) continue;
    let at: unknown;
    if (e.kind === INTRODUCED && e.text === "0") at = START;
    else if (e.kind === "limit" && e.text.includes("*")) at = INFINITY;
    else {
      const p = ordering.parse(e.text);
      if (!p.ok) return { ordering, bounds: [], limits: [], broken: { subject: "event", value: e.text, error: p.error } };
      at = p.version;
    }
    if (e.kind === "limit") limits.push(at);
    else bounds.push({ kind: e.kind, at });
  }
  // Array.prototype.sort is stable: events at one version keep the advisory's order.
  bounds.sort((a, b) => (a.at === START ? (b.at === START ? 0 : -1) : b.at === START ? 1 : ordering.compare(a.at, b.at)));
  const everything = bounds.length > 0 && bounds.every((b) => b.at === START) && limits.every((l) => l === INFINITY);
  return { ordering, bounds, limits, everything };
}

function inRange(r: CompiledRange, v: unknown): boolean {
  if (r.limits.length > 0 && !r.limits.some((l) => l === INFINITY || r.ordering.compare(v, l) < 0)) return false;
  let affected = false;
  for (const b of r.bounds) {
    if (b.at === START) {
      affected = true;
      continue;
    }
    const c = r.ordering.compare(v, b.at);
    // Sorted: no later event is at or below v, so none can change the answer.
    if (c < 0) break;
    if (b.kind === INTRODUCED) affected = true;
    else if (b.kind === FIXED) affected = false;
    else if (c > 0) affected = false;
  }
  return affected;
}

/**
 * Equality in the ecosystem's order with any listed version, by binary search over the list
 * parsed and sorted on first use (lists OSV.dev fills can run to thousands of versions).
 */
function listedInOrder(versions: readonly string[], ordering: VersionOrdering): (v: unknown) => boolean {
  let sorted: unknown[] | undefined;
  return (v) => {
    if (versions.length === 0) return false;
    sorted ??= versions
      .map((t) => ordering.parse(t))
      .flatMap((p) => (p.ok ? [p.version] : []))
      .sort((a, b) => ordering.compare(a, b));
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = ordering.compare(sorted[mid], v);
      if (c === 0) return true;
      if (c < 0) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  };
}
