/**
 * Alpine package versions (Alpine, Wolfi, Chainguard), as apk-tools' version.c reads and orders
 * them: `digits{.digits}{letter}{_suffix{digits}}...{~hash}{-rN}`. A suffix is one of
 * _alpha < _beta < _pre < _rc (all below the release) or _cvs < _svn < _git < _hg < _p (all
 * above it); `-rN` is the package revision. Versions compare token by token; a number with a
 * leading zero compares as text (so 1.01 < 1.1, Gentoo's rule); when one version runs out, the
 * other is older only if its next token is a pre-release suffix, otherwise the token kinds decide
 * (1.2 < 1.2a < 1.2.1, 1.2-r1 < 1.2_p1). Texts apk itself calls invalid are refused.
 */
import {
  accept,
  compareDigits,
  compareText,
  digitsEnd,
  isDigit,
  isLower,
  type Parsed,
  refuse,
  refuseBounds,
  trimZeros,
} from "./ordering.js";

// Token kinds, in apk's order: a later kind where the other version has an earlier one means older.
const INITIAL_DIGIT = 0;
const DIGIT = 1;
const LETTER = 2;
const SUFFIX = 3;
const SUFFIX_NO = 4;
const COMMIT_HASH = 5;
const REVISION_NO = 6;
const END = 7;

const SUFFIXES = ["alpha", "beta", "pre", "rc", "", "cvs", "svn", "git", "hg", "p"];
const SUFFIX_NONE = SUFFIXES.indexOf("");

interface Token {
  readonly kind: number;
  /** Digits (trimmed unless `text` compares as text), the letter, the hash; unused for suffixes. */
  readonly text: string;
  /** The suffix rank; for DIGIT, 1 when the number compares as text (a leading zero). */
  readonly rank: number;
}

/** A parsed version: its tokens. */
export interface ApkVersion {
  readonly tokens: readonly Token[];
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 97 && c <= 102);
}

export function parse(text: string): Parsed<ApkVersion> {
  const bad = refuseBounds("apk", text);
  if (bad) return bad;
  const tokens: Token[] = [];
  let i = digitsEnd(text, 0);
  if (i === 0) return refuse("apk", "MALFORMED", 0, "a version starts with a number");
  tokens.push({ kind: INITIAL_DIGIT, text: trimZeros(text.slice(0, i)), rank: 0 });
  let kind = INITIAL_DIGIT;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const at = i;
    if (isLower(c) && kind <= DIGIT) {
      kind = LETTER;
      tokens.push({ kind, text: text[i]!, rank: 0 });
      i++;
    } else if (c === 46 && kind <= DIGIT) {
      const end = digitsEnd(text, i + 1);
      if (end === i + 1) return refuse("apk", "MALFORMED", i + 1, "expected a number after the dot");
      const digits = text.slice(i + 1, end);
      kind = DIGIT;
      tokens.push({ kind, text: digits, rank: digits.charCodeAt(0) === 48 ? 1 : 0 });
      i = end;
    } else if (isDigit(c) && kind === SUFFIX) {
      const end = digitsEnd(text, i);
      kind = SUFFIX_NO;
      tokens.push({ kind, text: trimZeros(text.slice(i, end)), rank: 0 });
      i = end;
    } else if (c === 95 && kind <= SUFFIX_NO) {
      let end = i + 1;
      while (end < text.length && isLower(text.charCodeAt(end))) end++;
      const rank = SUFFIXES.indexOf(text.slice(i + 1, end));
      if (rank < 0 || rank === SUFFIX_NONE) return refuse("apk", "MALFORMED", i + 1, "unknown suffix");
      kind = SUFFIX;
      tokens.push({ kind, text: "", rank });
      i = end;
    } else if (c === 126 && kind < COMMIT_HASH) {
      let end = i + 1;
      while (end < text.length && isHex(text.charCodeAt(end))) end++;
      if (end === i + 1) return refuse("apk", "MALFORMED", i + 1, "expected a commit hash after ~");
      kind = COMMIT_HASH;
      tokens.push({ kind, text: text.slice(i + 1, end), rank: 0 });
      i = end;
    } else if (c === 45 && kind < REVISION_NO && text.charCodeAt(i + 1) === 114) {
      const end = digitsEnd(text, i + 2);
      if (end === i + 2) return refuse("apk", "MALFORMED", i + 2, "expected a number after -r");
      kind = REVISION_NO;
      tokens.push({ kind, text: trimZeros(text.slice(i + 2, end)), rank: 0 });
      i = end;
    } else {
      return refuse("apk", "MALFORMED", at, "unexpected character");
    }
  }
  return accept({ tokens });
}

function compareTokens(a: Token, b: Token): number {
  switch (a.kind) {
    case DIGIT:
      return a.rank === 1 || b.rank === 1 ? compareText(a.text, b.text) : compareDigits(a.text, b.text);
    case LETTER:
    case COMMIT_HASH:
      return compareText(a.text, b.text);
    case SUFFIX:
      return a.rank - b.rank;
    default:
      return compareDigits(a.text, b.text);
  }
}

export function compare(a: ApkVersion, b: ApkVersion): number {
  let k = 0;
  for (;;) {
    const x = a.tokens[k];
    const y = b.tokens[k];
    const xk = x?.kind ?? END;
    const yk = y?.kind ?? END;
    if (xk !== yk) {
      // The common tokens are equal: a pre-release suffix makes its side older; otherwise the
      // side whose next token comes later in the grammar (the end being last) is older.
      if (xk === SUFFIX && x!.rank < SUFFIX_NONE) return -1;
      if (yk === SUFFIX && y!.rank < SUFFIX_NONE) return 1;
      return yk - xk;
    }
    if (xk === END) return 0;
    const d = compareTokens(x!, y!);
    if (d !== 0) return d;
    k++;
  }
}
