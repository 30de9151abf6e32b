/**
 * Delivery of the outbox to subscriptions (docs/events.md): at least once, in outbox order per
 * subscription, one request at a time per subscription and at most `concurrency` over all.
 *
 * Only the replica that leads (Store.leads) delivers, so replicas do not send an event twice in
 * the normal case; each subscription's cursor moves only from where this worker read it (a
 * conditional write), so a replica taking over mid-delivery resends at most the event in flight.
 * Whether an event reaches a subscription is decided at delivery, never at write: the event's
 * group must lie in the subscription's reach (the query), its type match, and the subscription's
 * creator must hold, now, what reading the event's resource takes; otherwise the cursor passes
 * it by. A failed delivery is retried with exponential backoff and jitter until the event is
 * maxAgeMs old; a sink refusing the request (4xx but 408, 429) drops that event.
 */
import { capabilityByName, type Capability } from "../../domain/capabilities.js";
import type { Clock } from "../../domain/clock.js";
import type { DeliveryState, SubscriptionRecord } from "../../domain/event-subscriptions.js";
import { typeMatches } from "../../domain/event-subscription-rules.js";
import type { StoredEvent } from "../../domain/events.js";
import type { Permissions } from "../../domain/permissions.js";
import type { Store } from "../../store/store.js";
import type { Authorizer } from "../../auth/authorizer.js";
import type { EventSender } from "./event-sender.js";

/** How delivery runs. */
export interface DeliveryOptions {
  maxAgeMs: number;
  concurrency: number;
  /** How often idle subscriptions are looked at again (a change in this process wakes them at once). */
  pollMs: number;
  /** Events read per subscription at a time. */
  batch: number;
  /** The first retry's delay; each next one doubles, up to maxBackoffMs. */
  baseBackoffMs: number;
  maxBackoffMs: number;
}

/** The defaults of the options not configured. */
export const DELIVERY_DEFAULTS = { pollMs: 1_000, batch: 100, baseBackoffMs: 1_000, maxBackoffMs: 300_000 } as const;

/** What delivery works with. */
export interface DeliveryDeps {
  store: Store;
  clock: Clock;
  authorizer: Pick<Authorizer, "callerPermissions">;
  send: EventSender;
  /** In [0, 1): the jitter. */
  random: () => number;
  onError: (e: unknown) => void;
}

/** A running delivery. */
export interface Delivery {
  /** Something was just committed: look at every subscription now rather than at the next poll. */
  nudge(): void;
  /** Stops, and waits for deliveries in flight. */
  stop(): Promise<void>;
}

/**
 * The least time from one pass to the next that a commit asks for. A pass reads the store (who
 * leads, which subscriptions are due); at thousands of commits a second, one for each was a
 * stream of reads beside the writes (E1, docs/benchmarks.md). Delivery waits at most this long more.
 */
export const NUDGE_GAP_MS = 25;

/**
 * How often a subscription's cursor is written while it sends a batch (also at the batch's end,
 * and on a failure).
 */
export const RECORD_EVERY_MS = 250;

export function startDelivery(deps: DeliveryDeps, options: DeliveryOptions): Delivery {
  const inFlight = new Map<string, Promise<void>>();
  /** Subscriptions found with nothing to send, and until when they are left alone. */
  const idle = new Map<string, number>();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  /** When the timer fires (performance.now()), Infinity when none is set. */
  let timerAt = Infinity;
  /** When the last pass ended. */
  let lastPass = -Infinity;
  let passing: Promise<void> | undefined;
  /** A pass was asked for during one (a delivery done, a poll): the next runs right after. */
  let again = false;
  /** A commit was made during a pass: the next runs NUDGE_GAP_MS after it. */
  let nudged = false;

  /** A pass in ms at the latest: a timer set for sooner stays. */
  const schedule = (ms: number) => {
    if (stopped) return;
    const at = performance.now() + ms;
    if (at >= timerAt) return;
    clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(() => {
      timerAt = Infinity;
      void pass();
    }, ms).unref();
  };

  async function pass(): Promise<void> {
    if (passing !== undefined) {
      again = true;
      return;
    }
    passing = (async () => {
      try {
        if (!(await deps.store.leads())) return;
        const now = deps.clock.now();
        const free = options.concurrency - inFlight.size;
        if (free <= 0) return;
        const due = await deps.store.subscriptions.due(now, free + idle.size, [...inFlight.keys()]);
        for (const sub of due.filter((s) => (idle.get(s.uid) ?? 0) <= now).slice(0, free)) {
          idle.delete(sub.uid);
          const run = deliver(sub)
            .catch(deps.onError)
            .finally(() => {
              inFlight.delete(sub.uid);
              schedule(0);
            });
          inFlight.set(sub.uid, run);
        }
      } catch (e) {
        deps.onError(e);
      }
    })();
    await passing;
    passing = undefined;
    lastPass = performance.now();
    if (again && !stopped) {
      again = nudged = false;
      return pass();
    }
    schedule(nudged ? NUDGE_GAP_MS : options.pollMs);
    nudged = false;
  }

  /** Sends sub's next events until it has none, one fails, or the batch ends. */
  async function deliver(sub: SubscriptionRecord): Promise<void> {
    const events = await deps.store.outbox.after(
      sub.cursor,
      { groupUid: sub.parentUid, includeDescendants: sub.includeDescendants },
      options.batch,
    );
    if (events.length === 0) {
      idle.set(sub.uid, deps.clock.now() + options.pollMs * 2);
      return;
    }
    let from = sub.cursor;
    let state: DeliveryState = { ...sub };
    let dirty = false;
    let recorded = performance.now();
    // Read once per batch: a creator revoked now stops receiving from the next batch on.
    const permissions = await deps.authorizer.callerPermissions(sub.creatorUid);
    for (const event of events) {
      if (stopped) break;
      if (!wanted(sub, permissions, event)) {
        state = { ...state, cursor: event.at };
        dirty = true;
        continue;
      }
      const outcome = await deps.send(sub, event);
      const now = deps.clock.now();
      if (outcome.kind === "delivered") {
        state = { cursor: event.at, attempts: 0, nextAttemptTime: 0, lastDeliveryTime: now, lastError: "" };
      } else if (outcome.kind === "rejected" || now - event.time >= options.maxAgeMs) {
        const error =
          outcome.kind === "rejected" ? outcome.error : `${outcome.error}; the event was dropped after retrying for its maximum age`;
        state = { ...state, cursor: event.at, attempts: 0, nextAttemptTime: 0, firstFailureTime: undefined, lastError: error };
      } else {
        const attempts = state.attempts + 1;
        state = {
          ...state,
          attempts,
          nextAttemptTime: now + backoff(attempts),
          firstFailureTime: state.firstFailureTime ?? now,
          lastError: outcome.error,
        };
        dirty = true;
        break;
      }
      dirty = true;
      // Recorded every RECORD_EVERY_MS, not after each event: a crash resends what was sent since
      // (receivers deduplicate by id), and delivery does not queue a write per event behind the
      // API's writes (SQLite's one connection sent 4 events/s while creates ran, E1).
      if (performance.now() - recorded < RECORD_EVERY_MS) continue;
      if (!(await deps.store.subscriptions.record(sub.uid, from, state))) return;
      recorded = performance.now();
      from = state.cursor;
      dirty = false;
    }
    if (dirty) await deps.store.subscriptions.record(sub.uid, from, state);
  }

  function backoff(attempts: number): number {
    const ceiling = Math.min(options.maxBackoffMs, options.baseBackoffMs * 2 ** Math.min(attempts - 1, 30));
    return Math.round(ceiling / 2 + (deps.random() * ceiling) / 2);
  }

  /** Whether sub takes event: its type, and its creator's permission to read what it is about. */
  function wanted(sub: SubscriptionRecord, permissions: Permissions | undefined, event: StoredEvent): boolean {
    if (!typeMatches(sub.types, event.type)) return false;
    if (permissions === undefined) return false;
    const caps = event.readCaps.map(capabilityByName);
    // An event that names nothing to hold, or a capability this release does not know, goes to no one.
    if (caps.length === 0 || caps.some((c) => c === undefined)) return false;
    return permissions.allows(caps as Capability[], event.subject);
  }

  schedule(0);
  return {
    nudge() {
      idle.clear();
      if (passing !== undefined) nudged = true;
      else schedule(Math.max(0, lastPass + NUDGE_GAP_MS - performance.now()));
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await passing;
      await Promise.all(inFlight.values());
    },
  };
}
