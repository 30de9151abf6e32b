/**
 * A one-line progress bar for long commands, drawn on a terminal only (stderr, so stdout stays
 * the command's result). Elsewhere it draws nothing and lines pass through as they are.
 */

/** Where the bar draws: a stream that may be a terminal. */
export interface BarStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

/** A progress bar over a known total. */
export interface ProgressBar {
  /** `done` of the total are done; redraws at most every few hundred milliseconds. */
  update(done: number): void;
  /** Writes a line (a report) above the bar. */
  log(line: string): void;
  /** Erases the bar. */
  finish(): void;
}

/** When and how often the bar draws. */
export interface BarOptions {
  /** Nothing is drawn before this much time has passed: short runs stay quiet. */
  delayMs: number;
  /** The least time between two draws. */
  intervalMs: number;
  /** Milliseconds since some fixed instant. */
  now: () => number;
}

const DEFAULT_BAR_OPTIONS: BarOptions = { delayMs: 300, intervalMs: 100, now: () => performance.now() };
const CLEAR_LINE = "\r\u001b[2K";

/** A bar labelled `label` over `total` items on stream; a plain pass-through unless it is a terminal. */
export function progressBar(stream: BarStream, label: string, total: number, options: Partial<BarOptions> = {}): ProgressBar {
  const { delayMs, intervalMs, now } = { ...DEFAULT_BAR_OPTIONS, ...options };
  if (stream.isTTY !== true) {
    return { update: () => {}, log: (line) => void stream.write(`${line}\n`), finish: () => {} };
  }
  const start = now();
  let done = 0;
  let drawnAt = -Infinity;
  let shown = false;
  const draw = () => {
    drawnAt = now();
    shown = true;
    stream.write(CLEAR_LINE + renderBar(label, done, total, drawnAt - start, stream.columns ?? 80));
  };
  return {
    update(n) {
      done = n;
      const t = now();
      if (t - start >= delayMs && t - drawnAt >= intervalMs) draw();
    },
    log(line) {
      stream.write(`${shown ? CLEAR_LINE : ""}${line}\n`);
      if (shown) draw();
    },
    finish() {
      if (shown) stream.write(CLEAR_LINE);
      shown = false;
    },
  };
}

/** The bar's text: `label [#####-----] done/total pct rate/s`, fitted to columns. */
export function renderBar(label: string, done: number, total: number, elapsedMs: number, columns: number): string {
  const fraction = total > 0 ? Math.min(1, done / total) : 0;
  const rate = elapsedMs > 0 ? Math.round((done * 1000) / elapsedMs) : 0;
  const tail = ` ${done}/${total} ${Math.floor(fraction * 100)}% ${rate}/s`;
  const width = Math.max(10, Math.min(40, columns - label.length - tail.length - 4));
  const filled = Math.round(fraction * width);
  return `${label} [${"#".repeat(filled)}${"-".repeat(width - filled)}]${tail}`;
}
