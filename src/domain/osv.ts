/**
 * The OSV document (the Open Source Vulnerability format, ossf.github.io/osv-schema): the fields
 * Arbor reads. A document that reached these types has passed the schema in schemas/, so the
 * shapes below hold; fields Arbor does not read are kept in the stored JSON all the same.
 */

/** One severity rating. */
export interface OsvSeverity {
  type: "CVSS_V2" | "CVSS_V3" | "CVSS_V4" | "Ubuntu";
  score: string;
}

/** One event of a range: exactly one key. */
export type OsvEvent = { introduced: string } | { fixed: string } | { last_affected: string } | { limit: string };

/** A span of affected versions. */
export interface OsvRange {
  type: "SEMVER" | "ECOSYSTEM" | "GIT";
  repo?: string;
  events: OsvEvent[];
}

/** One affected package (or repository). */
export interface OsvAffected {
  package?: { ecosystem: string; name: string; purl?: string };
  severity?: OsvSeverity[] | null;
  ranges?: OsvRange[];
  versions?: string[];
}

/** A link. */
export interface OsvReference {
  type: string;
  url: string;
}

/** An OSV document. Times are RFC 3339 UTC text. */
export interface OsvDocument {
  schema_version?: string;
  id: string;
  modified: string;
  published?: string;
  withdrawn?: string;
  aliases?: string[] | null;
  related?: string[] | null;
  summary?: string;
  details?: string;
  severity?: OsvSeverity[] | null;
  affected?: OsvAffected[] | null;
  references?: OsvReference[] | null;
}

/** Milliseconds since the epoch of an OSV time (RFC 3339 UTC; digits past milliseconds are dropped). */
export function osvTimeMs(text: string): number {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(text);
  if (!m) throw new RangeError(`not an OSV time: ${text}`);
  const ms = Date.parse(`${m[1]}Z`);
  if (Number.isNaN(ms)) throw new RangeError(`not an OSV time: ${text}`);
  return ms + Number((m[2] ?? "").padEnd(3, "0").slice(0, 3));
}
