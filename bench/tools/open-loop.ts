/**
 * An open-loop HTTP/1.1 load generator (wrk cannot hold a rate): sends `rate` GETs a second on
 * a schedule, whatever the answers do, over keep-alive connections, and times each request from
 * when it was due, so a stalled server shows in the latencies instead of slowing the load.
 *
 * It writes requests and reads answers on raw sockets, because node:http's client costs tens of
 * microseconds a request: at thousands a second on a 2-core machine it measured its own delays
 * (a p99 of 10 ms against a bare server answering in 13 µs). One request per connection at a
 * time; a request due while every connection is busy waits for one, and that wait counts.
 * Usage: node open-loop.js '{"url":…,"headers":{…},"rate":1000,"seconds":5}'; prints JSON.
 */
import net from "node:net";
import { percentile } from "../lib/stats.js";

/** What to send. */
export interface OpenLoopSpec {
  url: string;
  headers: Record<string, string>;
  rate: number;
  seconds: number;
  /** Connections at most (default 64). */
  connections?: number;
}

/** What came back. */
export interface OpenLoopResult {
  sent: number;
  errors: number;
  /** Requests answered per second over the run. */
  achieved: number;
  p50: number;
  p99: number;
}

/** A keep-alive connection with at most one request in flight. */
interface Connection {
  socket: net.Socket;
  /** When the request in flight was due; undefined when idle. */
  due: number | undefined;
  buffer: Buffer;
  closed: boolean;
}

const HEAD_END = Buffer.from("\r\n\r\n");

async function openLoop(spec: OpenLoopSpec): Promise<OpenLoopResult> {
  const url = new URL(spec.url);
  const request = Buffer.from(
    `GET ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\n` +
      Object.entries(spec.headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join("") +
      "\r\n",
  );
  const latencies: number[] = [];
  const waiting: number[] = [];
  const idle: Connection[] = [];
  let errors = 0;
  let open = 0;
  const max = spec.connections ?? 64;

  const send = (c: Connection, due: number) => {
    c.due = due;
    c.socket.write(request);
  };
  const done = (c: Connection, ok: boolean) => {
    if (!ok) errors++;
    latencies.push(performance.now() - (c.due as number));
    c.due = undefined;
    if (c.closed) return;
    const next = waiting.shift();
    if (next !== undefined) send(c, next);
    else idle.push(c);
  };
  const connect = (due: number) => {
    open++;
    const c: Connection = { socket: net.connect(Number(url.port), url.hostname), due: undefined, buffer: Buffer.alloc(0), closed: false };
    c.socket.setNoDelay(true);
    c.socket.on("data", (chunk: Buffer) => {
      c.buffer = c.buffer.length === 0 ? chunk : Buffer.concat([c.buffer, chunk]);
      for (;;) {
        const end = c.buffer.indexOf(HEAD_END);
        if (end < 0) return;
        const head = c.buffer.subarray(0, end).toString("latin1");
        const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        const total = end + HEAD_END.length + length;
        if (c.buffer.length < total) return;
        c.buffer = c.buffer.subarray(total);
        done(c, head.startsWith("HTTP/1.1 200"));
      }
    });
    // Closed by the server (an idle keep-alive timeout) or failed: the request in flight failed.
    c.socket.on("error", () => undefined);
    c.socket.on("close", () => {
      c.closed = true;
      open--;
      const at = idle.indexOf(c);
      if (at >= 0) idle.splice(at, 1);
      if (c.due !== undefined) done(c, false);
    });
    send(c, due);
  };
  const dispatch = (due: number) => {
    const c = idle.pop();
    if (c !== undefined) send(c, due);
    else if (open < max) connect(due);
    else waiting.push(due);
  };

  const start = performance.now();
  const total = Math.round(spec.rate * spec.seconds);
  let sent = 0;
  while (sent < total) {
    const now = performance.now();
    for (; sent < total; sent++) {
      const due = start + (sent / spec.rate) * 1000;
      if (due > now) break;
      dispatch(due);
    }
    // A 1 ms tick, not a busy loop: the generator must not take a core from the server.
    await new Promise((r) => setTimeout(r, 1));
  }
  while (latencies.length < total && open > 0) await new Promise((r) => setTimeout(r, 2));
  const seconds = (performance.now() - start) / 1000;
  for (const c of idle) c.socket.destroy();
  latencies.sort((a, b) => a - b);
  return {
    sent,
    errors: errors + (total - latencies.length),
    achieved: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

process.stdout.write(JSON.stringify(await openLoop(JSON.parse(process.argv[2] ?? "{}") as OpenLoopSpec)));
