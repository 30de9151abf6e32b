/**
 * The throttle of refused credentials on a frozen clock: what spends (refusals only), whose
 * budgets they are (an address, an IPv6 /64, an attempted identity), what a refusal says, and
 * that turning a budget off turns it off.
 */
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../../src/config.js";
import { Code, isApiError } from "../../src/domain/errors.js";
import { createRequestLimits } from "../../src/server/http/request-limits.js";

function clockAt(start: number) {
  const c = { t: start, now: () => c.t };
  return c;
}

/** The refusal authAllowed throws, or undefined when it allows. */
function refusal(f: () => void): { code: Code; message: string; retryDelayMs: number | undefined } | undefined {
  try {
    f();
    return undefined;
  } catch (e) {
    if (!isApiError(e)) throw e;
    return { code: e.code, message: e.message, retryDelayMs: e.details.retryDelayMs };
  }
}

describe("the throttle of refused credentials", () => {
  const defaults = resolveConfig({ env: {} });

  it("is spent only by refusals: checking spends nothing, however often", () => {
    const limits = createRequestLimits(defaults, clockAt(0));
    for (let i = 0; i < 10_000; i++) limits.authAllowed("192.0.2.1", "ci");
    expect(refusal(() => limits.authAllowed("192.0.2.1", "ci"))).toBeUndefined();
  });

  it("refuses an address past 100 refusals until one unit refills, and no other address", () => {
    const clock = clockAt(0);
    const limits = createRequestLimits(defaults, clock);
    for (let i = 0; i < 100; i++) {
      expect(refusal(() => limits.authAllowed("192.0.2.1", undefined))).toBeUndefined();
      limits.authFailed("192.0.2.1", undefined);
    }
    expect(refusal(() => limits.authAllowed("192.0.2.1", undefined))).toEqual({
      code: Code.RESOURCE_EXHAUSTED,
      message: "Resource exhausted: too many failed authentication attempts from this address; retry in 1s",
      retryDelayMs: 1_000,
    });
    expect(refusal(() => limits.authAllowed("192.0.2.2", undefined))).toBeUndefined();
    clock.t += 600;
    expect(refusal(() => limits.authAllowed("192.0.2.1", undefined))).toBeUndefined();
  });

  it("counts an IPv6 client's whole /64 as one address, and an IPv4-mapped address as its IPv4 one", () => {
    const limits = createRequestLimits(defaults, clockAt(0));
    for (let i = 0; i < 100; i++) limits.authFailed(`2001:db8:0:7::${(i + 1).toString(16)}`, undefined);
    expect(refusal(() => limits.authAllowed("2001:db8:0:7:ffff::1", undefined))?.code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(refusal(() => limits.authAllowed("2001:db8:0:8::1", undefined))).toBeUndefined();
    for (let i = 0; i < 100; i++) limits.authFailed("::ffff:198.51.100.7", undefined);
    expect(refusal(() => limits.authAllowed("198.51.100.7", undefined))?.code).toBe(Code.RESOURCE_EXHAUSTED);
  });

  it("refuses an identity past 30 refusals from any addresses, and no other identity", () => {
    const limits = createRequestLimits(defaults, clockAt(0));
    for (let i = 0; i < 30; i++) limits.authFailed(`192.0.2.${i}`, "ci");
    expect(refusal(() => limits.authAllowed("203.0.113.1", "ci"))).toEqual({
      code: Code.RESOURCE_EXHAUSTED,
      message: "Resource exhausted: too many failed authentication attempts for this identity; retry in 2s",
      retryDelayMs: 2_000,
    });
    expect(refusal(() => limits.authAllowed("203.0.113.1", "other"))).toBeUndefined();
    expect(refusal(() => limits.authAllowed("203.0.113.1", undefined))).toBeUndefined();
  });

  it("keeps an identity's budget under the digest of its name: a long name counts, one character more is another identity", () => {
    const limits = createRequestLimits(defaults, clockAt(0));
    const long = "x".repeat(100_000);
    for (let i = 0; i < 30; i++) limits.authFailed(`192.0.2.${i}`, long);
    expect(refusal(() => limits.authAllowed("203.0.113.1", long))?.code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(refusal(() => limits.authAllowed("203.0.113.1", `${long}y`))).toBeUndefined();
  });

  it("throttles nothing when both budgets are off", () => {
    const limits = createRequestLimits({ ...defaults, authFailuresPerAddress: undefined, authFailuresPerIdentity: undefined }, clockAt(0));
    for (let i = 0; i < 1_000; i++) limits.authFailed("192.0.2.1", "ci");
    expect(refusal(() => limits.authAllowed("192.0.2.1", "ci"))).toBeUndefined();
  });
});
