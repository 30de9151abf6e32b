/**
 * Printing what a command got in the chosen format. JSON and YAML are exactly the API's JSON (a
 * list prints as an array of its items); `id` prints uids, one a line; a table is for people.
 */
import { stringify } from "yaml";
import { isTable, type OutputFormat } from "./format.js";
import { bold, colorAllowed, tableWidth, type CliIo } from "./io.js";
import { readableTime, text, type Item } from "./cells.js";
import { renderTable, type Column } from "./table.js";

/** Prints items: a table with columns (fitted to the terminal unless wide), or every item in full. */
export function printItems(io: CliIo, format: OutputFormat, columns: readonly Column<Item>[], items: readonly Item[]): void {
  if (isTable(format)) {
    io.stdout.write(
      renderTable(columns, items, { width: tableWidth(io), wide: format === "wide", header: (h) => bold(h, colorAllowed(io)) }),
    );
    return;
  }
  printData(io, format, items, items.map(uidOf));
}

/**
 * Prints one item: in a table format, its fields one per line (nested fields with dotted names),
 * as view shows them; whole, whatever the width, since this is where a person reads a full uid.
 */
export function printItem(io: CliIo, format: OutputFormat, view: { tableView?: (item: Item) => Item }, item: Item): void {
  if (isTable(format)) {
    const rows = flatten(view.tableView?.(item) ?? item).map(([field, value]) => ({ field, value }));
    const columns: Column<{ field: string; value: string }>[] = [
      { header: "FIELD", value: (r) => r.field },
      { header: "VALUE", value: (r) => r.value },
    ];
    io.stdout.write(renderTable(columns, rows, { header: (h) => bold(h, colorAllowed(io)) }));
    return;
  }
  printData(io, format, item, [uidOf(item)]);
}

/** Prints any JSON value as JSON or YAML, or the given uids for `id`. */
export function printData(io: CliIo, format: Exclude<OutputFormat, "table" | "wide">, data: unknown, uids: readonly string[]): void {
  if (format === "id") io.stdout.write(uids.map((u) => `${u}\n`).join(""));
  else if (format === "yaml") io.stdout.write(stringify(data, { lineWidth: 0 }));
  else io.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
}

/** The uid of an item (advisories and every other resource have one). */
export function uidOf(item: Item): string {
  return typeof item.uid === "string" ? item.uid : "";
}

/** The leaves of item as [dotted path, readable text]; empty objects and lists are left out. */
function flatten(item: Item, prefix = ""): [string, string][] {
  const out: [string, string][] = [];
  for (const [key, value] of Object.entries(item)) {
    const path = prefix === "" ? key : `${prefix}.${key}`;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) out.push(...flatten(value as Item, path));
    else if (Array.isArray(value) && value.some((v) => v !== null && typeof v === "object")) {
      value.forEach((v, i) => out.push(...flatten({ [i]: v }, path)));
    } else if (!(Array.isArray(value) && value.length === 0)) {
      out.push([path, /Time$/.test(key) ? readableTime(value) : text(value)]);
    }
  }
  return out;
}
