/**
 * Where `/metrics` is served, and to whom. Metrics tell an outsider which RPCs are called, how
 * often, how they fail and how the process fares, so they are not public by default: the API
 * port serves them only to a scraper presenting ARBOR_METRICS_TOKEN, and ARBOR_METRICS_ADDRESS
 * serves them on a listener of their own (a management port, as Keycloak's; bind it to loopback
 * or a private network), with the token too when one is set. Neither set: no metrics anywhere.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseListenAddress } from "../../config.js";
import { Code, isApiError, notFound, unauthenticated } from "../../domain/errors.js";
import { bearerIs, splitTarget, writeText, type AnyRequest, type AnyResponse } from "../http/http-util.js";
import type { Metrics } from "./metrics.js";

/** Serves `/metrics`, or refuses; throws NOT_FOUND when the API port has no metrics, UNAUTHENTICATED for a missing or wrong token. */
export async function serveMetrics(
  metrics: Metrics,
  token: string | undefined,
  onApiPort: boolean,
  req: AnyRequest,
  res: AnyResponse,
): Promise<void> {
  if (onApiPort && token === undefined) throw notFound("route", `${req.method ?? "GET"} /metrics`);
  if (token !== undefined && !bearerIs(req, token)) throw unauthenticated("METRICS_TOKEN");
  writeText(res, 200, await metrics.registry.metrics(), metrics.registry.contentType);
}

export interface MetricsListener {
  /** Its bound port. */
  readonly port: number;
  close(): Promise<void>;
}

/** Starts the listener of ARBOR_METRICS_ADDRESS (`host:port`; `:port` for every interface): `GET /metrics` and nothing else. */
export async function startMetricsListener(address: string, metrics: Metrics, token: string | undefined): Promise<MetricsListener> {
  const parsed = parseListenAddress(address);
  if (parsed === undefined) throw new Error(`"${address}" is not a listen address`); // resolveConfig checked it
  const { host, port } = parsed;
  const server = http.createServer({ requestTimeout: 10_000, headersTimeout: 5_000 }, (req, res) => {
    const { path } = splitTarget(req);
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) return writeText(res, 404, "not found\n", "text/plain");
    serveMetrics(metrics, token, false, req, res).catch((e: unknown) => {
      if (res.headersSent) return void res.destroy();
      const denied = isApiError(e) && e.code === Code.UNAUTHENTICATED;
      writeText(
        res,
        denied ? 401 : 500,
        denied ? "unauthenticated: send the metrics token as a bearer token\n" : "internal error\n",
        "text/plain",
      );
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port }, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
