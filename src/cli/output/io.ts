/**
 * The terminal a command talks to: its streams, whether they are terminals, and the environment
 * (for NO_COLOR). main.ts gives the process's; tests may give their own.
 */

/** A stream a command writes to. */
export interface OutStream {
  write(text: string): unknown;
  /** True when the stream is a terminal. */
  isTTY?: boolean;
  /** The terminal's width in columns, when it is one. */
  columns?: number;
}

/** What a command's output goes through. */
export interface CliIo {
  stdout: OutStream;
  stderr: OutStream;
  /** True when a person can answer a question on stdin. */
  stdinIsTty: boolean;
  /** Asks a yes/no question on the terminal; resolves to the answer. */
  confirm(question: string): Promise<boolean>;
  env: Readonly<Record<string, string | undefined>>;
}

/** Tells whether table output may use colour: stdout is a terminal and NO_COLOR (https://no-color.org) is unset or empty. */
export function colorAllowed(io: CliIo): boolean {
  const noColor = io.env.NO_COLOR;
  return io.stdout.isTTY === true && (noColor === undefined || noColor === "");
}

/** Bold text when allowed, else the text itself. */
export function bold(text: string, allowed: boolean): string {
  return allowed ? `\u001b[1m${text}\u001b[22m` : text;
}

/**
 * The columns a table may take: the terminal's width on a terminal, else COLUMNS when set (a
 * script that wants a fitted table says so), else no limit, so a pipe gets every cell whole.
 */
export function tableWidth(io: CliIo): number | undefined {
  if (io.stdout.isTTY === true && typeof io.stdout.columns === "number" && io.stdout.columns > 0) return io.stdout.columns;
  const env = io.env.COLUMNS;
  const n = env === undefined ? NaN : Number(env);
  return /^\d+$/.test(env ?? "") && n > 0 ? n : undefined;
}
