/**
 * The CloudEvents Arbor emits (docs/events.md): one per change made through the API and per
 * registry push or delete, written to the outbox in the change's own transaction.
 */
import type { OutboxPosition } from "./event-subscriptions.js";

/** The prefix of every type Arbor emits. */
export const EVENT_TYPE_PREFIX = "dev.arbor.api.";

/** An event as the outbox keeps it (the source, the server's URL, is added when it is sent). */
export interface OutboxEvent {
  /** Unique: the change's audit event uid, or a registry event's own. */
  id: string;
  /** `dev.arbor.api.<service>.<resource>.<verb>.v1`. */
  type: string;
  /** The uid of the resource changed. */
  subject: string;
  /** The `group` extension: the group the change lies in (the resource itself, for a group). */
  groupUid: string;
  /** Milliseconds since the epoch. */
  time: number;
  /** The dotted capabilities a subscription's creator must hold at subject to receive it. */
  readCaps: string[];
  /** `{actor, body}`: who made the change and what the API answered, secrets redacted. */
  data: { actor: Record<string, unknown>; body: unknown };
}

/** An event read back, with its place in delivery order. */
export interface StoredEvent extends OutboxEvent {
  at: OutboxPosition;
}

/** Where a subscription's events come from: its group, and whether below it too. */
export interface Reach {
  groupUid: string;
  includeDescendants: boolean;
}

/** The past tense of a method's verb, as the event types spell it (`Create` is `created`). */
export function pastTense(verb: string): string {
  const v = verb.toLowerCase();
  if (v.endsWith("e")) return `${v}d`;
  if (/[^aeiou]y$/.test(v)) return `${v.slice(0, -1)}ied`;
  return `${v}ed`;
}

/** snake_case of a PascalCase resource name (`IdentityProvider` is `identity_provider`). */
export function snakeResource(name: string): string {
  return name.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase();
}
