/**
 * Token buckets on a frozen clock: bursts, refill, retry delays, independent keys, bounded memory,
 * and the rate syntax.
 */
import { describe, expect, it } from "vitest";
import { createRateLimiter, parseRate, rateText } from "../../src/domain/rate-limit.js";

function clockAt(start: number) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe("rate limiter", () => {
  it("allows a burst of count, then tells how long until the next token", () => {
    const clock = clockAt(1_000_000);
    const limit = createRateLimiter({ count: 3, periodMs: 1_000 }, clock);
    expect([limit.take("a"), limit.take("a"), limit.take("a")]).toEqual([0, 0, 0]);
    expect(limit.take("a")).toBe(334);
    clock.t += 334;
    expect(limit.take("a")).toBe(0);
    expect(limit.take("a")).toBeGreaterThan(0);
  });

  it("refills smoothly up to count, never beyond", () => {
    const clock = clockAt(0);
    const limit = createRateLimiter({ count: 2, periodMs: 60_000 }, clock);
    limit.take("a");
    limit.take("a");
    clock.t += 30_000;
    expect(limit.take("a")).toBe(0);
    expect(limit.take("a")).toBe(30_000);
    clock.t += 10 * 60_000;
    expect([limit.take("a"), limit.take("a"), limit.take("a")]).toEqual([0, 0, 30_000]);
  });

  it("tells how long until a key may spend without spending anything", () => {
    const clock = clockAt(0);
    const limit = createRateLimiter({ count: 2, periodMs: 1_000 }, clock);
    expect(limit.wait("a")).toBe(0);
    limit.take("a");
    expect([limit.wait("a"), limit.wait("a")]).toEqual([0, 0]);
    limit.take("a");
    expect(limit.wait("a")).toBe(500);
    expect(limit.wait("a")).toBe(500);
    clock.t += 500;
    expect(limit.wait("a")).toBe(0);
    expect(limit.wait("b")).toBe(0);
  });

  it("keeps keys apart", () => {
    const limit = createRateLimiter({ count: 1, periodMs: 1_000 }, clockAt(0));
    expect(limit.take("a")).toBe(0);
    expect(limit.take("b")).toBe(0);
    expect(limit.take("a")).toBeGreaterThan(0);
  });

  it("forgets the least recently used keys beyond its cap, so memory stays bounded", () => {
    const clock = clockAt(0);
    const limit = createRateLimiter({ count: 1, periodMs: 3_600_000 }, clock, 100);
    expect(limit.take("first")).toBe(0);
    for (let i = 0; i < 150; i++) limit.take(`k${i}`);
    // Forgotten: a fresh bucket (the cap trades exactness for memory under a flood of keys).
    expect(limit.take("first")).toBe(0);
    expect(limit.take("k149")).toBeGreaterThan(0);
  });

  it.each([
    ["100/s", { count: 100, periodMs: 1_000 }],
    ["600/m", { count: 600, periodMs: 60_000 }],
    [" 5000 / hour ", { count: 5000, periodMs: 3_600_000 }],
    ["off", undefined],
    ["0", undefined],
  ])("parses %s", (text, want) => {
    expect(parseRate(text)).toEqual(want);
  });

  it.each(["", "100", "100/d", "-1/s", "0/s", "1.5/s", "fast"])("refuses %j", (text) => {
    expect(parseRate(text)).toBeInstanceOf(Error);
  });

  it("prints rates back in the syntax it reads", () => {
    expect(rateText({ count: 600, periodMs: 60_000 })).toBe("600/m");
    expect(rateText(undefined)).toBe("off");
  });
});
