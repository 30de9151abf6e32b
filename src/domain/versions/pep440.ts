/**
 * Python versions, PEP 440 (packaging.python.org/en/latest/specifications/version-specifiers):
 * the permissive grammar of its appendix (the one pypa/packaging implements), so every spelling
 * PEP 440 normalises is accepted: case-insensitive, a leading "v", surrounding whitespace,
 * `-`/`_`/`.` separators, `alpha`/`beta`/`c`/`pre`/`preview` for a/b/rc, `rev`/`r` and `-N` for
 * post-releases, implicit 0 for a missing number. The order is the specification's: epoch, then
 * release (trailing zeros ignored, so 1.0 == 1.0.0), then dev-only releases before pre-releases
 * before the release before post-releases, then the local label (none sorts first; numeric
 * segments above alphanumeric ones). The hand-written reader takes each optional part greedily,
 * as the appendix's possessive pattern does, and never backtracks.
 */
import {
  accept,
  compareDigits,
  compareText,
  digitsEnd,
  isDigit,
  isLower,
  isUpper,
  type Parsed,
  refuse,
  refuseBounds,
  trimZeros,
} from "./ordering.js";

/** Pre-release ranks; PRE_NONE_DEV sorts a dev-only release (1.0.dev1) before 1.0a1. */
const PRE_NONE_DEV = -1;
const PRE_A = 0;
const PRE_B = 1;
const PRE_RC = 2;
const PRE_NONE = 3;

/** One local-label segment: a number (sorts above any text) or lower-case text. */
export interface LocalSegment {
  readonly numeric: boolean;
  readonly text: string;
}

/** A parsed, normalised version. Numbers are digit runs without leading zeros. */
export interface Pep440 {
  readonly epoch: string;
  /** The release numbers without trailing zeros (1.0.0 is ["1"]). */
  readonly release: readonly string[];
  readonly preRank: number;
  readonly pre: string;
  /** Absent post-release is undefined and sorts first. */
  readonly post: string | undefined;
  /** Absent dev-release is undefined and sorts last. */
  readonly dev: string | undefined;
  readonly local: readonly LocalSegment[] | undefined;
}

const PRE_WORDS: readonly (readonly [string, number])[] = [
  ["alpha", PRE_A],
  ["a", PRE_A],
  ["beta", PRE_B],
  ["b", PRE_B],
  ["preview", PRE_RC],
  ["pre", PRE_RC],
  ["c", PRE_RC],
  ["rc", PRE_RC],
];
const PRE_KEYWORDS = PRE_WORDS.map((w) => w[0]);
const POST_WORDS = ["post", "rev", "r"];

function isSeparator(c: number): boolean {
  return c === 46 || c === 95 || c === 45; // . _ -
}

function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/** The reader's state: the lower-cased text and a cursor. */
class Reader {
  i: number;
  constructor(
    readonly s: string,
    start: number,
    readonly end: number,
  ) {
    this.i = start;
  }
  at(k = 0): number {
    return this.i + k < this.end ? this.s.charCodeAt(this.i + k) : -1;
  }
  word(w: string, from = this.i): boolean {
    return from + w.length <= this.end && this.s.startsWith(w, from);
  }
  /** Digits from the cursor, consumed, or undefined. */
  number(): string | undefined {
    const e = Math.min(digitsEnd(this.s, this.i), this.end);
    if (e === this.i) return undefined;
    const n = trimZeros(this.s.slice(this.i, e));
    this.i = e;
    return n;
  }
  /** An optional separator, then one of words; consumes both and returns the word's index, or -1. */
  keyword(words: readonly string[]): number {
    const skip = isSeparator(this.at()) ? 1 : 0;
    for (let k = 0; k < words.length; k++) {
      if (this.word(words[k]!, this.i + skip)) {
        this.i += skip + words[k]!.length;
        return k;
      }
    }
    return -1;
  }
  /** After a keyword: an optional separator, then an optional number (0 when absent). */
  keywordNumber(): string {
    if (isSeparator(this.at())) this.i++;
    return this.number() ?? "0";
  }
}

export function parse(text: string): Parsed<Pep440> {
  const bad = refuseBounds("pep440", text);
  if (bad) return bad;
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  if (start === end) return refuse("pep440", "EMPTY", start, "version is empty");
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    if (c < 33 || c > 126) return refuse("pep440", "MALFORMED", k, "unexpected character");
  }
  let lower = text;
  for (let k = start; k < end; k++) {
    if (isUpper(text.charCodeAt(k))) {
      lower = text.toLowerCase();
      break;
    }
  }
  const r = new Reader(lower, start, end);
  if (r.at() === 118) r.i++; // v
  let epoch = "0";
  let first = r.number();
  if (first === undefined) return refuse("pep440", "MALFORMED", r.i, "expected a release number");
  if (r.at() === 33) {
    // !
    r.i++;
    epoch = first;
    first = r.number();
    if (first === undefined) return refuse("pep440", "MALFORMED", r.i, "expected a release number after the epoch");
  }
  const release = [first];
  while (r.at() === 46 && isDigit(r.at(1))) {
    r.i++;
    release.push(r.number()!);
  }
  while (release.length > 0 && release[release.length - 1] === "0") release.pop();

  let preRank = PRE_NONE;
  let pre = "";
  const preWord = r.keyword(PRE_KEYWORDS);
  if (preWord >= 0) {
    preRank = PRE_WORDS[preWord]![1];
    pre = r.keywordNumber();
  }
  let post: string | undefined;
  if (r.at() === 45 && isDigit(r.at(1))) {
    r.i++;
    post = r.number();
  } else if (r.keyword(POST_WORDS) >= 0) {
    post = r.keywordNumber();
  }
  let dev: string | undefined;
  if (r.keyword(["dev"]) >= 0) dev = r.keywordNumber();
  if (preRank === PRE_NONE && post === undefined && dev !== undefined) preRank = PRE_NONE_DEV;

  let local: LocalSegment[] | undefined;
  if (r.at() === 43) {
    // +
    r.i++;
    local = [];
    for (;;) {
      const s = r.i;
      let numeric = true;
      while (r.i < end && (isDigit(r.at()) || isLower(r.at()))) {
        if (!isDigit(r.at())) numeric = false;
        r.i++;
      }
      if (r.i === s) return refuse("pep440", "MALFORMED", r.i, "local version segments must not be empty");
      const seg = lower.slice(s, r.i);
      local.push({ numeric, text: numeric ? trimZeros(seg) : seg });
      if (!isSeparator(r.at())) break;
      r.i++;
    }
  }
  if (r.i !== end) return refuse("pep440", "MALFORMED", r.i, "unexpected character");
  return accept({ epoch: trimZeros(epoch), release, preRank, pre, post, dev, local });
}

function compareRelease(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const d = compareDigits(a[k]!, b[k]!);
    if (d !== 0) return d;
  }
  return a.length - b.length; // trailing zeros are gone, so the longer one is higher
}

/** Absent sorts below present for post-releases, above it for dev-releases. */
function compareOptional(a: string | undefined, b: string | undefined, absent: number): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? absent : -absent;
  return compareDigits(a, b);
}

function compareLocal(a: readonly LocalSegment[] | undefined, b: readonly LocalSegment[] | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a[k]!;
    const y = b[k]!;
    let d: number;
    if (x.numeric && y.numeric) d = compareDigits(x.text, y.text);
    else if (x.numeric !== y.numeric) d = x.numeric ? 1 : -1;
    else d = compareText(x.text, y.text);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

export function compare(a: Pep440, b: Pep440): number {
  return (
    compareDigits(a.epoch, b.epoch) ||
    compareRelease(a.release, b.release) ||
    a.preRank - b.preRank ||
    compareDigits(a.pre, b.pre) ||
    compareOptional(a.post, b.post, -1) ||
    compareOptional(a.dev, b.dev, 1) ||
    compareLocal(a.local, b.local)
  );
}
