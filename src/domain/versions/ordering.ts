/**
 * What every version ordering shares: the parsed-or-refused result, the refusal's closed set of
 * reasons, the length bound, and digit-run arithmetic that never overflows. Parsing never throws
 * on user input: a version text arrives from callers and from stored advisories alike, and a bad
 * one must become an answer ("cannot tell"), not an exception.
 */

/** The orderings Arbor knows, one module each. */
export type OrderingName = "semver" | "pep440" | "maven" | "rubygems" | "apk" | "dpkg";

/** Why a version text was refused. */
export type VersionErrorReason = "EMPTY" | "TOO_LONG" | "MALFORMED";

/** A refused version text: which ordering refused it, why, and at which character. */
export interface VersionError {
  readonly ordering: OrderingName;
  readonly reason: VersionErrorReason;
  /** Index in the text (UTF-16 units) where reading stopped. */
  readonly at: number;
  readonly message: string;
}

/** A parsed version, or why the text is not one. */
export type Parsed<V> = { readonly ok: true; readonly version: V } | { readonly ok: false; readonly error: VersionError };

/** An ordering as the range evaluator uses it. */
export interface VersionOrdering<V = unknown> {
  readonly name: OrderingName;
  parse(text: string): Parsed<V>;
  /** Negative, zero or positive; a total preorder on parsed versions. */
  compare(a: V, b: V): number;
}

/**
 * The longest version text read. Real versions are short (the longest in the OSV data are Maven
 * and dpkg versions well under 100 characters); the bound keeps every parse and compare cheap.
 */
export const MAX_VERSION_LENGTH = 256;

export function refuse(
  ordering: OrderingName,
  reason: VersionErrorReason,
  at: number,
  message: string,
): { ok: false; error: VersionError } {
  return { ok: false, error: { ordering, reason, at, message } };
}

/** The refusal every ordering gives before reading a character, if any. */
export function refuseBounds(ordering: OrderingName, text: string): { ok: false; error: VersionError } | undefined {
  if (text.length === 0) return refuse(ordering, "EMPTY", 0, "version is empty");
  if (text.length > MAX_VERSION_LENGTH) {
    return refuse(ordering, "TOO_LONG", MAX_VERSION_LENGTH, `version is longer than ${MAX_VERSION_LENGTH} characters`);
  }
  return undefined;
}

export function accept<V>(version: V): { ok: true; version: V } {
  return { ok: true, version };
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

export function isLower(c: number): boolean {
  return c >= 97 && c <= 122;
}

export function isUpper(c: number): boolean {
  return c >= 65 && c <= 90;
}

export function isLetter(c: number): boolean {
  return isLower(c) || isUpper(c);
}

/** The index of the first character at or after `from` that is not an ASCII digit. */
export function digitsEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length && isDigit(text.charCodeAt(i))) i++;
  return i;
}

/** A run of ASCII digits without its leading zeros ("0" for all zeros), ready for compareDigits. */
export function trimZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  return i === 0 ? digits : digits.slice(i);
}

/**
 * Compares two digit runs without leading zeros by numeric value, at any length: numbers in
 * versions (dates, build counters) outgrow 2^53, and a wrapped or rounded number would misorder.
 */
export function compareDigits(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two strings by UTF-16 code unit (byte order for the ASCII texts versions are). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
