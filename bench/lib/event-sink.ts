/**
 * A local event sink for E1: a plain node:http server on loopback answering 204, as a receiver
 * would (docs/events.md#verifying-a-delivery), recording each delivery's ce-id and arrival, and
 * counting malformed ones (no bearer token, no ce-id, not CloudEvents 1.0 in binary mode, a body
 * that is not JSON with the data's two keys). It answers 204 even to those, so that Arbor moves
 * on and the tally, not a retry, shows them. tally() checks a round's arrivals against the
 * events expected, in the outbox's order: every one received, exactly once, in that order.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One delivery as the sink saw it. */
export interface Arrival {
  id: string;
  type: string;
  /** performance.now() at the end of its body. */
  at: number;
}

/** What a round's arrivals were, compared with what was expected. */
export interface Tally {
  /** Distinct expected events received. */
  delivered: number;
  /** Expected events never received. */
  missing: number;
  /** Deliveries of an event already received. */
  duplicates: number;
  /** Events received after one that follows them in the outbox. */
  outOfOrder: number;
  /** Deliveries of events not expected, and malformed deliveries. */
  unexpected: number;
  /** Every error above. */
  errors: number;
}

/** A running sink. */
export interface EventSink {
  readonly url: string;
  /** Deliveries since the last reset, in arrival order. */
  readonly arrivals: readonly Arrival[];
  /** Malformed deliveries since the last reset. */
  readonly malformed: number;
  reset(): void;
  /** Resolves once count(arrivals) holds, or after timeoutMs (false). */
  until(count: (arrivals: readonly Arrival[]) => boolean, timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/** Starts a sink on 127.0.0.1, on a free port. */
export async function startEventSink(): Promise<EventSink> {
  let arrivals: Arrival[] = [];
  let malformed = 0;
  let waiter: (() => void) | undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const event = parse(req, Buffer.concat(chunks).toString("utf8"));
      if (event === undefined) malformed++;
      else arrivals.push({ ...event, at: performance.now() });
      res.writeHead(204).end();
      waiter?.();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/events`,
    get arrivals() {
      return arrivals;
    },
    get malformed() {
      return malformed;
    },
    reset() {
      arrivals = [];
      malformed = 0;
    },
    async until(count, timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while (!count(arrivals)) {
        const left = deadline - performance.now();
        if (left <= 0) return false;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 200));
          waiter = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        waiter = undefined;
      }
      return true;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

function parse(req: IncomingMessage, body: string): Omit<Arrival, "at"> | undefined {
  const h = req.headers;
  if (req.method !== "POST" || h["ce-specversion"] !== "1.0" || !/^application\/json/.test(h["content-type"] ?? "")) return undefined;
  if (!/^Bearer \S+$/.test(h.authorization ?? "")) return undefined;
  const id = h["ce-id"];
  const type = h["ce-type"];
  if (typeof id !== "string" || id === "" || typeof type !== "string") return undefined;
  try {
    const data = JSON.parse(body) as { actor?: unknown; body?: unknown };
    if (typeof data.actor !== "object" || typeof data.body !== "object") return undefined;
  } catch {
    return undefined;
  }
  return { id, type };
}

/** Compares arrivals with the ids expected, in the outbox's order. */
export function tally(expected: readonly string[], arrivals: readonly Arrival[], malformed = 0): Tally {
  const place = new Map(expected.map((id, i) => [id, i]));
  const seen = new Set<string>();
  let duplicates = 0;
  let outOfOrder = 0;
  let unexpected = malformed;
  let last = -1;
  for (const a of arrivals) {
    const i = place.get(a.id);
    if (i === undefined) {
      unexpected++;
      continue;
    }
    if (seen.has(a.id)) {
      duplicates++;
      continue;
    }
    seen.add(a.id);
    if (i < last) outOfOrder++;
    last = Math.max(last, i);
  }
  const missing = expected.length - seen.size;
  return { delivered: seen.size, missing, duplicates, outOfOrder, unexpected, errors: missing + duplicates + outOfOrder + unexpected };
}
