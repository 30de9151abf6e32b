/**
 * The secrets of a login (state, nonce, PKCE verifiers, Arbor's codes, refresh tokens): 32
 * random bytes in base64url, kept in the store as their SHA-256 only where the store need not
 * send them anywhere.
 */
import { createHash } from "node:crypto";
import type { IdSource } from "../domain/uid.js";

/** A new secret: prefix, then 32 random bytes in base64url (43 characters). */
export function newSecret(ids: IdSource, prefix = ""): string {
  return prefix + Buffer.from(ids.hex(32), "hex").toString("base64url");
}

/** The SHA-256 (hex) of a secret, as the store keeps it. */
export function secretHash(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}
