/**
 * Prometheus metrics: requests and latency by RPC (or route), transport and code, and the
 * advisories feed syncs by mode. One registry per server, no globals.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import { BUILD_INFO } from "../../build-info.js";

/** The server's metrics. */
export interface Metrics {
  registry: Registry;
  /** Records one finished request. */
  observe(rpc: string, transport: string, code: number, seconds: number): void;
  /** Records one advisories feed sync that ended well: its mode, and the documents and bytes it fetched. */
  feedSynced(mode: "incremental" | "full", documents: number, bytes: number): void;
}

/** Creates a registry with process metrics and the request metrics. */
export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "arbor_" });
  // The usual Prometheus idiom: a constant 1 whose labels say what runs, so a dashboard can
  // join on it and an alert can see replicas running different builds.
  new Gauge({
    name: "arbor_build_info",
    help: "Always 1; the labels give the running build: version, git commit and Node.js version.",
    labelNames: ["version", "commit", "node"] as const,
    registers: [registry],
  }).set({ version: BUILD_INFO.version, commit: BUILD_INFO.commit, node: process.version }, 1);
  const labelNames = ["rpc", "transport", "code"] as const;
  const requests = new Counter({
    name: "arbor_requests_total",
    help: "Requests handled, by RPC or route, transport and status code.",
    labelNames,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "arbor_request_duration_seconds",
    help: "Time to answer a request, by RPC or route, transport and status code.",
    labelNames,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const feedLabels = ["mode"] as const;
  const syncs = new Counter({
    name: "arbor_advisories_feed_syncs_total",
    help: "Advisories feed syncs that ended well, by mode (incremental or full).",
    labelNames: feedLabels,
    registers: [registry],
  });
  const fetchedDocuments = new Counter({
    name: "arbor_advisories_feed_documents_fetched_total",
    help: "Advisory documents the feed sync fetched (one by one, or read from the archive), by mode.",
    labelNames: feedLabels,
    registers: [registry],
  });
  const fetchedBytes = new Counter({
    name: "arbor_advisories_feed_bytes_fetched_total",
    help: "Bytes the feed sync downloaded, by mode.",
    labelNames: feedLabels,
    registers: [registry],
  });
  return {
    registry,
    feedSynced(mode, documents, bytes) {
      syncs.inc({ mode });
      fetchedDocuments.inc({ mode }, documents);
      fetchedBytes.inc({ mode }, bytes);
    },
    observe(rpc, transport, code, seconds) {
      const labels = { rpc, transport, code: String(code) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
  };
}
