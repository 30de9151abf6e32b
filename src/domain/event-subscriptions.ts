/**
 * Event subscriptions as the store keeps them: an HTTP sink a group's changes are delivered to
 * (docs/events.md), with where its delivery stands.
 */
import type { Sortable } from "./list.js";
import { UID_AND_TIMES } from "./named-sort-value.js";

/** What a subscription says: where to, which types, how far down. */
export interface SubscriptionSettings {
  sink: string;
  /** Exact types, or prefixes ending in `.`; empty: every type. */
  types: string[];
  includeDescendants: boolean;
}

/** Where a subscription's delivery stands: the last event it is done with, and its failures. */
export interface DeliveryState {
  /** The outbox position (transaction, then row) of the last event delivered, dropped or skipped. */
  cursor: OutboxPosition;
  /** Failed attempts at the event after the cursor. */
  attempts: number;
  /** When the event after the cursor may be tried again (ms). */
  nextAttemptTime: number;
  /** When the first failed attempt at the event after the cursor was made, if one failed. */
  firstFailureTime?: number;
  lastDeliveryTime?: number;
  lastError: string;
}

/** An outbox row's place in delivery order: its writing transaction, then its row number. */
export interface OutboxPosition {
  xid: number;
  position: number;
}

export interface SubscriptionRecord extends SubscriptionSettings, DeliveryState {
  uid: string;
  parentUid: string;
  /** The identity that created it, whose permissions decide what it receives. */
  creatorUid: string;
  createTime: number;
  updateTime: number;
}

/** Sortable fields of subscriptions; the model orders them by uid (primary key) by default. */
export const subscriptionSortable: Sortable = {
  fields: UID_AND_TIMES,
  defaultOrder: [{ field: "uid", desc: false }],
};

/** The value of a subscription's sort field. */
export function subscriptionSortValue(record: SubscriptionRecord, field: string): string | number {
  if (field === "uid") return record.uid;
  if (field === "create_time") return record.createTime;
  if (field === "update_time") return record.updateTime;
  throw new RangeError(`subscriptions are not sortable by ${field}`);
}
