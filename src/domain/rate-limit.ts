/**
 * Rate limits as token buckets: a rate `N/period` lets a key spend N requests at once and refills
 * N per period, smoothly. Keys (an identity, an address) each get a bucket; a bucket that has
 * refilled to full is the same as none, so memory stays bounded by the keys active within one
 * period (and by a hard cap, evicting the least recently used).
 */
import type { Clock } from "./clock.js";

/** A rate: count requests per periodMs. */
export interface Rate {
  count: number;
  periodMs: number;
}

/** Parses `100/s`, `600/m`, `5000/h`; `off` (or `0`) is undefined (no limit). */
export function parseRate(text: string): Rate | undefined | Error {
  const t = text.trim().toLowerCase();
  if (t === "off" || t === "0") return undefined;
  const m = /^(\d+)\s*\/\s*(s|sec|second|m|min|minute|h|hour)$/.exec(t);
  const count = m ? Number(m[1]) : 0;
  if (!m || count < 1 || count > 1_000_000) return new Error(`"${text}" is not a rate such as 100/s, 600/m or 5000/h (or off)`);
  const unit = m[2] as string;
  const periodMs = unit.startsWith("s") ? 1_000 : unit.startsWith("m") ? 60_000 : 3_600_000;
  return { count, periodMs };
}

/** The text of a rate, as parseRate reads it. */
export function rateText(rate: Rate | undefined): string {
  if (rate === undefined) return "off";
  return `${rate.count}/${rate.periodMs === 1_000 ? "s" : rate.periodMs === 60_000 ? "m" : "h"}`;
}

/** One limit over many keys. */
export interface RateLimiter {
  /** Spends one request of key: 0 when allowed, else how many ms until one is. */
  take(key: string): number;
  /** How many ms until key may spend one request (0: now), spending nothing. */
  wait(key: string): number;
}

interface Bucket {
  tokens: number;
  at: number;
}

/** The most keys tracked at once; beyond it the least recently used bucket is forgotten. */
export const MAX_TRACKED_KEYS = 100_000;

/** A limiter of rate, on clock. */
export function createRateLimiter(rate: Rate, clock: Clock, maxKeys = MAX_TRACKED_KEYS): RateLimiter {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  const buckets = new Map<string, Bucket>();
  const perMs = rate.count / rate.periodMs;
  return {
    take(key) {
      const now = clock.now();
      const bucket = buckets.get(key);
      let tokens = rate.count;
      if (bucket !== undefined) {
        buckets.delete(key);
        tokens = Math.min(rate.count, bucket.tokens + (now - bucket.at) * perMs);
      }
      if (tokens < 1) {
        buckets.set(key, { tokens, at: now });
        return Math.ceil((1 - tokens) / perMs);
      }
      buckets.set(key, { tokens: tokens - 1, at: now });
      if (buckets.size > maxKeys) sweep(buckets, now, rate, perMs, maxKeys);
      return 0;
    },
    wait(key) {
      const bucket = buckets.get(key);
      if (bucket === undefined) return 0;
      const tokens = Math.min(rate.count, bucket.tokens + (clock.now() - bucket.at) * perMs);
      return tokens < 1 ? Math.ceil((1 - tokens) / perMs) : 0;
    },
  };
}

/** Drops buckets that have refilled; then, if still too many, the least recently used. */
function sweep(buckets: Map<string, Bucket>, now: number, rate: Rate, perMs: number, maxKeys: number): void {
  for (const [key, b] of buckets) {
    if (b.tokens + (now - b.at) * perMs >= rate.count) buckets.delete(key);
  }
  for (const key of buckets.keys()) {
    if (buckets.size <= maxKeys * 0.9) break;
    buckets.delete(key);
  }
}
