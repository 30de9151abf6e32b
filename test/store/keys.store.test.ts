/**
 * The signing key store on every engine.
 */
import { expect, it } from "vitest";
import type { SigningKeyRecord } from "../../src/store/types.js";
import { describeEachEngine } from "../support/engines.js";

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
});
