/**
 * An open-loop HTTP load generator (wrk cannot hold a rate): sends `rate` requests a second on
 * a schedule, whatever the answers do, over keep-alive connections, and times each request from
 * when it was due, so a stalled server shows in the latencies instead of slowing the load.
 * Usage: node open-loop.js '{"url":…,"headers":{…},"rate":1000,"seconds":5}'; prints JSON.
 */
import http from "node:http";
import { percentile } from "../lib/stats.js";

/** What to send. */
export interface OpenLoopSpec {
  url: string;
  headers: Record<string, string>;
  rate: number;
  seconds: number;
  /** Connections at most (default 64); requests due when all are busy wait for one. */
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

async function openLoop(spec: OpenLoopSpec): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections ?? 64 });
  const latencies: number[] = [];
  let errors = 0;
  let sent = 0;
  let inFlight = 0;
  const start = performance.now();
  const total = Math.round(spec.rate * spec.seconds);
  const one = (due: number) => {
    inFlight++;
    const req = http.request(spec.url, { headers: spec.headers, agent }, (res) => {
      res.resume();
      res.on("end", () => {
        inFlight--;
        if (res.statusCode !== 200) errors++;
        latencies.push(performance.now() - due);
      });
    });
    req.on("error", () => {
      inFlight--;
      errors++;
    });
    req.end();
  };
  while (sent < total) {
    const now = performance.now();
    for (; sent < total; sent++) {
      const due = start + (sent / spec.rate) * 1000;
      if (due > now) break;
      one(due);
    }
    // A 1 ms tick, not a busy loop: the generator must not take a core from the server.
    await new Promise((r) => setTimeout(r, 1));
  }
  while (inFlight > 0) await new Promise((r) => setTimeout(r, 2));
  const seconds = (performance.now() - start) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { sent, errors, achieved: latencies.length / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

process.stdout.write(JSON.stringify(await openLoop(JSON.parse(process.argv[2] ?? "{}") as OpenLoopSpec)));
