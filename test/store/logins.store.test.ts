/**
 * The login store on every engine: attempts and codes round-trip, are taken once, expire, and
 * live attempts are bounded.
 */
import { describe, expect, it } from "vitest";
import type { LoginAttemptRecord, LoginCodeRecord } from "../../src/domain/login.js";
import { describeEachEngine } from "../support/engines.js";

const NOW = 1_800_000_000_000;

function attempt(stateHash: string, more: Partial<LoginAttemptRecord> = {}): LoginAttemptRecord {
  return {
    stateHash,
    providerUid: null,
    issuer: "https://login.example",
    clientId: "arbor",
    codeVerifier: `verifier-${stateHash}`,
    nonce: `nonce-${stateHash}`,
    redirectUri: "http://127.0.0.1:5000/callback",
    codeChallenge: "challenge",
    clientState: "cli-state",
    inviteCodeHash: null,
    createTime: NOW,
    expireTime: NOW + 600_000,
    addressHash: "a".repeat(64),
    organizationUid: "",
    deviceCodeHash: null,
    ...more,
  };
}

/** Limits that never refuse, but for the live bound given. */
const within = (live = 100) => ({ live, perAddress: 1_000_000, perOrganization: 1_000_000 });

function code(codeHash: string, more: Partial<LoginCodeRecord> = {}): LoginCodeRecord {
  return {
    codeHash,
    identityUid: "a".repeat(40),
    actor: { iss: "https://login.example", sub: "alice", aud: ["arbor"] },
    redirectUri: "http://127.0.0.1:5000/callback",
    codeChallenge: "challenge",
    createTime: NOW,
    expireTime: NOW + 60_000,
    ...more,
  };
}

describeEachEngine("login store", (t) => {
  const logins = () => t.store().logins;

  describe("attempts", () => {
    it("stores an attempt with every field and gives it out once", async () => {
      const a = attempt("once", {
        providerUid: `${"b".repeat(40)}/0123456789abcdef`,
        inviteCodeHash: "f".repeat(64),
        organizationUid: "b".repeat(40),
        deviceCodeHash: "d".repeat(64),
      });
      expect(await logins().insertAttempt(a, within())).toBe("stored");
      expect(await logins().takeAttempt("once", NOW + 1)).toEqual(a);
      expect(await logins().takeAttempt("once", NOW + 1)).toBeUndefined();
      expect(await logins().takeAttempt("never", NOW + 1)).toBeUndefined();
    });

    it("gives out no expired attempt, and takes it away all the same", async () => {
      await logins().insertAttempt(attempt("stale", { expireTime: NOW + 10 }), within());
      expect(await logins().takeAttempt("stale", NOW + 10)).toBeUndefined();
      await logins().insertAttempt(attempt("stale", { expireTime: NOW + 10 }), within());
      expect(await logins().takeAttempt("stale", NOW + 9)).toMatchObject({ stateHash: "stale" });
    });

    it("refuses an attempt past the bound of live ones, counting no expired one", async () => {
      const later = NOW + 10_000_000;
      for (const s of ["l1", "l2", "l3"])
        expect(await logins().insertAttempt(attempt(s, { createTime: later, expireTime: later + 5 }), within(3))).toBe("stored");
      expect(await logins().insertAttempt(attempt("l4", { createTime: later, expireTime: later + 5 }), within(3))).toBe("server");
      expect(await logins().takeAttempt("l4", later)).toBeUndefined();
      // Once the three have expired, they are swept and count no more.
      expect(await logins().insertAttempt(attempt("l5", { createTime: later + 5, expireTime: later + 100 }), within(3))).toBe("stored");
      expect(await logins().takeAttempt("l1", later)).toBeUndefined();
      expect(await logins().takeAttempt("l5", later + 6)).toMatchObject({ stateHash: "l5" });
    });

    it("refuses an attempt past the bound of one address's, or one organization's, live ones, and only theirs", async () => {
      const later = NOW + 20_000_000;
      const limits = { live: 100, perAddress: 2, perOrganization: 3 };
      const at = (s: string, address: string, organizationUid: string) =>
        logins().insertAttempt(
          attempt(s, { createTime: later, expireTime: later + 5, addressHash: address.repeat(64), organizationUid }),
          limits,
        );
      const [orgA, orgB] = ["c".repeat(40), "d".repeat(40)];
      expect([await at("p1", "1", orgA), await at("p2", "1", orgB)]).toEqual(["stored", "stored"]);
      // The address has two in progress: a third is refused, for any organization.
      expect([await at("p3", "1", orgA), await at("p4", "1", "")]).toEqual(["address", "address"]);
      expect(await logins().takeAttempt("p3", later)).toBeUndefined();
      // Another address goes on, until the organization has three in progress.
      expect([await at("p5", "2", orgA), await at("p6", "3", orgA)]).toEqual(["stored", "stored"]);
      expect(await at("p7", "4", orgA)).toBe("organization");
      expect(await at("p8", "4", orgB)).toBe("stored");
      // A finished login counts no more.
      expect(await logins().takeAttempt("p1", later)).toMatchObject({ stateHash: "p1" });
      expect(await at("p9", "1", orgB)).toBe("stored");
    });

    it("lets exactly one of many concurrent takes have the attempt", async () => {
      await logins().insertAttempt(attempt("raced"), within());
      const taken = await Promise.all(Array.from({ length: 8 }, () => logins().takeAttempt("raced", NOW + 1)));
      expect(taken.filter((a) => a !== undefined)).toHaveLength(1);
    });
  });

  describe("codes", () => {
    it("stores a code with its actor and gives it out once", async () => {
      const c = code("c1");
      await logins().insertCode(c);
      expect(await logins().takeCode("c1", NOW + 1)).toEqual(c);
      expect(await logins().takeCode("c1", NOW + 1)).toBeUndefined();
    });

    it("gives out no expired code", async () => {
      await logins().insertCode(code("c2", { expireTime: NOW + 5 }));
      expect(await logins().takeCode("c2", NOW + 5)).toBeUndefined();
    });

    it("sweeps expired codes when a new one is stored", async () => {
      await logins().insertCode(code("c3", { expireTime: NOW + 5 }));
      await logins().insertCode(code("c4", { createTime: NOW + 5, expireTime: NOW + 50 }));
      // Even with a clock that says c3 is live, it is gone.
      expect(await logins().takeCode("c3", NOW)).toBeUndefined();
      expect(await logins().takeCode("c4", NOW + 6)).toMatchObject({ codeHash: "c4" });
    });
  });
});
