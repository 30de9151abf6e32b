/**
 * The Arbor API client for Node.js: everything the browser entry offers, plus gRPC over HTTP/2
 * (cleartext h2c for http:// base URLs, TLS for https://) through @connectrpc/connect-node.
 */
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";
import { createClients } from "./clients.js";
import type { ArborClient } from "./index.js";
import { ARBOR_SERVICES } from "./services.js";
import { createWebTransport, interceptorsOf, type ArborClientOptions } from "./web-transport.js";

export * from "./index.js";

/** How to reach Arbor from Node. */
export interface ArborNodeClientOptions extends Omit<ArborClientOptions, "transport"> {
  /** The protocol: Connect (default) or gRPC-Web over fetch, or gRPC over HTTP/2. */
  transport?: "connect" | "grpc-web" | "grpc";
}

/** The Node client: the typed services, and close() to end its HTTP/2 connection (gRPC). */
export type ArborNodeClient = ArborClient & {
  /** Closes the HTTP/2 session of the gRPC transport, if one is open; calls after it reconnect. */
  close(): void;
};

/** Creates the client; with `transport: "grpc"` it holds one HTTP/2 session, ended by close(). */
export function createArborNodeClient(options: ArborNodeClientOptions): ArborNodeClient {
  if (options.transport !== "grpc") {
    const clients = createClients(ARBOR_SERVICES, createWebTransport({ ...options, transport: options.transport }));
    return { ...clients, close() {} };
  }
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const sessionManager = new Http2SessionManager(baseUrl);
  const transport = createGrpcTransport({ baseUrl, sessionManager, interceptors: interceptorsOf(options) });
  return { ...createClients(ARBOR_SERVICES, transport), close: () => sessionManager.abort() };
}
