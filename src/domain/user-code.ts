/**
 * The user code of a headless login (RFC 8628, 6.1): eight letters from twenty consonants, so it
 * spells no word, has no look-alikes (no vowels, no digits) and is typed on any keyboard; shown
 * as `XXXX-XXXX`. 20^8 (about 2^34.5) codes: guessing is bounded by the throttle on entries and
 * by how few codes are live at once.
 */
import { invalidArgument } from "./errors.js";
import type { IdSource } from "./uid.js";

/** The letters of user codes. */
export const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
/** Letters in a user code. */
export const USER_CODE_LENGTH = 8;

/** A new user code, `XXXX-XXXX`. */
export function newUserCode(ids: IdSource): string {
  let letters = "";
  while (letters.length < USER_CODE_LENGTH) {
    for (const byte of Buffer.from(ids.hex(16), "hex")) {
      // 240 is the largest multiple of 20 below 256: rejecting the rest keeps every letter equally likely.
      if (byte < 240 && letters.length < USER_CODE_LENGTH) letters += USER_CODE_ALPHABET[byte % 20];
    }
  }
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}

/**
 * A user code as typed, made canonical: case, spaces and dashes do not matter. INVALID_ARGUMENT
 * (`user_code`) when what is left is not eight letters of the alphabet.
 */
export function normalizeUserCode(typed: string): string {
  const letters = typed.slice(0, 64).toUpperCase().replace(/[\s-]/g, "");
  if (letters.length !== USER_CODE_LENGTH || [...letters].some((c) => !USER_CODE_ALPHABET.includes(c))) {
    throw invalidArgument("user_code", `must be the ${USER_CODE_LENGTH} letters shown on your device, such as BCDF-GHJK`);
  }
  return `${letters.slice(0, 4)}-${letters.slice(4)}`;
}
