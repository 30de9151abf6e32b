/**
 * Tables for people: a header row, then one row per item, columns padded to line up.
 */

/** One column of a table: its header and how an item's JSON becomes the cell. */
export interface Column<T = Record<string, unknown>> {
  header: string;
  value(item: T): string;
}

/** The table's lines; the last column is not padded, so no line ends in spaces. */
export function renderTable<T>(columns: readonly Column<T>[], items: readonly T[], header: (text: string) => string = (t) => t): string {
  const rows = items.map((item) => columns.map((c) => oneLine(c.value(item))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...rows.map((r) => width(r[i] as string))));
  const line = (cells: readonly string[]) =>
    cells.map((cell, i) => (i === cells.length - 1 ? cell : cell + " ".repeat((widths[i] as number) - width(cell)))).join("  ");
  const head = line(columns.map((c) => c.header)).trimEnd();
  return [header(head), ...rows.map((r) => line(r).trimEnd())].join("\n") + "\n";
}

/** Cells hold one line: newlines and tabs would break the columns. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, " ");
}

/** The text's width in columns, counting each code point as one. */
function width(text: string): number {
  return [...text].length;
}
