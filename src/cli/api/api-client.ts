/**
 * The CLI's connection to the API: Connect over HTTP/1.1 (JSON, or binary when asked) with the
 * generated service descriptors, every call carrying `Authorization: Bearer <token>`.
 */
import { fromJson, type DescMessage, type DescService, type JsonValue, type Message, type MessageShape } from "@bufbuild/protobuf";
import { ConnectError, createClient, type Interceptor, type Transport } from "@connectrpc/connect";
import { toApiJson } from "../../server/rest/json.js";
import { UnreachableError } from "../auth/http.js";
import { unreachableCause } from "./rpc-error.js";
import type { TokenSource } from "./token-source.js";

/** How long one call may take. */
const TIMEOUT_MS = 30_000;

/** Options of an ApiClient. */
export interface ApiClientOptions {
  /** {base_url}. */
  baseUrl: string;
  token: TokenSource;
  /** The Connect binary format instead of JSON. */
  binary?: boolean;
}

/** Calls any unary RPC of any service with JSON in and the API's JSON out. */
export interface ApiClient {
  /** Calls service's method (by its local name, `listGroups`) with a request in proto3 JSON; the answer as the API's JSON. */
  call(service: DescService, method: string, request: JsonValue): Promise<JsonValue>;
}

type UnaryCall = (input: Message, options: { timeoutMs: number }) => Promise<Message>;

/** An interceptor adding the bearer token to every request. */
export function bearerInterceptor(token: TokenSource): Interceptor {
  return (next) => async (req) => {
    req.header.set("authorization", `Bearer ${await token()}`);
    return next(req);
  };
}

/**
 * A client of the API at options.baseUrl. The transport is loaded at the first call: importing
 * node:http as an ES module costs ~15 ms (it loads Node's fetch), which commands that make no call
 * (`--help`) should not pay.
 */
export function createApiClient(options: ApiClientOptions): ApiClient {
  let transport: Promise<Transport> | undefined;
  const connect = () =>
    (transport ??= import("@connectrpc/connect-node").then(({ createConnectTransport }) =>
      createConnectTransport({
        baseUrl: options.baseUrl,
        httpVersion: "1.1",
        useBinaryFormat: options.binary === true,
        interceptors: [bearerInterceptor(options.token)],
      }),
    ));
  const clients = new Map<DescService, Record<string, UnaryCall>>();
  return {
    async call(service, name, request) {
      const method = service.method[name];
      if (method === undefined || method.methodKind !== "unary") throw new RangeError(`${service.typeName} has no unary method ${name}`);
      let client = clients.get(service);
      if (client === undefined) {
        client = createClient(service, await connect()) as unknown as Record<string, UnaryCall>;
        clients.set(service, client);
      }
      let answer: Message;
      try {
        answer = await (client[name] as UnaryCall)(fromJson(method.input, request), { timeoutMs: TIMEOUT_MS });
      } catch (e) {
        const cause = e instanceof ConnectError ? unreachableCause(e) : undefined;
        if (cause !== undefined) throw new UnreachableError(`cannot reach ${options.baseUrl}: ${cause}`, { cause: e });
        throw e;
      }
      return toApiJson(method.output, answer as MessageShape<DescMessage>);
    },
  };
}
