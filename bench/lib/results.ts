/**
 * The results model: a scenario measures figures; a check compares one measured value with its
 * target (a bound, or a ratio of two figures of the same run) and says PASS or MISS. A scenario
 * also reports every failed request it met, and any fails all of its targets (holds()).
 */

/** One measured figure with the command that reproduces it. */
export interface Figure {
  label: string;
  value: number;
  unit: string;
  /** The exact command (or call) that produced it. */
  command: string;
}

/** A target: value `op` bound, e.g. a ratio ≥ 0.6 or a latency ≤ 5 ms. */
export interface Check {
  label: string;
  measured: number;
  unit: string;
  op: "≥" | "≤";
  bound: number;
  /** How measured was computed, e.g. "Arbor req/s ÷ bare node:http req/s". */
  how: string;
  /** Failed requests behind the figure: any fails the target, whatever was measured. */
  errors?: number;
}

/** A chart: bars of labelled values, one series. */
export interface Chart {
  /** File name under docs/benchmarks/, without extension. */
  file: string;
  title: string;
  unit: string;
  bars: { label: string; value: number }[];
}

/** What one scenario hands to the writer. */
export interface ScenarioResult {
  id: string;
  title: string;
  /** Markdown paragraphs on the method: what is measured, how, and why that way. */
  method: string[];
  figures: Figure[];
  checks: Check[];
  charts: Chart[];
  /**
   * Failed requests over the whole scenario (non-2xx answers, socket errors, failed calls or
   * commands, on either side of a comparison): any fails every one of its targets. NaN when not
   * known (a result stored before scenarios reported them).
   */
  errors: number;
  /** Problems met on the way (a failed round, a missing tool), shown in the doc. */
  notes: string[];
  /** When the run that measured it started (set by the runner). */
  ranAt?: string;
}

/** Tells whether a check holds: a finite figure within its bound, measured without errors. */
export function passes(c: Check): boolean {
  return (c.errors ?? 0) === 0 && Number.isFinite(c.measured) && (c.op === "≥" ? c.measured >= c.bound : c.measured <= c.bound);
}

/**
 * Tells whether a scenario's check holds: the check passes and its scenario met no error at all
 * (an unknown count is not none), so no target is judged on a figure taken with failed requests.
 */
export function holds(r: Pick<ScenarioResult, "errors">, c: Check): boolean {
  return r.errors === 0 && passes(c);
}

/** The failed requests to show beside a check: its own, or its scenario's when more. */
export function errorsBehind(r: Pick<ScenarioResult, "errors">, c: Check): number {
  return Number.isNaN(r.errors) ? NaN : Math.max(r.errors, c.errors ?? 0);
}

/** A scenario's shared context: the options and a logger to stderr. */
export interface ScenarioContext {
  rounds: number;
  seconds: number;
  quick: boolean;
  databaseUrl: string;
  log(line: string): void;
}

/** A scenario of the suite. */
export interface Scenario {
  id: string;
  run(ctx: ScenarioContext): Promise<ScenarioResult>;
}
