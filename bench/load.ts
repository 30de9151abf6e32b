/**
 * A closed-loop HTTP load generator: `connections` keep-alive clients each send the next request
 * as soon as the previous answer arrives, for `seconds`. Runs in a worker thread so it does not
 * share an event loop with the server under test.
 */
import http from "node:http";
import { parentPort, workerData } from "node:worker_threads";

/** What to send. */
export interface LoadSpec {
  url: string;
  method: string;
  headers: Record<string, string>;
  /** A body per request; `{i}` is replaced by a counter, so creates get distinct names. */
  body?: string;
  connections: number;
  seconds: number;
}

/** What came back. */
export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  /** Latencies in milliseconds, sorted. */
  latencies: number[];
}

async function run(spec: LoadSpec): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: spec.connections });
  const latencies: number[] = [];
  let errors = 0;
  let counter = 0;
  const start = performance.now();
  const until = start + spec.seconds * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const body = spec.body?.replaceAll("{i}", String(counter++));
      const t0 = performance.now();
      const req = http.request(spec.url, { method: spec.method, headers: spec.headers, agent }, (res) => {
        res.resume();
        res.on("end", () => {
          if (res.statusCode !== 200) errors++;
          latencies.push(performance.now() - t0);
          resolve();
        });
      });
      req.on("error", () => {
        errors++;
        resolve();
      });
      req.end(body);
    });
  await Promise.all(
    Array.from({ length: spec.connections }, async () => {
      while (performance.now() < until) await one();
    }),
  );
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { requests: latencies.length, errors, seconds: (performance.now() - start) / 1000, latencies };
}

if (parentPort) parentPort.postMessage(await run(workerData as LoadSpec));
