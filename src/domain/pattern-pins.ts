/**
 * What a pattern pins: the literal text every value it matches must start with, read from RE2's
 * compiled program rather than the pattern's spelling, so no way of writing "anything"
 * (`.{2,}`, `\S{2,}|0`, `[^x]*`, nested groups, escapes) can slip past. Each way through the
 * program (each branch of an alternation) is followed from the start through single literal
 * characters; where it reaches anything else (a class, `.`, a repetition, an assertion, case
 * folding) its literal prefix ends. A way that reaches the end of the pattern matches exactly its
 * literal. The rules of what an issuer's and a subject's prefix must be are in claim-match-rules.ts.
 */
import { compilePattern } from "./identity-patterns.js";

/** One way through a pattern: the literal it starts with, and whether that literal is all of it. */
export interface LiteralPrefix {
  literal: string;
  /** True when the way ends right after the literal: it matches exactly that text. */
  complete: boolean;
}

/** re2js's instructions (its Inst class; not exported, so read by shape and checked). */
interface Inst {
  op: number;
  out: number;
  arg: number;
  runes: ArrayLike<number>;
}
const ALT = 1;
const ALT_MATCH = 2;
const CAPTURE = 3;
const MATCH = 6;
const NOP = 7;
const RUNE = 8;
const RUNE1 = 9;
/** re2js's FOLD_CASE flag on a rune instruction: `(?i)` letters are no literal. */
const FOLD_CASE = 1;

/**
 * The most instructions followed in all: nested alternations multiply the ways through a
 * program, and an analysis that would take longer fails closed (undefined).
 */
const MAX_STEPS = 20_000;
/** The longest literal followed: a loop (`(?:ab)*`) would otherwise spell one without end. */
const MAX_LITERAL = 1024;

/**
 * Every way's literal prefix, each way followed until its prefix is enough for `enough` (or ends);
 * undefined when the program has a shape this code does not know or is too branched to follow,
 * which callers treat as pinning nothing.
 */
export function literalPrefixes(pattern: string, enough: (literal: string) => boolean): LiteralPrefix[] | undefined {
  const prog = (compilePattern(pattern).re2() as unknown as { prog?: { inst?: unknown; start?: unknown } }).prog;
  if (!Array.isArray(prog?.inst) || typeof prog.start !== "number") return undefined;
  const inst = prog.inst as Inst[];
  const out: LiteralPrefix[] = [];
  const pending: [number, string][] = [[prog.start, ""]];
  let steps = 0;
  while (pending.length > 0) {
    const [start, before] = pending.pop() as [number, string];
    let pc = start;
    let literal = before;
    for (;;) {
      if (++steps > MAX_STEPS) return undefined;
      const i = inst[pc];
      if (i === undefined) return undefined;
      if (i.op === NOP || i.op === CAPTURE) {
        pc = i.out;
      } else if (i.op === ALT || i.op === ALT_MATCH) {
        pending.push([i.arg, literal]);
        pc = i.out;
      } else if (
        (i.op === RUNE || i.op === RUNE1) &&
        i.runes.length === 1 &&
        (i.arg & FOLD_CASE) === 0 &&
        !enough(literal) &&
        literal.length < MAX_LITERAL
      ) {
        literal += String.fromCodePoint(i.runes[0] as number);
        pc = i.out;
      } else {
        out.push({ literal, complete: i.op === MATCH });
        break;
      }
    }
  }
  return out;
}
