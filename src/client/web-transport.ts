/**
 * The options of the client and the fetch-based transports they describe (Connect, gRPC-Web),
 * shared by the browser and the Node entries.
 */
import type { Interceptor, Transport } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { bearerToken, type TokenSource } from "./clients.js";

/** How to reach Arbor. */
export interface ArborClientOptions {
  /** {base_url}, such as `https://arbor.example.com`. */
  baseUrl: string;
  /** The API token, or a function giving a current one before each call; none for public RPCs. */
  token?: TokenSource;
  /** The protocol: Connect (default) or gRPC-Web. */
  transport?: "connect" | "grpc-web";
  /** The fetch to use (default: the global one), e.g. to add credentials or logging. */
  fetch?: typeof globalThis.fetch;
  /** Binary protobuf instead of JSON on the wire (default true: smaller and faster). */
  useBinaryFormat?: boolean;
  /** More interceptors, run after the one sending the token. */
  interceptors?: Interceptor[];
}

/** The fetch-based transport the options describe. */
export function createWebTransport(options: ArborClientOptions): Transport {
  const settings = {
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    useBinaryFormat: options.useBinaryFormat ?? true,
    interceptors: interceptorsOf(options),
    ...(options.fetch !== undefined && { fetch: options.fetch }),
  };
  return options.transport === "grpc-web" ? createGrpcWebTransport(settings) : createConnectTransport(settings);
}

/** The token interceptor (when a token is configured), then the caller's. */
export function interceptorsOf(options: Pick<ArborClientOptions, "token" | "interceptors">): Interceptor[] {
  return [...(options.token !== undefined ? [bearerToken(options.token)] : []), ...(options.interceptors ?? [])];
}
