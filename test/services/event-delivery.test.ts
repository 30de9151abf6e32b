/**
 * The delivery loop's pace: a commit wakes it, but a stream of commits wakes it at most once
 * every NUDGE_GAP_MS, so a server taking thousands of writes a second does not also read the
 * store for due subscriptions thousands of times a second (E1 measured that cost on creates).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { NUDGE_GAP_MS, RECORD_EVERY_MS, startDelivery } from "../../src/services/events/event-delivery.js";
import type { StoredEvent } from "../../src/domain/events.js";
import type { SubscriptionRecord } from "../../src/domain/event-subscriptions.js";
import type { Store } from "../../src/store/store.js";

describe("event delivery's passes", () => {
  it("a stream of commits wakes it at most once per gap, and a lone commit at once", async () => {
    let passes = 0;
    const store = { leads: () => (passes++, Promise.resolve(false)) } as unknown as Store;
    const delivery = startDelivery(
      {
        store,
        clock: { now: () => Date.now() },
        authorizer: { callerPermissions: () => Promise.resolve(undefined) },
        send: () => Promise.reject(new Error("nothing is sent")),
        random: () => 0,
        onError: (e) => {
          throw e;
        },
      },
      { maxAgeMs: 60_000, concurrency: 4, pollMs: 60_000, batch: 10, baseBackoffMs: 1_000, maxBackoffMs: 10_000 },
    );
    try {
      await sleep(20);
      expect(passes).toBe(1); // the first, at start
      const start = performance.now();
      while (performance.now() - start < 300) {
        delivery.nudge();
        await new Promise((resolve) => setImmediate(resolve));
      }
      const elapsed = performance.now() - start;
      await sleep(NUDGE_GAP_MS * 2);
      expect(passes - 1).toBeGreaterThanOrEqual(2);
      expect(passes - 1).toBeLessThanOrEqual(Math.ceil(elapsed / NUDGE_GAP_MS) + 2);
      // Quiet for longer than the gap: the next commit is looked at without waiting.
      const before = passes;
      delivery.nudge();
      await sleep(5);
      expect(passes).toBe(before + 1);
    } finally {
      await delivery.stop();
    }
  });

  it("writes a sending subscription's cursor every RECORD_EVERY_MS and at the batch's end, not once per event", async () => {
    const sub = {
      uid: "s".repeat(40) + "/0123456789abcdef",
      parentUid: "s".repeat(40),
      sink: "https://sink.example/in",
      types: [],
      includeDescendants: true,
      creatorUid: "c".repeat(40),
      createTime: 0,
      updateTime: 0,
      cursor: { xid: 0, position: 0 },
      attempts: 0,
      nextAttemptTime: 0,
      lastError: "",
    } as SubscriptionRecord;
    const events: StoredEvent[] = Array.from({ length: 60 }, (_, i) => ({
      id: `e${i}`,
      type: "dev.arbor.api.iam.group.created.v1",
      subject: sub.parentUid,
      groupUid: sub.parentUid,
      time: Date.now(),
      readCaps: ["groups.list"],
      data: { actor: { subject: "c".repeat(40) }, body: {} },
      at: { xid: 0, position: i + 1 },
    }));
    const records: number[] = [];
    let cursor = 0;
    let sent = 0;
    const store = {
      leads: () => Promise.resolve(true),
      subscriptions: {
        due: () => Promise.resolve(cursor < events.length ? [{ ...sub, cursor: { xid: 0, position: cursor } }] : []),
        record: (_uid: string, _from: unknown, state: { cursor: { position: number } }) => {
          records.push(state.cursor.position);
          cursor = state.cursor.position;
          return Promise.resolve(true);
        },
      },
      outbox: { after: (c: { position: number }) => Promise.resolve(events.filter((e) => e.at.position > c.position)) },
    } as unknown as Store;
    const delivery = startDelivery(
      {
        store,
        clock: { now: () => Date.now() },
        authorizer: { callerPermissions: () => Promise.resolve({ allows: () => true } as never) },
        // Each send takes a millisecond or more: 60 of them span 60 ms at least, under RECORD_EVERY_MS.
        send: async () => {
          sent++;
          await sleep(1);
          return { kind: "delivered" };
        },
        random: () => 0,
        onError: (e) => {
          throw e;
        },
      },
      { maxAgeMs: 60_000, concurrency: 4, pollMs: 60_000, batch: 100, baseBackoffMs: 1_000, maxBackoffMs: 10_000 },
    );
    try {
      await expect.poll(() => cursor, { timeout: 5_000 }).toBe(60);
      expect(sent).toBe(60);
      // One write at the end, and one for each RECORD_EVERY_MS the batch took.
      expect(records.at(-1)).toBe(60);
      expect(records.length).toBeLessThanOrEqual(1 + Math.ceil((60 * 20) / RECORD_EVERY_MS));
      expect(records.length).toBeLessThan(10);
    } finally {
      await delivery.stop();
    }
  });
});
