/**
 * Statistics of the suite: every figure in docs/benchmarks.md is a median over BENCH_ROUNDS
 * rounds, because the machine is shared and one round can be unlucky.
 */

/** The median of xs (the lower middle of an even count); NaN when empty. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor((s.length - 1) / 2)] ?? NaN;
}

/** The p-th percentile (0..100) of values already sorted ascending. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

/** Runs fn `rounds` times, one after the other, and returns every result. */
export async function rounds<T>(count: number, fn: (round: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < count; i++) out.push(await fn(i));
  return out;
}
