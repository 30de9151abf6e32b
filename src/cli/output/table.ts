/**
 * Tables for people: a header row, then one row per item, columns padded to line up, fitted to
 * the terminal's width. A table wider than the width first has its long cells cut (with `…`,
 * down to each column's smallest useful width), then loses its least important columns, so a
 * row stays on one line; what remains too wide is printed anyway rather than lose a key column.
 */
import { shortenUids } from "./uids.js";

/** One column of a table: its header and how an item's JSON becomes the cell. */
export interface Column<T = Record<string, unknown>> {
  header: string;
  value(item: T): string;
  /**
   * Which columns go first when the table does not fit: the highest number first; 0 (the
   * default) never goes. The name and the uid columns keep 0.
   */
  priority?: number;
  /** `uid`: the cells are uids, shortened unless the table is wide; `fixed`: never cut (times). */
  kind?: "uid" | "fixed";
}

/** How a table is laid out. */
export interface TableOptions {
  /** The columns the table may take; undefined for no limit (a pipe). */
  width?: number;
  /** Full uids and every column, whatever the width (`-o wide`). */
  wide?: boolean;
  /** How the header line is styled (bold on a terminal). */
  header?: (text: string) => string;
}

/** Cells never cut below this many columns (or their header's width). */
const MIN_CUT_WIDTH = 10;
const GAP = 2;

/** The table's lines; the last column is not padded, so no line ends in spaces. */
export function renderTable<T>(columns: readonly Column<T>[], items: readonly T[], options: TableOptions = {}): string {
  const wide = options.wide === true;
  let cols = columns.map((c) => ({ column: c, cells: items.map((item) => oneLine(c.value(item))) }));
  if (!wide) cols = cols.map((c) => (c.column.kind === "uid" ? { ...c, cells: shortenUids(c.cells) } : c));
  let layout = fit(cols, wide ? undefined : options.width);
  while (!layout.fits && cols.some((c) => (c.column.priority ?? 0) > 0)) {
    // Too wide even with every cell cut: drop the least important column (the rightmost of equals).
    const drop = lastMax(cols.map((c) => c.column.priority ?? 0));
    cols = cols.filter((_, i) => i !== drop);
    layout = fit(cols, options.width);
  }
  const w = layout.widths;
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cut(cell, w[i] as number) : pad(cut(cell, w[i] as number), w[i] as number)))
      .join(" ".repeat(GAP));
  const head = line(cols.map((c) => c.column.header)).trimEnd();
  const rows = items.map((_, r) => line(cols.map((c) => c.cells[r] as string)).trimEnd());
  return [(options.header ?? ((t: string) => t))(head), ...rows].join("\n") + "\n";
}

/**
 * Each column's width so the table fits width: the widest columns are cut first, to one common
 * cap, none below its floor. When even the floors do not fit, the floors, and fits is false.
 */
function fit<T>(
  cols: readonly { column: Column<T>; cells: readonly string[] }[],
  width: number | undefined,
): { widths: number[]; fits: boolean } {
  const natural = cols.map((c) => Math.max(widthOf(c.column.header), ...c.cells.map(widthOf)));
  if (width === undefined) return { widths: natural, fits: true };
  const room = width - GAP * (cols.length - 1);
  const floor = cols.map((c, i) =>
    c.column.kind === undefined
      ? Math.min(natural[i] as number, Math.max(MIN_CUT_WIDTH, widthOf(c.column.header)))
      : (natural[i] as number),
  );
  const total = (cap: number) => natural.reduce((sum, n, i) => sum + Math.max(floor[i] as number, Math.min(n, cap)), 0);
  if (total(Number.MAX_SAFE_INTEGER) <= room) return { widths: natural, fits: true };
  if (total(0) > room) return { widths: floor, fits: false };
  let low = 0;
  let high = Math.max(...natural);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (total(mid) <= room) low = mid;
    else high = mid - 1;
  }
  return { widths: natural.map((n, i) => Math.max(floor[i] as number, Math.min(n, low))), fits: true };
}

function lastMax(values: readonly number[]): number {
  let at = values.length - 1;
  for (let i = values.length - 1; i >= 0; i--) if ((values[i] as number) > (values[at] as number)) at = i;
  return at;
}

/** text in at most width columns: cut with `…` when longer (after a word, without the space). */
function cut(text: string, width: number): string {
  const chars = [...text];
  return chars.length <= width
    ? text
    : `${chars
        .slice(0, Math.max(0, width - 1))
        .join("")
        .trimEnd()}…`;
}

function pad(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - widthOf(text)));
}

/** Cells hold one line: newlines and tabs would break the columns. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\t]+/g, " ");
}

/** The text's width in columns, counting each code point as one. */
function widthOf(text: string): number {
  return [...text].length;
}
