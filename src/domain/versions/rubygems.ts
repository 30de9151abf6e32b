/**
 * RubyGems versions, as Gem::Version (rubygems/lib/rubygems/version.rb) reads and orders them:
 * `digits{.alnum}...{-alnum-or-hyphen{.alnum-or-hyphen}...}`, surrounding whitespace ignored, a
 * hyphen read as ".pre.". Any letter makes a pre-release. Segments are the runs of digits and of
 * letters (1.0.a10 is 1, 0, "a", 10); zeros that only pad (trailing ones, and those between the
 * release numbers and the first letter) are dropped, so 1.0 == 1 and 1.0.a == 1.a. Segments
 * compare pairwise: numbers by value, letters by byte, a letter segment below a number; past the
 * shorter side, a letter segment makes its side older and a non-zero number newer (1.0.a < 1.0 <
 * 1.0.1).
 */
import {
  accept,
  compareDigits,
  compareText,
  digitsEnd,
  isDigit,
  isLetter,
  type Parsed,
  refuse,
  refuseBounds,
  trimZeros,
} from "./ordering.js";

/** One segment: digits (trimmed) or letters. */
export interface GemSegment {
  readonly numeric: boolean;
  readonly text: string;
}

/** A parsed version: its normalised text and its canonical segments. */
export interface GemVersion {
  readonly version: string;
  readonly segments: readonly GemSegment[];
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** Reads `.`-separated parts of `ok` characters from `from`; returns where they end, or -1 on an empty part. */
function parts(s: string, from: number, ok: (c: number) => boolean): number {
  let i = from;
  for (;;) {
    const start = i;
    while (i < s.length && ok(s.charCodeAt(i))) i++;
    if (i === start) return -1;
    if (s.charCodeAt(i) !== 46 || i + 1 >= s.length || !ok(s.charCodeAt(i + 1))) return i;
    i++;
  }
}

const alnum = (c: number): boolean => isDigit(c) || isLetter(c);
const alnumOrHyphen = (c: number): boolean => alnum(c) || c === 45;

export function parse(text: string): Parsed<GemVersion> {
  const bad = refuseBounds("rubygems", text);
  if (bad) return bad;
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (start === end) return refuse("rubygems", "EMPTY", start, "version is empty");
  const s = text.slice(start, end);
  let i = digitsEnd(s, 0);
  if (i === 0) return refuse("rubygems", "MALFORMED", start, "a version starts with a number");
  if (s.charCodeAt(i) === 46) {
    const e = parts(s, i + 1, alnum);
    if (e < 0) return refuse("rubygems", "MALFORMED", start + i + 1, "empty segment");
    i = e;
  }
  if (s.charCodeAt(i) === 45) {
    const e = parts(s, i + 1, alnumOrHyphen);
    if (e < 0) return refuse("rubygems", "MALFORMED", start + i + 1, "empty pre-release segment");
    i = e;
  }
  if (i !== s.length) return refuse("rubygems", "MALFORMED", start + i, "unexpected character");
  const version = s.replaceAll("-", ".pre.");
  return accept({ version, segments: segments(canonical(version)) });
}

/**
 * Drops padding zeros the way Gem::Version#canonical_segments does: a trailing run of dots and
 * zeros after a letter or a dot, then (for a pre-release) the first run of dots and zeros that
 * starts the text or follows a dot and is followed by a letter.
 */
function canonical(v: string): string {
  let s = v;
  let q = s.length;
  while (q > 0 && (s.charCodeAt(q - 1) === 46 || s.charCodeAt(q - 1) === 48)) q--;
  for (let p = q; p < s.length; p++) {
    const before = p > 0 ? s.charCodeAt(p - 1) : -1;
    if (isLetter(before) || before === 46) {
      s = s.slice(0, p);
      break;
    }
  }
  let prerelease = false;
  for (let k = 0; k < v.length && !prerelease; k++) prerelease = isLetter(v.charCodeAt(k));
  if (!prerelease) return s;
  const zeroOrDot = (c: number): boolean => c === 48 || c === 46;
  for (let p = 0; p < s.length;) {
    if ((p === 0 || s.charCodeAt(p - 1) === 46) && zeroOrDot(s.charCodeAt(p))) {
      let k = p;
      while (k < s.length && zeroOrDot(s.charCodeAt(k))) k++;
      if (k < s.length && isLetter(s.charCodeAt(k))) return s.slice(0, p) + s.slice(k);
      p = k;
    } else {
      p++;
    }
  }
  return s;
}

/** The runs of digits and of letters. */
function segments(s: string): GemSegment[] {
  const out: GemSegment[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    let e = i + 1;
    if (isDigit(c)) {
      e = digitsEnd(s, i);
      out.push({ numeric: true, text: trimZeros(s.slice(i, e)) });
    } else if (isLetter(c)) {
      while (e < s.length && isLetter(s.charCodeAt(e))) e++;
      out.push({ numeric: false, text: s.slice(i, e) });
    }
    i = e;
  }
  return out;
}

/** Past the shorter side: a letter segment is older than nothing, a non-zero number newer. */
function tail(rest: readonly GemSegment[], from: number): number {
  for (let k = from; k < rest.length; k++) {
    const x = rest[k]!;
    if (!x.numeric) return -1;
    if (x.text !== "0") return 1;
  }
  return 0;
}

export function compare(a: GemVersion, b: GemVersion): number {
  if (a.version === b.version) return 0;
  const x = a.segments;
  const y = b.segments;
  const n = Math.min(x.length, y.length);
  for (let k = 0; k < n; k++) {
    const l = x[k]!;
    const r = y[k]!;
    if (l.numeric !== r.numeric) return l.numeric ? 1 : -1;
    const d = l.numeric ? compareDigits(l.text, r.text) : compareText(l.text, r.text);
    if (d !== 0) return d;
  }
  return x.length > n ? tail(x, n) : -tail(y, n);
}
