/**
 * The device authorization store on every engine: records round-trip, settle once, are found by
 * user code only while pending and live, polls that come too soon grow the interval, tokens are
 * taken once, live records are bounded, and expired ones linger for as long again, then go.
 */
import { expect, it } from "vitest";
import type { DeviceAuthorizationRecord } from "../../src/domain/login.js";
import { describeEachEngine } from "../support/engines.js";

const NOW = 1_800_000_000_000;
const TTL = 600_000;

function device(hash: string, more: Partial<DeviceAuthorizationRecord> = {}): DeviceAuthorizationRecord {
  return {
    deviceCodeHash: hash,
    userCodeHash: `user-${hash}`,
    providerUid: null,
    issuer: "https://login.example",
    clientId: "arbor",
    inviteCodeHash: null,
    addressHash: "a".repeat(64),
    organizationUid: "",
    intervalMs: 5_000,
    lastPollTime: null,
    outcome: { state: "pending" },
    createTime: NOW,
    expireTime: NOW + TTL,
    ...more,
  };
}

const within = (live = 100) => ({ live, perAddress: 1_000_000, perOrganization: 1_000_000 });
const ACTOR = { iss: "https://login.example", sub: "alice", aud: "arbor" };

describeEachEngine("device authorization store", (t) => {
  const devices = () => t.store().devices;

  it("stores a record with every field, finds it by user code while pending, and settles it once", async () => {
    const d = device("d1", {
      providerUid: `${"b".repeat(40)}/0123456789abcdef`,
      inviteCodeHash: "f".repeat(64),
      organizationUid: "b".repeat(40),
    });
    expect(await devices().insert(d, within())).toBe("stored");
    expect(await devices().findPending("user-d1", NOW + 1)).toEqual(d);
    expect(await devices().findPending("user-nope", NOW + 1)).toBeUndefined();
    expect(await devices().settle("d1", { state: "approved", identityUid: "c".repeat(40), actor: ACTOR }, NOW + 2)).toBe(true);
    // Settled: no second outcome, and the user code finds it no more.
    expect(await devices().settle("d1", { state: "denied", denial: "no" }, NOW + 3)).toBe(false);
    expect(await devices().findPending("user-d1", NOW + 3)).toBeUndefined();
    expect(await devices().take("d1", "pending")).toBeUndefined();
    expect(await devices().take("d1", "approved")).toEqual({
      ...d,
      outcome: { state: "approved", identityUid: "c".repeat(40), actor: ACTOR },
    });
    expect(await devices().take("d1", "approved")).toBeUndefined();
  });

  it("keeps a denial's reason", async () => {
    await devices().insert(device("d2"), within());
    expect(await devices().settle("d2", { state: "denied", denial: "the invite has already been used" }, NOW + 1)).toBe(true);
    expect((await devices().take("d2", "denied"))?.outcome).toEqual({ state: "denied", denial: "the invite has already been used" });
  });

  it("neither finds nor settles an expired record", async () => {
    await devices().insert(device("d3"), within());
    expect(await devices().findPending("user-d3", NOW + TTL)).toBeUndefined();
    expect(await devices().settle("d3", { state: "approved", identityUid: "c".repeat(40), actor: ACTOR }, NOW + TTL)).toBe(false);
    expect((await devices().poll("d3", NOW + TTL, 0, 5_000))?.record.outcome).toEqual({ state: "pending" });
  });

  it("grows the interval by the slow-down step for a poll sooner than the interval (less the slack), and only then", async () => {
    await devices().insert(device("d4"), within());
    expect(await devices().poll("d4", NOW + 1_000, 1_000, 5_000)).toMatchObject({
      tooSoon: false,
      record: { intervalMs: 5_000, lastPollTime: NOW + 1_000 },
    });
    // 4 s later is within a second of the 5 s interval: in time.
    expect(await devices().poll("d4", NOW + 5_000, 1_000, 5_000)).toMatchObject({ tooSoon: false, record: { intervalMs: 5_000 } });
    expect(await devices().poll("d4", NOW + 8_999, 1_000, 5_000)).toMatchObject({
      tooSoon: true,
      record: { intervalMs: 10_000, lastPollTime: NOW + 8_999 },
    });
    // The new interval counts from the too-soon poll.
    expect(await devices().poll("d4", NOW + 16_999, 1_000, 5_000)).toMatchObject({ tooSoon: true, record: { intervalMs: 15_000 } });
    expect(await devices().poll("d4", NOW + 31_999, 1_000, 5_000)).toMatchObject({ tooSoon: false, record: { intervalMs: 15_000 } });
    expect(await devices().poll("unknown", NOW, 1_000, 5_000)).toBeUndefined();
  });

  it("refuses a record past the bound of live ones, or one address's, or one organization's", async () => {
    const later = NOW + 10_000_000;
    const limits = { live: 5, perAddress: 2, perOrganization: 3 };
    const at = (h: string, address: string, organizationUid: string) =>
      devices().insert(device(h, { createTime: later, expireTime: later + 5, addressHash: address.repeat(64), organizationUid }), limits);
    const [orgA, orgB] = ["c".repeat(40), "d".repeat(40)];
    expect([await at("l1", "1", orgA), await at("l2", "1", orgB), await at("l3", "1", orgA)]).toEqual(["stored", "stored", "address"]);
    expect([await at("l4", "2", orgA), await at("l5", "3", orgA), await at("l6", "4", orgA)]).toEqual(["stored", "stored", "organization"]);
    expect([await at("l7", "4", orgB), await at("l8", "5", orgB)]).toEqual(["stored", "server"]);
    expect(await devices().poll("l3", later, 0, 0)).toBeUndefined();
    // Once expired they count no more, though they linger.
    const after = later + 5;
    expect(
      await devices().insert(
        device("l9", { createTime: after, expireTime: after + 5, addressHash: "1".repeat(64), organizationUid: orgA }),
        limits,
      ),
    ).toBe("stored");
    expect(await devices().poll("l1", after, 0, 0)).toBeDefined();
  });

  it("keeps an expired record for as long again as it lived, then sweeps it", async () => {
    const later = NOW + 20_000_000;
    await devices().insert(device("s1", { createTime: later, expireTime: later + 100 }), within());
    await devices().insert(device("s2", { createTime: later + 199, expireTime: later + 299 }), within());
    expect(await devices().poll("s1", later + 199, 0, 0)).toBeDefined();
    await devices().insert(device("s3", { createTime: later + 200, expireTime: later + 300 }), within());
    expect(await devices().poll("s1", later + 200, 0, 0)).toBeUndefined();
  });

  it("lets exactly one of many concurrent takes have the tokens", async () => {
    await devices().insert(device("raced"), within());
    await devices().settle("raced", { state: "approved", identityUid: "c".repeat(40), actor: ACTOR }, NOW + 1);
    const taken = await Promise.all(Array.from({ length: 8 }, () => devices().take("raced", "approved")));
    expect(taken.filter((a) => a !== undefined)).toHaveLength(1);
  });

  it("refuses a second live record with the same user code", async () => {
    await devices().insert(device("u1", { userCodeHash: "same" }), within());
    await expect(devices().insert(device("u2", { userCodeHash: "same" }), within())).rejects.toMatchObject({ code: 6 });
  });
});
