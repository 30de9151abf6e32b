/**
 * Invite codes: a secret shown once, at creation. Only its SHA-256 is stored (to find the invite
 * on redemption); a short prefix of that digest, the key id, tells invites apart without
 * revealing anything usable.
 */
import { createHash } from "node:crypto";
import type { IdSource } from "./uid.js";

/** Every invite code starts with this, so people and secret scanners recognise one. */
export const INVITE_CODE_PREFIX = "arbinv_";
/** Random bytes in a code. */
export const INVITE_CODE_BYTES = 32;

/** A new code and what is stored of it. */
export interface InviteCode {
  /** The secret: the prefix and 32 random bytes, base64url. */
  code: string;
  /** SHA-256 of the code, hex. */
  codeHash: string;
  /** The first 8 bytes of that digest, hex: non-secret. */
  keyId: string;
}

/** A new invite code from ids. */
export function newInviteCode(ids: IdSource): InviteCode {
  const code = INVITE_CODE_PREFIX + Buffer.from(ids.hex(INVITE_CODE_BYTES), "hex").toString("base64url");
  const codeHash = inviteCodeHash(code);
  return { code, codeHash, keyId: codeHash.slice(0, 16) };
}

/** The SHA-256 (hex) of a code, as the store keeps it: how a redemption finds its invite. */
export function inviteCodeHash(code: string): string {
  return createHash("sha256").update(code, "utf8").digest("hex");
}
