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

  it("answers as that test for thousands of scopes of one depth, whatever their uids end with", () => {
    const memory = new ScopeMemory();
    const hex = (n: number) => n.toString(16).padStart(16, "0");
    const all = Array.from({ length: 20_000 }, (_, i) => `${ORG}/${hex(i * 7919)}`);
    const scopes = Object.freeze(all.filter((_, i) => i % 10 === 3).sort());
    const set = new Set(scopes);
    const expected = (uid: string) => set.has(uid) || (uid[57] === "/" && set.has(uid.slice(0, 57)));
    // Beside the groups: their children, uids with a scope's ending but another start, and others.
    const uids = [
      ...all,
      ...all.slice(0, 2_000).map((uid) => `${uid}/${"c".repeat(16)}`),
      ...scopes.slice(0, 500).map((uid) => `${"p".repeat(40)}${uid.slice(40)}`),
      ...scopes.slice(0, 500).map((uid) => `${uid.slice(0, -5)}z${uid.slice(-4)}`),
      ...scopes.slice(0, 100).map((uid) => `${uid}x`),
    ];
    const reaches = memory.reacher(scopes);
    const wrong = uids.filter((uid) => reaches(uid) !== expected(uid));
    expect(wrong).toEqual([]);
    expect(uids.filter(reaches).length).toBe(scopes.length + 200);
  });

  it("answers for scopes shorter than the characters it tells them apart by", () => {
    const reaches = new ScopeMemory().reacher(Object.freeze(["ab", "cd"]));
    expect(["ab", "cd", "ab/x", "cd/y", "ac", "a", "abc", "ab0", ""].map(reaches)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
    ]);
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
