/**
 * The signing key store on every engine.
 */
import { expect, it } from "vitest";
import { createSecretBox } from "../../src/domain/secret-box.js";
import { createStore } from "../../src/store/create-store.js";
import type { SigningKeyRecord } from "../../src/domain/signing-keys.js";
import { describeEachEngine, TEST_SECRETS } from "../support/engines.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

const NOW = 1_800_000_000_000;

function key(kid: string, createTime: number, retireTime: number): SigningKeyRecord {
  return { kid, privateJwk: `{"d":"${kid}"}`, publicJwk: `{"x":"${kid}"}`, createTime, rotateTime: createTime + 10, retireTime };
}

describeEachEngine("key store", (t) => {
  const keys = () => t.store().keys;

  it("lists live keys newest first and deletes retired ones", async () => {
    const all = [
      key("retired", NOW - 300, NOW - 1),
      key("retires-now", NOW - 200, NOW),
      key("old-live", NOW - 100, NOW + 1),
      key("new-live", NOW - 50, NOW + 1_000),
      key("newest", NOW, NOW + 2_000),
    ];
    for (const k of all) await keys().insert(k);
    const live = await keys().live(NOW);
    expect(live.map((k) => k.kid)).toEqual(["newest", "new-live", "old-live"]);
    expect(live[0]).toEqual(all[4]);
    expect((await keys().live(NOW - 1)).map((k) => k.kid)).toEqual(["newest", "new-live", "old-live", "retires-now"]);

    await keys().deleteRetired(NOW);
    expect((await keys().live(NOW - 1_000)).map((k) => k.kid)).toEqual(["newest", "new-live", "old-live"]);
  });

  const storedPrivate = async (kid: string) =>
    (await rawRows(t, `select private_jwk from signing_keys where kid = '${kid}'`))[0]?.private_jwk as string;

  it("seals private keys in the table and opens them when read", async () => {
    const k = key("sealed", NOW, NOW + 5_000);
    await keys().insert(k);
    const stored = await storedPrivate("sealed");
    expect(stored).toMatch(/^enc:v1:/);
    expect(stored).not.toContain('"d"');
    expect(TEST_SECRETS.open(stored)).toBe(k.privateJwk);
    expect((await keys().live(NOW)).find((r) => r.kid === "sealed")).toEqual(k);
  });

  it("re-seals plain text and keys of an older secrets key under the current one", async () => {
    const rotated = await createStore({ ...t.options(), secrets: createSecretBox([Buffer.alloc(32, 8), Buffer.alloc(32, 7)]) });
    try {
      await keys().insert(key("legacy", NOW, NOW + 5_000));
      // As an Arbor from before sealing wrote it.
      await execRaw(t, `update signing_keys set private_jwk = '{"d":"plain"}' where kid = 'legacy'`);
      expect(await rotated.keys.resealSecrets()).toBeGreaterThanOrEqual(1);
      expect(await rotated.keys.resealSecrets()).toBe(0);
      const stored = await storedPrivate("legacy");
      expect(stored).toMatch(/^enc:v1:/);
      expect((await rotated.keys.live(NOW)).find((r) => r.kid === "legacy")?.privateJwk).toBe('{"d":"plain"}');
      // Sealed under the new first key: a box without it cannot open it.
      expect(() => TEST_SECRETS.open(stored)).toThrow();
    } finally {
      await rotated.close();
    }
  });

  it("ends the signing of every other key, which then retires at the time given at the latest", async () => {
    const t0 = NOW + 100_000;
    await keys().insert({ ...key("signing", t0, t0 + 9_000_000), rotateTime: t0 + 1_000_000 });
    await keys().insert({ ...key("rotated-before", t0 - 10, t0 + 8_000_000), rotateTime: t0 - 5 });
    await keys().insert({ ...key("fresh", t0 + 1, t0 + 9_000_001), rotateTime: t0 + 1_000_001 });
    await keys().insert({ ...key("retiring-sooner", t0 - 20, t0 + 4_000), rotateTime: t0 - 15 });
    await keys().endSigning("fresh", t0 + 2, t0 + 5_000);
    const live = new Map((await keys().live(t0)).map((r) => [r.kid, r]));
    expect(live.get("signing")).toMatchObject({ rotateTime: t0 + 2, retireTime: t0 + 5_000 });
    expect(live.get("rotated-before")).toMatchObject({ rotateTime: t0 - 5, retireTime: t0 + 5_000 });
    expect(live.get("retiring-sooner")).toMatchObject({ rotateTime: t0 - 15, retireTime: t0 + 4_000 });
    expect(live.get("fresh")).toMatchObject({ rotateTime: t0 + 1_000_001, retireTime: t0 + 9_000_001 });
  });
});
