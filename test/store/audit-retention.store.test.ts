/**
 * Audit retention (ARBOR_AUDIT_RETENTION): a sweep at an injected time deletes exactly the events
 * older than the retention, in batches, and leaves the kept counts equal to the events left for
 * every filter; a second sweep, as another replica's, deletes nothing more.
 */
import { expect, it } from "vitest";
import type { AuditEventRecord, AuditFilter } from "../../src/domain/audit.js";
import { sweepAuditLog } from "../../src/services/audit/audit-retention.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, rootUid } from "../support/groups.js";

const DAY = 86_400_000;
const ORG = rootUid(0xb0);
const TEAM = childUid(ORG, 0x1);
const NOW = Date.UTC(2026, 5, 1);

function event(i: number): AuditEventRecord {
  return {
    uid: childUid(i % 2 === 0 ? ORG : TEAM, 0x5000 + i),
    // One event a day, the oldest 49 days ago.
    createTime: NOW - (49 - i) * DAY,
    actor: { uid: childUid(ORG, 0x100 + (i % 3)) },
    method: i % 4 === 0 ? "x.S/DeleteGroup" : "x.S/CreateGroup",
    action: "create",
    resourceType: "x.Group",
    resourceUid: childUid(TEAM, 0x200 + (i % 5)),
  };
}

describeEachEngine("audit retention", (t) => {
  it("deletes exactly the events past retention, in batches, and counts stay exact", async () => {
    const audit = t.store().audit;
    await Promise.all(Array.from({ length: 50 }, (_, i) => audit.insert(event(i))));
    const clock = { now: () => NOW };
    // 30 days kept: the events of days 0 … 29 ago stay (createTime >= NOW - 30 days).
    expect(await sweepAuditLog(audit, clock, 30 * DAY, 7)).toBe(19);
    expect(await sweepAuditLog(audit, clock, 30 * DAY, 7)).toBe(0);
    const everything: AuditFilter = { uidp: {} };
    const left = await audit.list(everything, { order: [{ field: "create_time", desc: false }], offset: 0, limit: 100 });
    expect(left).toHaveLength(31);
    expect(left[0]?.createTime).toBe(NOW - 30 * DAY);
    const filters: AuditFilter[] = [
      everything,
      { uidp: { descendantsOf: ORG } },
      { uidp: { childrenOf: TEAM } },
      { uidp: {}, method: "x.S/DeleteGroup" },
      { uidp: {}, actorUid: childUid(ORG, 0x101) },
      { uidp: {}, resourceUid: childUid(TEAM, 0x203) },
      { uidp: { descendantsOf: ORG }, visibleUnder: [TEAM], method: "x.S/CreateGroup" },
    ];
    for (const filter of filters) {
      const rows = await audit.list(filter, { order: [{ field: "uid", desc: false }], offset: 0, limit: 100 });
      expect(await audit.count(filter), JSON.stringify(filter)).toBe(rows.length);
    }
    expect(await audit.count({ uidp: {}, method: "x.S/DeleteGroup" })).toBe(left.filter((e) => e.method === "x.S/DeleteGroup").length);
  });
});
