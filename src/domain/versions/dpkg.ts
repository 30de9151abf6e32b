/**
 * Debian package versions (Debian, Ubuntu): Debian Policy 5.6.12, `[epoch:]upstream[-revision]`.
 * The epoch is a number (default 0); the revision follows the last hyphen (default empty, which
 * equals "0"). Upstream and revision compare alternately by non-digit runs, character by
 * character, where `~` sorts before everything (even the end: 1.0~rc1 < 1.0), then letters,
 * then the end and digits, then other characters; and digit runs by numeric value. Arbor refuses
 * what policy forbids (an upstream not starting with a digit, characters outside alphanumerics
 * and `. + ~ -` (`:` too, after an epoch, as dpkg allows), an empty epoch or revision), where
 * `dpkg --compare-versions` only warns.
 */
import { accept, compareDigits, digitsEnd, isDigit, isLetter, type Parsed, refuse, refuseBounds, trimZeros } from "./ordering.js";

/** A parsed version. */
export interface DpkgVersion {
  readonly epoch: string;
  readonly upstream: string;
  readonly revision: string;
}

/** The largest epoch dpkg accepts (INT_MAX). */
const MAX_EPOCH = "2147483647";

export function parse(text: string): Parsed<DpkgVersion> {
  const bad = refuseBounds("dpkg", text);
  if (bad) return bad;
  let start = 0;
  let epoch = "0";
  const colon = text.indexOf(":");
  if (colon >= 0) {
    if (colon === 0 || digitsEnd(text, 0) !== colon) return refuse("dpkg", "MALFORMED", 0, "the epoch must be a number");
    epoch = trimZeros(text.slice(0, colon));
    if (compareDigits(epoch, MAX_EPOCH) > 0) return refuse("dpkg", "MALFORMED", 0, "the epoch is too big");
    start = colon + 1;
    if (start === text.length) return refuse("dpkg", "MALFORMED", start, "nothing after the epoch");
  }
  const hyphen = text.lastIndexOf("-");
  const upstreamEnd = hyphen >= start ? hyphen : text.length;
  if (hyphen >= start && hyphen === text.length - 1) return refuse("dpkg", "MALFORMED", hyphen + 1, "the revision is empty");
  if (upstreamEnd === start) return refuse("dpkg", "MALFORMED", start, "the upstream version is empty");
  if (!isDigit(text.charCodeAt(start))) return refuse("dpkg", "MALFORMED", start, "the upstream version must start with a digit");
  for (let k = start; k < upstreamEnd; k++) {
    const c = text.charCodeAt(k);
    if (!isDigit(c) && !isLetter(c) && c !== 46 && c !== 43 && c !== 126 && c !== 45 && c !== 58) {
      return refuse("dpkg", "MALFORMED", k, "invalid character in the upstream version");
    }
  }
  for (let k = upstreamEnd + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (!isDigit(c) && !isLetter(c) && c !== 46 && c !== 43 && c !== 126) {
      return refuse("dpkg", "MALFORMED", k, "invalid character in the revision");
    }
  }
  const revision = upstreamEnd < text.length ? text.slice(upstreamEnd + 1) : "";
  return accept({ epoch, upstream: text.slice(start, upstreamEnd), revision });
}

/** A character's weight in a non-digit run: ~ first, then the end (and digits), letters, the rest. */
function weight(s: string, i: number): number {
  if (i >= s.length) return 0;
  const c = s.charCodeAt(i);
  if (isDigit(c)) return 0;
  if (isLetter(c)) return c;
  if (c === 126) return -1;
  return c + 256;
}

/** dpkg's verrevcmp: alternating non-digit runs (by weight) and digit runs (by value). */
function compareRuns(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !isDigit(a.charCodeAt(i))) || (j < b.length && !isDigit(b.charCodeAt(j)))) {
      const d = weight(a, i) - weight(b, j);
      if (d !== 0) return d;
      i++;
      j++;
    }
    while (a.charCodeAt(i) === 48) i++;
    while (b.charCodeAt(j) === 48) j++;
    const ae = digitsEnd(a, i);
    const be = digitsEnd(b, j);
    if (ae - i !== be - j) return ae - i - (be - j);
    for (; i < ae; i++, j++) {
      const d = a.charCodeAt(i) - b.charCodeAt(j);
      if (d !== 0) return d;
    }
  }
  return 0;
}

export function compare(a: DpkgVersion, b: DpkgVersion): number {
  return compareDigits(a.epoch, b.epoch) || compareRuns(a.upstream, b.upstream) || compareRuns(a.revision, b.revision);
}
