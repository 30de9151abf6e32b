/**
 * Secrets the store keeps (identity providers' client secrets, token signing keys, the settings'
 * keys and secrets) are sealed with the installation's secret box before they are written and
 * opened when read, so a copy of the database alone reveals none of them.
 */
import type { Kysely } from "kysely";
import { isSealed, type SecretBox } from "../domain/secret-box.js";
import type { Database, Executor } from "./tables.js";
import { guard } from "./translate-error.js";

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

/** A column of sealed secrets: its table, the column naming its rows, and the column itself. */
export interface SealedColumn {
  table: keyof Database & string;
  key: string;
  value: string;
}

/**
 * Seals again every value of column not sealed under the current key (plain text, or a key since
 * rotated out of first place); a value is replaced only if it is still what was read (a
 * concurrent writer already wrote a current seal). How many were resealed. Throws SecretBoxError
 * when a value was sealed under a key the box lacks, before writing anything. With checkOnly,
 * opens every value, writes nothing and says how many would be resealed.
 */
export async function resealColumn(db: Executor, sealing: Sealing, column: SealedColumn, checkOnly = false): Promise<number> {
  // The same two statements for every such column, so they name it by strings.
  const loose = db as unknown as Kysely<Record<string, Record<string, string>>>;
  const rows = await guard(() => loose.selectFrom(column.table).select([column.key, column.value]).where(column.value, "!=", "").execute());
  const stale = rows.filter((row) => !sealing.isCurrent(row[column.value] as string));
  // Every value opens before any is written: a wrong key must not seal plain text under itself.
  const opened = stale.map((row) => ({
    key: row[column.key] as string,
    from: row[column.value] as string,
    plain: sealing.open(row[column.value] as string),
  }));
  if (checkOnly) return opened.length;
  let resealed = 0;
  for (const { key, from, plain } of opened) {
    const { numUpdatedRows } = await guard(() =>
      loose
        .updateTable(column.table)
        .set({ [column.value]: sealing.seal(plain) })
        .where(column.key, "=", key)
        .where(column.value, "=", from)
        .executeTakeFirstOrThrow(),
    );
    if (numUpdatedRows > 0n) resealed++;
  }
  return resealed;
}
