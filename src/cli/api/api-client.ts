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

export interface ApiClientOptions {
  /** {base_url}. */
  baseUrl: string;
  token: TokenSource;
  /** The Connect binary format instead of JSON. */
  binary?: boolean;
  /** Hears each request and response, as lines without credentials (`--log-http`). */
  log?: (line: string) => void;
  /** How long one call may take (default 30 s). */
  timeoutMs?: number;
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
 * An interceptor telling log each call's request (method, URL, headers, body as the API's JSON)
 * and its outcome (status, time, body or error), with every credential left out: the
 * Authorization header's token, and any field whose name says it holds a token, secret, password
 * or private key (an exchange's upstream token, a provider's client secret), wherever it is.
 */
export function loggingInterceptor(log: (line: string) => void): Interceptor {
  return (next) => async (req) => {
    const headers = [...req.header.entries()].map(
      ([k, v]) => `${k}: ${k.toLowerCase() === "authorization" ? `${v.split(" ")[0] ?? ""} <redacted>` : v}`,
    );
    log(`> ${req.requestMethod} ${req.url}`);
    for (const h of headers) log(`> ${h}`);
    if (!req.stream) log(`> ${JSON.stringify(withoutSecrets(toApiJson(req.method.input, req.message)))}`);
    const started = performance.now();
    try {
      const res = await next(req);
      const ms = (performance.now() - started).toFixed(0);
      log(`< OK in ${ms} ms`);
      if (!res.stream) log(`< ${JSON.stringify(withoutSecrets(toApiJson(res.method.output, res.message)))}`);
      return res;
    } catch (e) {
      const ms = (performance.now() - started).toFixed(0);
      log(`< ${e instanceof ConnectError ? `error code ${e.code}: ${e.rawMessage}` : String(e)} in ${ms} ms`);
      throw e;
    }
  };
}

/** Field names whose values are credentials: shown as "<redacted>". Page tokens are cursors, not credentials. */
const SECRET_FIELD = /(token|secret|password|privatekey|private_key)$/i;
const NOT_SECRET = new Set(["pageToken", "nextPageToken", "page_token", "next_page_token"]);

function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [
      k,
      SECRET_FIELD.test(k) && !NOT_SECRET.has(k) && typeof v === "string" ? "<redacted>" : withoutSecrets(v),
    ]),
  );
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
        interceptors: [bearerInterceptor(options.token), ...(options.log === undefined ? [] : [loggingInterceptor(options.log)])],
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
        answer = await (client[name] as UnaryCall)(fromJson(method.input, request), { timeoutMs: options.timeoutMs ?? TIMEOUT_MS });
      } catch (e) {
        const cause = e instanceof ConnectError ? unreachableCause(e) : undefined;
        if (cause !== undefined) throw new UnreachableError(`cannot reach ${options.baseUrl}: ${cause}`, { cause: e });
        throw e;
      }
      return toApiJson(method.output, answer as MessageShape<DescMessage>);
    },
  };
}
