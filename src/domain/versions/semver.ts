/**
 * Semantic Versioning 2.0.0 (semver.org): precedence per section 11, build metadata ignored
 * (section 10). Strict grammar: no leading zeros in numeric identifiers, no empty identifiers,
 * exactly three numbers. Go module versions are semver with a required "v"; `parse(text, { v:
 * true })` accepts that prefix, and Go pseudo-versions (v0.0.0-20191109021931-daa7c04131f5,
 * v1.2.4-0.20191109021931-daa7c04131f5) need nothing more: they are pre-releases whose
 * fixed-width timestamps order lexically.
 */
import { accept, compareDigits, compareText, digitsEnd, isDigit, isLetter, type Parsed, refuse, refuseBounds } from "./ordering.js";

/** One pre-release identifier: a number (digits, no leading zero) or an alphanumeric text. */
export interface PreId {
  readonly numeric: boolean;
  readonly text: string;
}

/** A parsed semantic version (build metadata kept only as text). */
export interface SemVer {
  readonly major: string;
  readonly minor: string;
  readonly patch: string;
  readonly pre: readonly PreId[];
  readonly build: string;
}

/** How to read a version. */
export interface SemVerOptions {
  /** Accept a leading "v" (Go module versions). */
  v?: boolean;
}

function isIdChar(c: number): boolean {
  return isDigit(c) || isLetter(c) || c === 45; // -
}

export function parse(text: string, options: SemVerOptions = {}): Parsed<SemVer> {
  const bad = refuseBounds("semver", text);
  if (bad) return bad;
  let i = options.v === true && text.charCodeAt(0) === 118 ? 1 : 0; // v
  const numbers: string[] = [];
  for (let n = 0; n < 3; n++) {
    if (n > 0) {
      if (text.charCodeAt(i) !== 46) return refuse("semver", "MALFORMED", i, "expected major.minor.patch");
      i++;
    }
    const end = digitsEnd(text, i);
    if (end === i) return refuse("semver", "MALFORMED", i, "expected a number");
    if (end - i > 1 && text.charCodeAt(i) === 48) return refuse("semver", "MALFORMED", i, "numbers must not have leading zeros");
    numbers.push(text.slice(i, end));
    i = end;
  }
  const pre: PreId[] = [];
  if (text.charCodeAt(i) === 45) {
    const read = readIds(text, i + 1, true, pre);
    if (typeof read !== "number") return read;
    i = read;
  }
  let build = "";
  if (text.charCodeAt(i) === 43) {
    const read = readIds(text, i + 1, false, undefined);
    if (typeof read !== "number") return read;
    build = text.slice(i + 1, read);
    i = read;
  }
  if (i !== text.length) return refuse("semver", "MALFORMED", i, "unexpected character");
  return accept({ major: numbers[0]!, minor: numbers[1]!, patch: numbers[2]!, pre, build });
}

/** Reads dot-separated identifiers from `from`; returns where they end, or the refusal. */
function readIds(text: string, from: number, prerelease: boolean, into: PreId[] | undefined): number | ReturnType<typeof refuse> {
  let i = from;
  for (;;) {
    const start = i;
    let numeric = true;
    while (i < text.length && isIdChar(text.charCodeAt(i))) {
      if (!isDigit(text.charCodeAt(i))) numeric = false;
      i++;
    }
    if (i === start) return refuse("semver", "MALFORMED", i, "identifiers must not be empty");
    if (prerelease && numeric && i - start > 1 && text.charCodeAt(start) === 48) {
      return refuse("semver", "MALFORMED", start, "numeric pre-release identifiers must not have leading zeros");
    }
    into?.push({ numeric, text: text.slice(start, i) });
    if (text.charCodeAt(i) !== 46) return i;
    i++;
  }
}

export function compare(a: SemVer, b: SemVer): number {
  const c = compareDigits(a.major, b.major) || compareDigits(a.minor, b.minor) || compareDigits(a.patch, b.patch);
  if (c !== 0) return c;
  // A version without pre-release identifiers has the higher precedence (section 11.3).
  if (a.pre.length === 0 || b.pre.length === 0) return b.pre.length - a.pre.length;
  const n = Math.min(a.pre.length, b.pre.length);
  for (let k = 0; k < n; k++) {
    const x = a.pre[k]!;
    const y = b.pre[k]!;
    let d: number;
    if (x.numeric && y.numeric) d = compareDigits(x.text, y.text);
    else if (x.numeric !== y.numeric)
      d = x.numeric ? -1 : 1; // numbers below alphanumerics (11.4.3)
    else d = compareText(x.text, y.text);
    if (d !== 0) return d;
  }
  return a.pre.length - b.pre.length;
}
