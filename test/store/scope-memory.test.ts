import { describe, expect, it } from "vitest";
import { ScopeMemory } from "../../src/store/scope-memory.js";

const ORG = "o".repeat(40);
const A = `${ORG}/${"a".repeat(16)}`;
const B = `${ORG}/${"b".repeat(16)}`;
const A1 = `${A}/${"1".repeat(16)}`;

describe("ScopeMemory.reacher", () => {
  const cases: { name: string; scopes: string[] }[] = [
    { name: "scopes of one depth", scopes: [A, B] },
    { name: "scopes of two depths", scopes: [B, A1] },
  ];

  it.each(cases)("answers as a test of each uid against every scope would ($name)", ({ scopes }) => {
    const memory = new ScopeMemory();
    const uids = [ORG, A, B, A1, `${A1}/${"2".repeat(16)}`, `${A}x`, `${A}/`, `${B}/${"c".repeat(16)}`, B.slice(0, -1), "", "/"];
    const expected = (uid: string) => scopes.some((s) => uid === s || uid.startsWith(`${s}/`));
    for (const frozen of [Object.freeze([...scopes]), [...scopes]]) {
      const reaches = memory.reacher(frozen);
      for (const uid of uids) {
        expect(reaches(uid), `${uid} under ${scopes.join(", ")}`).toBe(expected(uid));
        expect(memory.reaches(frozen, uid)).toBe(expected(uid));
      }
    }
  });

  it("reaches nothing with no scopes", () => {
    const reaches = new ScopeMemory().reacher(Object.freeze([]));
    expect([ORG, A, ""].map(reaches)).toEqual([false, false, false]);
  });

  it("hands out one test per frozen array, and derives anew for an array that could change", () => {
    const memory = new ScopeMemory();
    const frozen = Object.freeze([A]);
    expect(memory.reacher(frozen)).toBe(memory.reacher(frozen));
    const open = [A];
    const before = memory.reacher(open);
    open.push(B);
    expect(before(B)).toBe(false);
    expect(memory.reacher(open)(B)).toBe(true);
  });
});
