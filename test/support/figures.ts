/**
 * Reliability harnesses print their figures (cases, rounds, times) on a line of their own, for
 * docs/reliability.md and CI logs to quote.
 */

/** Prints `label: <figures as JSON>`. */
export function printFigures(label: string, figures: unknown): void {
  process.stdout.write(`${label}: ${JSON.stringify(figures)}\n`);
}
