/**
 * A closed-loop gRPC load generator on @grpc/grpc-js: `concurrency` unary calls in flight over
 * `channels` HTTP/2 connections for `seconds`, the request and answer kept as raw bytes so the
 * same client measures any server of the method. Usage: node grpc-load.js '{…}'; prints JSON.
 */
import { credentials, Client, Metadata } from "@grpc/grpc-js";
import { percentile } from "../lib/stats.js";

/** What to call. */
export interface GrpcLoadSpec {
  /** host:port, plaintext (h2c). */
  target: string;
  /** /package.Service/Method */
  method: string;
  /** The request message, base64. */
  request: string;
  /** Metadata, e.g. authorization. */
  metadata: Record<string, string>;
  concurrency: number;
  channels: number;
  seconds: number;
}

/** What came back. */
export interface GrpcLoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50: number;
  p99: number;
  /** The first error, if any. */
  firstError?: string;
}

const raw = (b: Buffer) => b;

async function load(spec: GrpcLoadSpec): Promise<GrpcLoadResult> {
  // Distinct channel options keep grpc-js from sharing one subchannel among the clients.
  const clients = Array.from(
    { length: spec.channels },
    (_, i) => new Client(spec.target, credentials.createInsecure(), { "grpc.bench_channel": i }),
  );
  const request = Buffer.from(spec.request, "base64");
  const metadata = new Metadata();
  for (const [k, v] of Object.entries(spec.metadata)) metadata.set(k, v);
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const call = (client: Client) =>
    new Promise<void>((resolve) => {
      const t0 = performance.now();
      client.makeUnaryRequest(spec.method, raw, raw, request, metadata, (err) => {
        if (err) {
          errors++;
          firstError ??= err.message;
        } else latencies.push(performance.now() - t0);
        resolve();
      });
    });
  // One warm-up call per channel: connecting is not what is measured.
  await Promise.all(clients.map(call));
  latencies.length = 0;
  const start = performance.now();
  const until = start + spec.seconds * 1000;
  await Promise.all(
    Array.from({ length: spec.concurrency }, async (_, i) => {
      const client = clients[i % clients.length] as Client;
      while (performance.now() < until) await call(client);
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  for (const c of clients) c.close();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    ...(firstError !== undefined && { firstError }),
  };
}

process.stdout.write(JSON.stringify(await load(JSON.parse(process.argv[2] ?? "{}") as GrpcLoadSpec)));
