/**
 * Group invites: how long one may live, whom it may be restricted to, and what may be sorted and
 * updated.
 */
import { invalidArgument } from "./errors.js";
import type { Updatable } from "./field-mask.js";
import type { Sortable } from "./list.js";
import type { GroupInviteRecord } from "./group-invites.js";

/** The longest an invite may live: 30 days. */
export const MAX_INVITE_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** The longest email address accepted (RFC 5321's path limit). */
export const MAX_EMAIL_LENGTH = 254;

/** A plausible address: something, one @, a domain with a dot; no spaces or control characters. */
const EMAIL = /^[^\s@\x00-\x1f\x7f]+@[^\s@\x00-\x1f\x7f]+\.[^\s@\x00-\x1f\x7f]+$/;

/** A google.protobuf.Duration as the generated code carries it. */
export interface DurationLike {
  seconds: bigint;
  nanos: number;
}

/**
 * The ttl in milliseconds (finer digits are cut). INVALID_ARGUMENT (`ttl`) when absent, not
 * positive, or longer than 30 days.
 */
export function inviteTtlMs(ttl: DurationLike | undefined): number {
  if (ttl === undefined) throw invalidArgument("ttl", "is required");
  if (ttl.seconds < 0n || ttl.nanos < 0) throw invalidArgument("ttl", "must be positive");
  if (ttl.seconds > BigInt(MAX_INVITE_TTL_MS / 1000)) throw tooLong();
  const ms = Number(ttl.seconds) * 1000 + Math.floor(ttl.nanos / 1_000_000);
  if (ms <= 0) throw invalidArgument("ttl", "must be positive (at least 1ms)");
  if (ms > MAX_INVITE_TTL_MS) throw tooLong();
  return ms;
}

function tooLong() {
  return invalidArgument("ttl", `must be at most 30 days (${MAX_INVITE_TTL_MS / 1000}s)`);
}

/** Throws INVALID_ARGUMENT (`email`) unless email is empty (no restriction) or a plausible address. */
export function validateInviteEmail(email: string): void {
  if (email === "") return;
  if (email.length > MAX_EMAIL_LENGTH) throw invalidArgument("email", `must be at most ${MAX_EMAIL_LENGTH} characters`);
  if (!EMAIL.test(email)) throw invalidArgument("email", "must be an email address (name@example.com)");
}

/** A key id as responses show it: 16 lowercase hex characters. */
export function validateKeyIdFilter(keyId: string): void {
  if (!/^[0-9a-f]{16}$/.test(keyId)) throw invalidArgument("key_id", "must be 16 lowercase hex characters, as invites show it");
}

/** Sortable fields of invites; default order create_time descending (newest first). */
export const groupInviteSortable: Sortable = {
  fields: {
    uid: "uid",
    create_time: "create_time",
    created_at: "create_time",
    createTime: "create_time",
    expiration_time: "expiration_time",
    expirationTime: "expiration_time",
  },
  defaultOrder: [{ field: "create_time", desc: true }],
};

/**
 * What an update may change on an invite. role_uid is neither: it is fixed at creation, but may
 * appear in a mask with the invite's own role (a client sending back what it read).
 */
export const groupInviteUpdatable: Updatable = {
  mutable: ["email", "single_use", "ttl"],
  outputOnly: ["uid", "role", "expiration_time", "code", "key_id", "create_time"],
};

/** The value of an invite's sort field. */
export function groupInviteSortValue(i: GroupInviteRecord, field: string): string | number {
  switch (field) {
    case "uid":
      return i.uid;
    case "create_time":
      return i.createTime;
    case "expiration_time":
      return i.expirationTime;
    default:
      throw new RangeError(`group invites are not sortable by ${field}`);
  }
}
