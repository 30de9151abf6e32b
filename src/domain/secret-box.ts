/**
 * Secrets at rest (identity providers' client secrets): sealed with AES-256-GCM under a key from
 * the configuration before they reach the store, opened when read. Several keys may be given:
 * the first seals, every one opens, so a key is rotated by putting the new one first and
 * re-sealing (the server does it at start) before dropping the old one.
 *
 * Sealed form: `enc:v1:<key id>:<base64url(iv | ciphertext | tag)>`, the key id being the first
 * 16 hex characters of SHA-256 of the key, so a value names the key that opens it.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

const PREFIX = "enc:v1:";
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** The length of a key, in bytes. */
export const SECRET_KEY_BYTES = 32;

/** Seals and opens secrets. */
export interface SecretBox {
  /** The sealed form of plain. */
  seal(plain: string): string;
  /** The plain text of a sealed value; throws when no configured key opens it or it was altered. */
  open(sealed: string): string;
  /** Whether value is sealed under the current (first) key; false for plain text and older keys. */
  isCurrent(value: string): boolean;
}

/** Thrown when a secret cannot be opened: a missing key, or tampering. */
export class SecretBoxError extends Error {
  override name = "SecretBoxError";
}

/** Whether value is a sealed secret (rather than plain text written before secrets were sealed). */
export function isSealed(value: string): boolean {
  return value.startsWith(PREFIX);
}

/** A box over keys (each 32 bytes); the first one seals. */
export function createSecretBox(keys: readonly Buffer[]): SecretBox {
  if (keys.length === 0) throw new SecretBoxError("at least one secrets key is needed");
  for (const key of keys) {
    if (key.length !== SECRET_KEY_BYTES) throw new SecretBoxError(`a secrets key must be ${SECRET_KEY_BYTES} bytes, not ${key.length}`);
  }
  const byId = new Map(keys.map((key) => [keyId(key), key]));
  const current = keys[0] as Buffer;
  const currentId = keyId(current);
  return {
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv("aes-256-gcm", current, iv);
      // The key id is bound in as associated data, so a value cannot be relabelled.
      cipher.setAAD(Buffer.from(currentId, "utf8"));
      const body = Buffer.concat([iv, cipher.update(plain, "utf8"), cipher.final(), cipher.getAuthTag()]);
      return `${PREFIX}${currentId}:${body.toString("base64url")}`;
    },
    open(sealed) {
      if (!isSealed(sealed)) throw new SecretBoxError("the value is not a sealed secret");
      const [id, encoded] = sealed.slice(PREFIX.length).split(":", 2);
      const key = id === undefined ? undefined : byId.get(id);
      if (key === undefined || encoded === undefined) {
        throw new SecretBoxError(`no configured secrets key opens this value (key id ${id ?? "?"}); was ARBOR_SECRETS_KEY changed?`);
      }
      const body = Buffer.from(encoded, "base64url");
      if (body.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError("the sealed value is truncated");
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, body.subarray(0, IV_BYTES));
        decipher.setAAD(Buffer.from(id as string, "utf8"));
        decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
        return Buffer.concat([decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)), decipher.final()]).toString("utf8");
      } catch {
        throw new SecretBoxError("the sealed value was altered or its key is wrong");
      }
    },
    isCurrent(value) {
      return value.startsWith(`${PREFIX}${currentId}:`);
    },
  };
}

/** The keys of a comma-separated list of base64 (or base64url) keys; origin names the list in errors. */
export function parseSecretKeys(text: string, origin: string): Buffer[] {
  const keys = text
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part, i) => {
      const key = /^[A-Za-z0-9+/_-]+={0,2}$/.test(part) ? Buffer.from(part, "base64") : Buffer.alloc(0);
      if (key.length !== SECRET_KEY_BYTES) {
        throw new SecretBoxError(
          `${origin}: key ${i + 1} must be ${SECRET_KEY_BYTES} random bytes in base64 (make one with: openssl rand -base64 32)`,
        );
      }
      return key;
    });
  if (keys.length === 0) throw new SecretBoxError(`${origin}: give at least one key`);
  return keys;
}

/** The id a sealed value names its key by. */
export function keyId(key: Buffer): string {
  return createHash("sha256").update(key).digest("hex").slice(0, 16);
}
