/**
 * Table helpers every ordering's tests share: comparisons written as the specifications write
 * them ("1.0a1 < 1.0"), sorted lists that must come out of a sort unchanged, and refusals.
 */
import { expect } from "vitest";
import type { VersionErrorReason, VersionOrdering } from "../../../src/domain/versions/ordering.js";

/** Parses or fails the test with the refusal. */
export function read<V>(o: VersionOrdering<V>, text: string): V {
  const p = o.parse(text);
  if (!p.ok) throw new Error(`${o.name} refused ${JSON.stringify(text)}: ${p.error.message}`);
  return p.version;
}

/** Checks "a < b", "a > b", "a == b" both ways round. */
export function expectComparison(o: VersionOrdering, line: string): void {
  const m = /^(\S+) (<|>|==) (\S+)$/.exec(line);
  if (!m) throw new Error(`bad table line: ${line}`);
  const a = read(o, m[1]!);
  const b = read(o, m[3]!);
  const want = m[2] === "<" ? -1 : m[2] === ">" ? 1 : 0;
  expect(Math.sign(o.compare(a, b)) || 0, line).toBe(want);
  expect(Math.sign(o.compare(b, a)) || 0, `reversed: ${line}`).toBe(-want || 0);
}

/** Checks that each version is below the next (a list as a specification orders it). */
export function expectAscending(o: VersionOrdering, texts: readonly string[]): void {
  for (let k = 0; k + 1 < texts.length; k++) expectComparison(o, `${texts[k]} < ${texts[k + 1]}`);
  // And a sort of the reversed list gives the list back.
  const parsed = texts.map((t) => ({ t, v: read(o, t) }));
  const sorted = [...parsed].reverse().sort((x, y) => o.compare(x.v, y.v));
  expect(sorted.map((x) => x.t)).toEqual(texts);
}

/** Checks the text is refused for the given reason. */
export function expectRefused(o: VersionOrdering, text: string, reason: VersionErrorReason = "MALFORMED"): void {
  const p = o.parse(text);
  expect(p.ok, `${o.name} accepted ${JSON.stringify(text)}`).toBe(false);
  if (!p.ok) {
    expect(p.error.reason).toBe(reason);
    expect(p.error.ordering).toBe(o.name);
  }
}
