/**
 * The refresh token store on every engine: families, rotation with exactly one winner, replays
 * seen as such, expiry, and revocation of a whole family.
 */
import { expect, it } from "vitest";
import type { RefreshFamilyRecord } from "../../src/domain/refresh-tokens.js";
import { describeEachEngine } from "../support/engines.js";

const NOW = 1_800_000_000_000;

function family(uid: string, more: Partial<RefreshFamilyRecord> = {}): RefreshFamilyRecord {
  return {
    uid,
    identityUid: "a".repeat(40),
    actor: { iss: "https://login.example", sub: "alice" },
    createTime: NOW,
    expireTime: NOW + 1_000_000,
    ...more,
  };
}

describeEachEngine("refresh token store", (t) => {
  const tokens = () => t.store().refreshTokens;

  it("rotates a token once; its successor rotates in turn", async () => {
    const f = family("f1");
    await tokens().insertFamily(f, "t1");
    expect(await tokens().familyOf("t1")).toEqual(f);
    expect(await tokens().rotate("t1", "t2", NOW + 1)).toEqual({ outcome: "rotated", family: f });
    expect(await tokens().rotate("t2", "t3", NOW + 2)).toEqual({ outcome: "rotated", family: f });
    expect(await tokens().familyOf("t3")).toEqual(f);
  });

  it("sees a second use of a token as a replay, naming its family", async () => {
    await tokens().insertFamily(family("f2"), "r1");
    await tokens().rotate("r1", "r2", NOW + 1);
    expect(await tokens().rotate("r1", "r3", NOW + 2)).toEqual({ outcome: "reused", familyUid: "f2" });
    // The replay added nothing.
    expect(await tokens().familyOf("r3")).toBeUndefined();
  });

  it("lets exactly one of concurrent rotations of one token win", async () => {
    await tokens().insertFamily(family("f3"), "c1");
    const outcomes = await Promise.all(Array.from({ length: 6 }, (_, i) => tokens().rotate("c1", `c1-next-${i}`, NOW + 1)));
    expect(outcomes.filter((o) => o.outcome === "rotated")).toHaveLength(1);
    expect(outcomes.filter((o) => o.outcome === "reused")).toHaveLength(5);
  });

  it("answers unknown for a token it never saw", async () => {
    expect(await tokens().rotate("nope", "nope2", NOW)).toEqual({ outcome: "unknown" });
    expect(await tokens().familyOf("nope")).toBeUndefined();
  });

  it("refuses to rotate a token of an expired family and forgets the family", async () => {
    await tokens().insertFamily(family("f4", { expireTime: NOW + 10 }), "e1");
    expect(await tokens().rotate("e1", "e2", NOW + 10)).toEqual({ outcome: "expired" });
    expect(await tokens().familyOf("e1")).toBeUndefined();
    expect(await tokens().familyOf("e2")).toBeUndefined();
  });

  it("sweeps expired families when a new one is stored", async () => {
    await tokens().insertFamily(family("f5", { createTime: NOW, expireTime: NOW + 20 }), "s1");
    await tokens().insertFamily(family("f6", { createTime: NOW + 20, expireTime: NOW + 2_000 }), "s2");
    expect(await tokens().familyOf("s1")).toBeUndefined();
    expect(await tokens().familyOf("s2")).toMatchObject({ uid: "f6" });
  });

  it("deletes a family with every token of it, used or not", async () => {
    await tokens().insertFamily(family("f7"), "d1");
    await tokens().rotate("d1", "d2", NOW + 1);
    expect(await tokens().deleteFamily("f7")).toBe(true);
    expect(await tokens().deleteFamily("f7")).toBe(false);
    expect(await tokens().familyOf("d1")).toBeUndefined();
    expect(await tokens().rotate("d2", "d3", NOW + 2)).toEqual({ outcome: "unknown" });
  });
});
