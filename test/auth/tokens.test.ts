/**
 * Arbor's tokens with a frozen clock: exact claims, and the verified-token cache never outliving
 * what a fresh verification would accept.
 */
import { describe, expect, it } from "vitest";
import { KeyRing } from "../../src/auth/key-ring.js";
import { CLOCK_TOLERANCE_S, Tokens } from "../../src/auth/tokens.js";
import { Code, unavailable } from "../../src/domain/errors.js";
import type { KeyStore } from "../../src/store/key-store.js";
import type { SigningKeyRecord } from "../../src/domain/signing-keys.js";

function memoryKeys(): KeyStore {
  const rows: SigningKeyRecord[] = [];
  return {
    insert: async (k) => void rows.push(k),
    live: async (now) => rows.filter((k) => k.retireTime > now).sort((a, b) => b.createTime - a.createTime),
    deleteRetired: async () => {},
    endSigning: async (kept, now, retireBy) => {
      for (const k of rows.filter((r) => r.kid !== kept))
        Object.assign(k, { rotateTime: Math.min(k.rotateTime, now), retireTime: Math.min(k.retireTime, retireBy) });
    },
    resealSecrets: async () => 0,
  };
}

function setup() {
  const clock = { t: Date.UTC(2026, 10, 22, 12), now: () => clock.t };
  const keys = new KeyRing(memoryKeys(), clock, { rotationMs: 30 * 86_400_000 });
  const tokens = new Tokens(keys, clock, () => "https://arbor.example");
  return { clock, tokens };
}

describe("tokens", () => {
  it("carry exactly iss, sub, aud, iat, exp (one hour), jti and act", async () => {
    const { clock, tokens } = setup();
    const { token, expiry } = await tokens.issue("a".repeat(40), "https://api.example", { iss: "https://idp", sub: "x" });
    const claims = await tokens.verify(token, "https://api.example");
    expect(Object.keys(claims).sort()).toEqual(["act", "aud", "exp", "iat", "iss", "jti", "sub"]);
    expect(claims).toMatchObject({
      iss: "https://arbor.example",
      sub: "a".repeat(40),
      aud: "https://api.example",
      iat: clock.t / 1000,
      exp: clock.t / 1000 + 3600,
    });
    expect(expiry).toBe(clock.t + 3_600_000);
  });

  it("a cached token still expires, and still checks its audience", async () => {
    const { clock, tokens } = setup();
    const { token } = await tokens.issue("a".repeat(40), "https://api.example");
    await tokens.verify(token, "https://api.example");
    await expect(tokens.verify(token, "https://registry.example")).rejects.toMatchObject({
      code: Code.UNAUTHENTICATED,
      reason: "TOKEN_AUDIENCE",
    });
    await tokens.verify(token, "https://api.example");
    clock.t += 3_600_000 + CLOCK_TOLERANCE_S * 1000 - 1;
    await expect(tokens.verify(token, "https://api.example")).resolves.toBeDefined();
    clock.t += 2;
    await expect(tokens.verify(token, "https://api.example")).rejects.toMatchObject({
      code: Code.UNAUTHENTICATED,
      reason: "TOKEN_EXPIRED",
    });
  });

  it("a changed token is verified afresh, not served from the cache", async () => {
    const { tokens } = setup();
    const { token } = await tokens.issue("a".repeat(40), "https://api.example");
    await tokens.verify(token, "https://api.example");
    const [h, p, sig] = token.split(".");
    const forged = `${h}.${p}.${sig!.slice(0, -2)}${sig!.endsWith("AA") ? "BB" : "AA"}`;
    await expect(tokens.verify(forged, "https://api.example")).rejects.toMatchObject({
      code: Code.UNAUTHENTICATED,
      reason: "TOKEN_SIGNATURE",
    });
  });

  it("a key store that cannot be read is the store's failure (UNAVAILABLE, to retry), not a refused token", async () => {
    const clock = { t: Date.UTC(2026, 10, 22, 12), now: () => clock.t };
    const store = memoryKeys();
    const issuing = new Tokens(new KeyRing(store, clock, { rotationMs: 30 * 86_400_000 }), clock, () => "https://arbor.example");
    const { token } = await issuing.issue("a".repeat(40), "https://api.example");
    // Another replica, which has not read the key yet, while the store is down.
    const down = { ...store, live: () => Promise.reject(unavailable("the store is unavailable")) };
    const verifying = new Tokens(new KeyRing(down, clock, { rotationMs: 30 * 86_400_000 }), clock, () => "https://arbor.example");
    await expect(verifying.verify(token, "https://api.example")).rejects.toMatchObject({ code: Code.UNAVAILABLE });
  });
});
