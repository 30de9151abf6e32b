/**
 * Cell values for tables: fields read from an item's API JSON, timestamps made readable.
 */
import type { Column } from "./table.js";

/** An item as the API's JSON shows it. */
export type Item = Record<string, unknown>;

/** `2026-03-27T13:55:00.423Z` as `2026-03-27 13:55:00` (UTC, as the column headers say); other text unchanged. */
export function readableTime(value: unknown): string {
  if (typeof value !== "string") return "";
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d+)?Z$/.exec(value);
  return m === null ? value : `${m[1]} ${m[2]}`;
}

/** The value at a dotted path of item (`role.name`), as text; lists are joined with commas. */
export function textAt(item: Item, path: string): string {
  let value: unknown = item;
  for (const key of path.split(".")) value = value !== null && typeof value === "object" ? (value as Item)[key] : undefined;
  return text(value);
}

/** A column showing the field at path. */
export function fieldColumn(header: string, path: string): Column<Item> {
  return { header, value: (item) => textAt(item, path) };
}

/** A column showing the timestamp at path, readable, in UTC. */
export function timeColumn(header: string, path: string): Column<Item> {
  return { header: `${header} (UTC)`, value: (item) => readableTime(textAt(item, path)) };
}

/** Any JSON value as one line of text. */
export function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.map(text).join(",");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
