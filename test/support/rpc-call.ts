/**
 * Calls any RPC of the contract by its descriptor, over REST (mapped by its google.api.http
 * rule, as any gateway client would) or over gRPC (@grpc/grpc-js, the message encoded with the
 * generated schema): one request, written once as proto JSON, on both transports.
 */
import {
  fromBinary,
  fromJson,
  getOption,
  toBinary,
  toJson,
  type DescField,
  type DescMessage,
  type DescMethod,
  type JsonObject,
  type JsonValue,
} from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { hasOption } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { http } from "../../src/gen/google/api/annotations_pb.js";
import { createServices } from "../../src/services/routes.js";

/** The transports the helpers speak. */
export type Transport = "rest" | "grpc";

/** What came back: code 0 and the answer as proto JSON, or the error's code. */
export interface RpcOutcome {
  code: number;
  body: JsonObject;
}

/**
 * Every RPC the server registers (src/services/routes.ts, the list every transport serves), so a
 * suite built on it covers an RPC added tomorrow or fails for want of it. Binding a service only
 * wraps its implementation, so no dependencies are needed to read the list.
 */
export function registeredRpcs(): DescMethod[] {
  return createServices({ settings: {} } as never).flatMap((b) => b.service.methods);
}

/** Whether an RPC changes something: neither an HTTP GET nor declared free of side effects. */
export function isMutatingRpc(method: DescMethod): boolean {
  if (method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS) return false;
  return hasOption(method, http) && getOption(method, http).pattern.case !== "get";
}

/** `package.Service/Method`. */
export function rpcName(method: DescMethod): string {
  return `${method.parent.typeName}/${method.name}`;
}

/** Calls method with request (proto JSON) as the holder of token, over transport. */
export async function callRpc(
  base: string,
  transport: Transport,
  token: string,
  method: DescMethod,
  request: JsonObject,
): Promise<RpcOutcome> {
  const message = fromJson(method.input, request);
  if (transport === "grpc") return callGrpc(base, token, method, toBinary(method.input, message));
  return callRest(base, token, method, toJson(method.input, message) as JsonObject);
}

async function callRest(base: string, token: string, method: DescMethod, json: JsonObject): Promise<RpcOutcome> {
  const rule = getOption(method, http);
  const verb = rule.pattern.case ?? "";
  if (verb === "" || verb === "custom") throw new Error(`${rpcName(method)} has no plain HTTP rule`);
  const used = new Set<string>();
  const path = (rule.pattern.value as string).replace(/\{([a-z0-9_.]+)(?:=[^}]*)?\}/g, (_, fieldPath: string) => {
    const names = jsonNames(method.input, fieldPath);
    used.add(names[0] as string);
    return String(valueAt(json, names) ?? "");
  });
  let body: JsonValue | undefined;
  if (rule.body === "*") body = Object.fromEntries(Object.entries(json).filter(([k]) => !used.has(k)));
  else if (rule.body !== "") {
    const [name] = jsonNames(method.input, rule.body);
    used.add(name as string);
    body = json[name as string] ?? {};
  }
  const query = new URLSearchParams();
  if (rule.body !== "*") {
    for (const [k, v] of Object.entries(json)) if (!used.has(k) && typeof v === "string") query.set(k, v);
  }
  const url = `${base}${path}${query.size > 0 ? `?${query}` : ""}`;
  const res = await fetch(url, {
    method: verb.toUpperCase(),
    headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/json" }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const answer = (await res.json()) as JsonObject;
  return res.ok ? { code: 0, body: answer } : { code: Number(answer.code), body: answer };
}

/**
 * One client per server for the whole test file: a client made and closed per call left grpc-js
 * now and then waiting about 5 s to send a call (the escalation suite spent 90 s of its 100 on
 * that; the server's log showed each such call answered in 2 ms).
 */
const clients = new Map<string, grpc.Client>();

function callGrpc(base: string, token: string, method: DescMethod, bytes: Uint8Array): Promise<RpcOutcome> {
  const host = new URL(base).host;
  let client = clients.get(host);
  if (client === undefined) {
    client = new grpc.Client(host, grpc.credentials.createInsecure());
    clients.set(host, client);
  }
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  const raw = (b: Buffer) => b;
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      `/${rpcName(method)}`,
      (b: Uint8Array) => Buffer.from(b),
      raw,
      bytes,
      metadata,
      (err, answer) => {
        if (err) resolve({ code: err.code, body: { message: err.details } });
        else resolve({ code: 0, body: toJson(method.output, fromBinary(method.output, answer as Buffer)) as JsonObject });
      },
    );
  });
}

/** The JSON names along a dotted path of proto field names. */
function jsonNames(message: DescMessage, dotted: string): string[] {
  const out: string[] = [];
  let current: DescMessage | undefined = message;
  for (const name of dotted.split(".")) {
    const field: DescField | undefined = current?.fields.find((f) => f.name === name);
    if (!field) throw new Error(`${message.typeName} has no field ${dotted}`);
    out.push(field.jsonName);
    current = field.fieldKind === "message" ? field.message : undefined;
  }
  return out;
}

function valueAt(json: JsonObject, names: readonly string[]): JsonValue | undefined {
  let value: JsonValue | undefined = json;
  for (const n of names) value = value !== null && typeof value === "object" && !Array.isArray(value) ? value[n] : undefined;
  return value;
}
