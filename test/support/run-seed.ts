/**
 * The seed of a randomized harness run (fuzzing, crash rounds), from its environment variable:
 * unset, the harness's fixed seed, so `npm test` repeats the same run; `random`, a new one; else
 * the number given. The harness prints the seed it used, so any run can be replayed.
 */
export function runSeed(variable: string, value: string | undefined, fixed: number): number {
  if (value === undefined || value === "") return fixed;
  if (value === "random") return Math.floor(Math.random() * 2 ** 31);
  const seed = Number(value);
  if (!Number.isSafeInteger(seed) || seed < 0)
    throw new Error(`${variable} must be a non-negative integer or "random", not ${JSON.stringify(value)}`);
  return seed;
}
