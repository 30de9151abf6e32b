/**
 * The delivery loop's pace: a commit wakes it, but a stream of commits wakes it at most once
 * every NUDGE_GAP_MS, so a server taking thousands of writes a second does not also read the
 * store for due subscriptions thousands of times a second (E1 measured that cost on creates).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { NUDGE_GAP_MS, startDelivery } from "../../src/services/events/event-delivery.js";
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
});
