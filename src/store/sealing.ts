/**
 * Secrets the store keeps (identity providers' client secrets, token signing keys, the settings'
 * keys and secrets) are sealed with the installation's secret box before they are written and
 * opened when read, so a copy of the database alone reveals none of them.
 */
import { isSealed, type SecretBox } from "../domain/secret-box.js";

/** Seals and opens one kind of stored secret. */
export interface Sealing {
  /** The sealed form of plain; an empty value stays empty (nothing to hide). */
  seal(plain: string): string;
  /** The plain text of a stored value; plain text written before sealing existed is taken as it is. */
  open(stored: string): string;
  /** Whether a stored value needs no resealing: empty, or sealed under the current key. */
  isCurrent(stored: string): boolean;
}

/**
 * The sealing of secrets with box; what names them in the error thrown when the store was opened
 * without a box (never plain text at rest).
 */
export function sealingWith(box: SecretBox | undefined, what: string): Sealing {
  const need = (): SecretBox => {
    if (box === undefined) throw new Error(`the store was opened without a secrets key, and ${what} must be sealed`);
    return box;
  };
  return {
    seal: (plain) => (plain === "" ? "" : need().seal(plain)),
    // Plain text is a value written before sealing existed; resealEach() seals it at start.
    open: (stored) => (stored === "" || !isSealed(stored) ? stored : need().open(stored)),
    isCurrent: (stored) => stored === "" || need().isCurrent(stored),
  };
}

/** A stored secret: the key of its row and its stored value. */
export interface StoredSecret {
  key: string;
  value: string;
}

/**
 * Seals again every value not sealed under the current key (plain text, or a key since rotated out
 * of first place); write replaces a value only if it is still `from` (a concurrent writer already
 * wrote a current seal) and says whether it did. How many were resealed. Throws SecretBoxError
 * when a value was sealed under a key the box lacks, before writing anything. With checkOnly,
 * opens every value, writes nothing and says how many would be resealed.
 */
export async function resealEach(
  rows: readonly StoredSecret[],
  sealing: Sealing,
  write: (key: string, from: string, to: string) => Promise<boolean>,
  checkOnly = false,
): Promise<number> {
  const stale = rows.filter((row) => !sealing.isCurrent(row.value));
  // Every value opens before any is written: a wrong key must not seal plain text under itself.
  const opened = stale.map((row) => ({ ...row, plain: sealing.open(row.value) }));
  if (checkOnly) return opened.length;
  let resealed = 0;
  for (const row of opened) {
    if (await write(row.key, row.value, sealing.seal(row.plain))) resealed++;
  }
  return resealed;
}
