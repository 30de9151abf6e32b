/**
 * What static keys must be (modeled on StaticKeys of the API this one follows): an issuer URL, a
 * subject, and a JWKS of public keys only, trusted for at most 365 days.
 */
import { createPublicKey, type JsonWebKey } from "node:crypto";
import { invalidArgument } from "./errors.js";
import type { Relationship } from "./identities.js";
import { MAX_CLAIM_VALUE_LENGTH } from "./claim-match-rules.js";

/** Static keys as the store keeps them. */
export type StaticKeys = Extract<Relationship, { kind: "staticKeys" }>;
/** Static keys as a request gives them: the expiration may be left to the default. */
export type StaticKeysInput = Omit<StaticKeys, "expirationTime"> & { expirationTime?: number };

/** The most keys a JWKS may hold. */
export const MAX_STATIC_KEYS = 16;
/** The largest JWKS accepted, in bytes of UTF-8. */
export const MAX_ISSUER_KEYS_BYTES = 64 * 1024;
/** How long static keys are trusted by default, and at most: 365 days. */
export const STATIC_KEYS_LIFETIME_MS = 365 * 86_400_000;
/** The key types a token from such an issuer can be verified with. */
export const SUPPORTED_KEY_TYPES: readonly string[] = ["RSA", "EC", "OKP"];
/** JWK members that hold private or symmetric key material. */
const SECRET_MEMBERS = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];

/** The static keys to store: input checked, the expiration defaulted. Throws INVALID_ARGUMENT naming the field. */
export function validateStaticKeys(input: StaticKeysInput, now: number): StaticKeys {
  text("staticKeys.issuer", input.issuer);
  if (!URL.canParse(input.issuer)) throw invalidArgument("staticKeys.issuer", "must be a URL");
  text("staticKeys.subject", input.subject);
  checkJwks(input.issuerKeys);
  const latest = now + STATIC_KEYS_LIFETIME_MS;
  const expirationTime = input.expirationTime ?? latest;
  if (expirationTime <= now) throw invalidArgument("staticKeys.expirationTime", "must be in the future");
  if (expirationTime > latest) throw invalidArgument("staticKeys.expirationTime", "must be at most 365 days from now");
  return { kind: "staticKeys", issuer: input.issuer, subject: input.subject, issuerKeys: input.issuerKeys, expirationTime };
}

function text(field: string, value: string): void {
  if (value === "") throw invalidArgument(field, "is required");
  if ([...value].length > MAX_CLAIM_VALUE_LENGTH) throw invalidArgument(field, `must be at most ${MAX_CLAIM_VALUE_LENGTH} characters`);
}

function checkJwks(json: string): void {
  const refuse = (description: string) => invalidArgument("staticKeys.issuerKeys", description);
  if (json === "") throw refuse("is required");
  if (Buffer.byteLength(json, "utf8") > MAX_ISSUER_KEYS_BYTES) throw refuse(`must be at most ${MAX_ISSUER_KEYS_BYTES} bytes`);
  let jwks: unknown;
  try {
    jwks = JSON.parse(json);
  } catch {
    throw refuse('must be a JWKS: a JSON object {"keys": [...]}');
  }
  const keys = isObject(jwks) ? jwks.keys : undefined;
  if (!Array.isArray(keys)) throw refuse('must be a JWKS: a JSON object {"keys": [...]}');
  if (keys.length === 0) throw refuse("must hold at least one key");
  if (keys.length > MAX_STATIC_KEYS) throw refuse(`must hold at most ${MAX_STATIC_KEYS} keys`);
  keys.forEach((key: unknown, i) => {
    const problem = keyProblem(key);
    if (problem !== undefined) throw refuse(`key ${i}: ${problem}`);
  });
}

function keyProblem(key: unknown): string | undefined {
  if (!isObject(key)) return "must be a JSON object";
  const kty = key.kty;
  if (typeof kty !== "string" || !SUPPORTED_KEY_TYPES.includes(kty)) {
    return `kty must be one of ${SUPPORTED_KEY_TYPES.join(", ")}`;
  }
  const secret = SECRET_MEMBERS.find((m) => m in key);
  if (secret !== undefined) return `must be a public key (it has the private member "${secret}")`;
  try {
    createPublicKey({ key: key as JsonWebKey, format: "jwk" });
  } catch {
    return `is not a valid ${kty} public key`;
  }
  return undefined;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
