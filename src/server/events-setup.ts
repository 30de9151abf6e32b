/**
 * The server's side of events (docs/events.md): delivery of the outbox to subscriptions, and
 * its pruning, both on the leading replica only.
 */
import type { Logger } from "pino";
import { createDeliverySigner } from "../auth/delivery-tokens.js";
import { createIssuerFetch, type Resolve } from "../auth/issuer-fetch.js";
import type { KeyRing } from "../auth/key-ring.js";
import type { Config } from "../config.js";
import type { Clock } from "../domain/clock.js";
import { startPeriodic } from "../domain/periodic.js";
import type { Authorizer } from "../auth/authorizer.js";
import { DELIVERY_DEFAULTS, startDelivery, type Delivery } from "../services/events/event-delivery.js";
import { createEventSender } from "../services/events/event-sender.js";
import type { Store } from "../store/store.js";

/** How often the outbox is pruned. */
export const OUTBOX_PRUNE_INTERVAL_MS = 60_000;

/** What events need of the server. */
export interface EventsSetup {
  config: Config;
  store: Store;
  keys: KeyRing;
  clock: Clock;
  authorizer: Authorizer;
  /** {auth_url}: the delivery tokens' issuer. */
  issuer: () => string;
  /** {base_url}: the events' source. */
  baseUrl: () => string;
  resolve?: Resolve;
  logger: Logger;
}

/**
 * Starts delivery and pruning; with events off (ARBOR_EVENTS=off) pruning alone, so what an
 * earlier run with events on left in the outbox still goes at its time.
 */
export function startEvents(s: EventsSetup): Delivery {
  const { config, store, clock } = s;
  const pruning = startPeriodic(
    async () => {
      const now = clock.now();
      await store.outbox.prune(now - config.eventsRetentionMs, now - config.eventsMaxAgeMs);
    },
    OUTBOX_PRUNE_INTERVAL_MS,
    (e) => s.logger.warn({ err: e }, "pruning the event outbox failed; trying again at the next interval"),
    store.leads,
  );
  if (!config.events) return { nudge: () => undefined, stop: () => pruning.stop() };
  const fetch = createIssuerFetch({ allowLoopback: config.allowHttpLoopbackSinks, allowPrivate: config.allowPrivateSinks }, s.resolve);
  const send = createEventSender({
    fetch,
    sign: createDeliverySigner(s.keys, clock, s.issuer),
    source: s.baseUrl,
    timeoutMs: config.eventsTimeoutMs,
  });
  const delivery = startDelivery(
    {
      store,
      clock,
      authorizer: s.authorizer,
      send,
      random: Math.random,
      onError: (e) => s.logger.warn({ err: e }, "delivering events failed; trying again"),
    },
    { ...DELIVERY_DEFAULTS, maxAgeMs: config.eventsMaxAgeMs, concurrency: config.eventsConcurrency },
  );
  return {
    nudge: delivery.nudge,
    async stop() {
      await pruning.stop();
      await delivery.stop();
    },
  };
}
