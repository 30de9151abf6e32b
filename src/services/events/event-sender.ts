/**
 * One delivery of one event to one sink: a CloudEvent in HTTP binary content mode (the
 * attributes as `ce-*` headers, the data as the JSON body), with the subscription's bearer token.
 * The fetch connects only to addresses the operator allows sinks on (resolved and pinned, as for
 * issuers: auth/issuer-fetch.ts), follows no redirect, reads none of the answer's body and gives
 * up after the timeout, so a hostile or slow sink costs one connection for a bounded time.
 */
import type { DeliverySigner } from "../../auth/delivery-tokens.js";
import type { StoredEvent } from "../../domain/events.js";

/** What became of a delivery. */
export type SendOutcome = { kind: "delivered" } | { kind: "retry"; error: string } | { kind: "rejected"; error: string };

/** Sends event to a subscription's sink. */
export type EventSender = (subscription: { uid: string; sink: string }, event: StoredEvent) => Promise<SendOutcome>;

/** The sender's dependencies. */
export interface SenderDeps {
  /** A fetch limited to the addresses sinks may have (createIssuerFetch with the sinks' rules). */
  fetch: typeof fetch;
  sign: DeliverySigner;
  /** The events' `source`: the API's base URL. */
  source: () => string;
  timeoutMs: number;
}

/** The sender over deps. */
export function createEventSender(deps: SenderDeps): EventSender {
  return async (subscription, event) => {
    let status: number;
    try {
      const token = await deps.sign(subscription.uid, subscription.sink);
      const res = await deps.fetch(subscription.sink, {
        method: "POST",
        redirect: "manual",
        headers: { ...ceHeaders(event, deps.source()), "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify(event.data),
        signal: AbortSignal.timeout(deps.timeoutMs),
      });
      status = res.status;
      await res.body?.cancel();
    } catch (e) {
      return { kind: "retry", error: `delivering event ${event.id}: ${describe(e)}` };
    }
    if (status >= 200 && status < 300) return { kind: "delivered" };
    const error = `delivering event ${event.id}: the sink answered ${status}`;
    // A sink that says the request itself is wrong will say so again; 408 and 429 are "later".
    if (status >= 400 && status < 500 && status !== 408 && status !== 429)
      return { kind: "rejected", error: `${error}; the event was dropped` };
    return { kind: "retry", error };
  };
}

/** The CloudEvents 1.0 attributes of event as binary-mode headers. */
export function ceHeaders(event: StoredEvent, source: string): Record<string, string> {
  return {
    "ce-specversion": "1.0",
    "ce-id": event.id,
    "ce-source": source,
    "ce-type": event.type,
    "ce-subject": event.subject,
    "ce-time": new Date(event.time).toISOString(),
    "ce-group": event.groupUid,
  };
}

function describe(e: unknown): string {
  if (e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError")) return "the sink did not answer in time";
  const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
  return e instanceof Error ? `${e.message}${cause}`.slice(0, 300) : "the request failed";
}
