/**
 * The Arbor API client for browsers and any fetch-capable runtime (Node 18+, Deno, Bun): typed
 * clients for every service over Connect or gRPC-Web. For gRPC over HTTP/2 from Node, use
 * `arbor/client/node`. Errors are ConnectErrors with the google.rpc details of DESIGN 1.6.
 */
import { createClients, type Clients } from "./clients.js";
import { ARBOR_SERVICES } from "./services.js";
import { createWebTransport, type ArborClientOptions } from "./web-transport.js";

export { Code, ConnectError } from "@connectrpc/connect";
export {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  ResourceInfoSchema,
  RetryInfoSchema,
} from "../gen/google/rpc/error_details_pb.js";
export { Capability } from "../gen/arbor/api/v1/authz_pb.js";
export { CAPABILITIES, capabilityName } from "./capabilities.js";
export { bearerToken, createClients, type Clients, type ServiceTree, type TokenSource } from "./clients.js";
export { ARBOR_SERVICES } from "./services.js";
export type { ArborClientOptions } from "./web-transport.js";

/** The typed clients of every Arbor service (`client.iam.v2beta1.groups.listGroups({})`). */
export type ArborClient = Clients<typeof ARBOR_SERVICES>;

/** Creates the client over a fetch-based transport. */
export function createArborClient(options: ArborClientOptions): ArborClient {
  return createClients(ARBOR_SERVICES, createWebTransport(options));
}
