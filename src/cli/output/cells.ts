/**
 * Cell values for tables: fields read from an item's API JSON, timestamps made readable.
 */
import type { Column } from "./table.js";

/** An item as the API's JSON shows it. */
export type Item = Record<string, unknown>;

/**
 * `2026-03-27T13:55:00.423Z` as `2026-03-27 13:55:00 UTC`, the one way every table (list, get,
 * admin audit) shows a time, so a cell copied out still says its zone; other text unchanged.
 */
export function readableTime(value: unknown): string {
  if (typeof value !== "string") return "";
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/.exec(value);
  return m === null ? value : `${m[1]} ${m[2]} UTC`;
}

/** The value at a dotted path of item (`role.name`), as text; lists are joined with commas. */
export function textAt(item: Item, path: string): string {
  let value: unknown = item;
  for (const key of path.split(".")) value = value !== null && typeof value === "object" ? (value as Item)[key] : undefined;
  return text(value);
}

/** A column showing the field at path; priority says how soon it goes when the table does not fit (0: never). */
export function fieldColumn(header: string, path: string, priority = 0): Column<Item> {
  return { header, value: (item) => textAt(item, path), priority };
}

/** A column showing the timestamp at path, readable, in UTC; never cut, and among the first to go when the table does not fit. */
export function timeColumn(header: string, path: string, priority = 2): Column<Item> {
  return { header, value: (item) => readableTime(textAt(item, path)), kind: "fixed", priority };
}

/** A column of uids: shortened in a table (output/uids.ts), in full with `-o wide`. */
export function uidColumn(header = "UID", path = "uid"): Column<Item> {
  return { header, value: (item) => textAt(item, path), kind: "uid" };
}

/** Any JSON value as one line of text. */
export function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.map(text).join(",");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
