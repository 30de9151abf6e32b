/** The server's ids: CSPRNG bytes drawn from a pool, each byte given out once. */
import { describe, expect, it } from "vitest";
import { pooledRandomIds } from "../../src/server/server.js";

describe("pooledRandomIds", () => {
  it("gives 2 × bytes lowercase hex characters, across refills of the pool", () => {
    const ids = pooledRandomIds(64);
    for (const bytes of [1, 8, 20, 63, 64, 16, 3]) expect(ids.hex(bytes)).toMatch(new RegExp(`^[0-9a-f]{${bytes * 2}}$`));
  });

  it("never gives the same bytes twice: 20,000 ids of 8 bytes from a pool of 100 are distinct", () => {
    const ids = pooledRandomIds(100);
    const seen = new Set<string>();
    for (let i = 0; i < 20_000; i++) seen.add(ids.hex(8));
    expect(seen.size).toBe(20_000);
  });

  it("draws a request larger than the pool on its own", () => {
    const ids = pooledRandomIds(16);
    const big = ids.hex(40);
    expect(big).toMatch(/^[0-9a-f]{80}$/);
    expect(ids.hex(16)).toMatch(/^[0-9a-f]{32}$/);
  });

  it("is random: the bits of 2,000 ids are near half ones", () => {
    const ids = pooledRandomIds(4_096);
    let ones = 0;
    for (let i = 0; i < 2_000; i++) {
      for (const c of ids.hex(8)) ones += [...Number.parseInt(c, 16).toString(2)].filter((b) => b === "1").length;
    }
    // 128,000 bits: the share of ones is within ±1 % of a half with overwhelming probability.
    expect(ones / 128_000).toBeGreaterThan(0.49);
    expect(ones / 128_000).toBeLessThan(0.51);
  });
});
