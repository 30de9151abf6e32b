/**
 * The call pipeline every transport goes through: authenticate, authorize by the RPC's declared
 * policy (the arbor.api.v1.authz method option), then call the service. Permission is checked
 * before existence: the scope is a uid, and ancestry is read off the uid, so a caller without
 * access learns nothing about what exists.
 *
 * gRPC server reflection (server/reflection) deliberately does not pass through here: it serves
 * only the public contract, never data, and generic tools (grpcurl, Postman) send no token.
 */
import { create, getOption, hasOption, type DescField, type DescMessage, type DescMethod, type Message } from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { http } from "../gen/google/api/annotations_pb.js";
import { FieldBehavior, field_behavior } from "../gen/google/api/field_behavior_pb.js";
import { authz, type Authorization } from "../gen/arbor/api/v1/authz_pb.js";
import type { Tokens } from "../auth/tokens.js";
import { capabilityName, type Capability } from "../domain/capabilities.js";
import { invalidArgument, permissionDenied, unauthenticated } from "../domain/errors.js";
import { requireUid } from "../domain/uid.js";
import { actionOf } from "../domain/audit.js";
import type { AuditTrail } from "../services/audit/audit-trail.js";
import type { Authorizer } from "../auth/authorizer.js";
import type { EscalationGuard } from "../services/iam/escalation-guard.js";
import type { CallContext, Principal } from "../services/context.js";
import type { Store } from "../store/store.js";
import type { RpcHandler, ServiceBinding } from "../services/service-impl.js";
import { bearerToken } from "./http/http-util.js";
import { createNulRefusal, type NulRefusal } from "./http/nul-refusal.js";
import type { RequestLimits } from "./http/request-limits.js";
import { attemptedIdentity, spendOnRefusal } from "./sts/sts-exchange.js";
import type { RequestLog } from "./http/request-log.js";

/** One call, as a transport hands it over. */
export interface Call {
  method: DescMethod;
  request: Message;
  /** The Authorization header, if any. */
  authorization: string | undefined;
  signal: AbortSignal;
  record: RequestLog;
}

export interface InvokerDeps {
  services: readonly ServiceBinding[];
  tokens: Tokens;
  authorizer: Authorizer;
  /** The audience API tokens must carry ({base_url}); known once the server listens. */
  audience: () => string;
  /** Where changes are recorded; every successful mutating RPC writes one event. */
  audit: AuditTrail;
  /** The store's atomically(): a change and its audit event land together or not at all. */
  atomically: Store["atomically"];
  /** Refuses, before it commits, a change that hands out what its caller does not hold. */
  guard: EscalationGuard;
  /** Rate limits per address and per identity. */
  limits: RequestLimits;
}

interface Entry {
  method: DescMethod;
  handler: RpcHandler;
  refuseNul: NulRefusal;
  policy: Authorization;
  capabilities: Capability[];
  scope?: { path: DescField[]; label: string; required: boolean };
  /** Set for RPCs that change something: they are audited. */
  mutation?: {
    /** The Get RPC of the same resource (taking a uid), to read it before an update or delete. */
    getter?: Entry;
  };
}

/**
 * What the REST and Connect (gRPC) handlers hand every call to, so authentication, authorization,
 * rate limits and the audit are done once for all transports (the pipeline above).
 */
export interface Invoker {
  invoke(call: Call): Promise<Message>;
}

/** Builds the invoker; throws at start-up if an RPC declares no authorization policy. */
export function createInvoker(deps: InvokerDeps): Invoker {
  const entries = new Map<DescMethod, Entry>();
  for (const binding of deps.services) {
    for (const method of binding.service.methods) {
      entries.set(method, entryFor(method, binding));
    }
  }
  for (const entry of entries.values()) {
    if (isMutation(entry.method)) entry.mutation = { getter: getterOf(entry.method, entries) };
  }
  /**
   * A call that trades credentials (ExchangeToken): limited and throttled as the HTTP exchange is,
   * in the same budgets (src/server/sts/sts-exchange.ts): refused credentials spend from the address's
   * budget, and a refusal of a token its issuer signed from the attempted workload's.
   */
  async function credentialsCall(entry: Entry, call: Call) {
    const address = call.record.address;
    deps.limits.credentials(address);
    deps.limits.authAllowed(address, undefined);
    const { identity, token } = call.request as { identity?: unknown; token?: unknown };
    const attempted = attemptedIdentity(typeof identity === "string" ? identity : undefined, typeof token === "string" ? token : "");
    deps.limits.authAllowed(address, attempted);
    try {
      return await entry.handler(call.request, publicContext(call.signal));
    } catch (e) {
      spendOnRefusal(deps.limits, address, attempted, e);
      throw e;
    }
  }

  return {
    async invoke(call) {
      const entry = entries.get(call.method);
      if (!entry) throw new Error(`no handler for ${call.method.parent.typeName}/${call.method.name}`);
      call.record.rpc = `${call.method.parent.typeName}/${call.method.name}`;
      if (call.record.addressCounted !== true) deps.limits.address(call.record.address);
      // Malformed input, as REST's decoding refuses it: before the token, and before any store read.
      entry.refuseNul(call.request);
      // An RPC taking an upstream token is guessed at like the HTTP exchange, and limited alike.
      if (entry.policy.credentials) return credentialsCall(entry, call);
      if (entry.policy.public) return entry.handler(call.request, publicContext(call.signal));
      const principal = await authenticate(deps, call.authorization);
      call.record.caller = principal.uid;
      deps.limits.identity(principal.uid);
      // Read for every call, scoped or not: it is also where a deleted identity's token ends.
      const permissions = await deps.authorizer.callerPermissions(principal.uid);
      if (permissions === undefined) throw unauthenticated("TOKEN_IDENTITY_GONE");
      const ctx: CallContext = { principal, permissions: constantly(permissions), signal: call.signal };
      const scope = entry.scope ? scopeOf(entry.scope, call.request) : "";
      if (entry.scope && !(await ctx.permissions()).allows(entry.capabilities, scope)) throw denied(entry.capabilities, scope);
      if (!entry.mutation) return entry.handler(call.request, ctx);
      // Permissions were read before the transaction opens: read inside it, they could be
      // remembered from a change that then rolls back (see Authorizer).
      const { getter } = entry.mutation;
      return deps.atomically(async (tx) => {
        const before = actionOf(entry.method.name) === "create" ? undefined : await readBefore(getter, scope, ctx);
        const response = await entry.handler(call.request, ctx);
        // The one place no escalation is enforced: whatever the call wrote, through whichever
        // service or store, it commits only if the caller holds everything it hands out.
        await deps.guard.check({ uid: principal.uid, permissions: await ctx.permissions() }, tx.authorityChanges);
        await deps.audit.record({ method: entry.method, principal, scope, response, ...(before && { before }) });
        return response;
      });
    },
  };
}

/**
 * A function answering value. Made here rather than as an arrow in a property of invoke()'s
 * context: the bundle keeps function names (scripts/bundle-cli.mjs, keepNames), which for a
 * named arrow is an Object.defineProperty on every call (1 % of an authenticated GET's CPU).
 */
function constantly<T>(value: T): () => Promise<T> {
  const answer = Promise.resolve(value);
  return () => answer;
}

/** Whether an RPC changes something: not an HTTP GET, nor declared free of side effects. */
function isMutation(method: DescMethod): boolean {
  if (method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS) return false;
  return hasOption(method, http) && getOption(method, http).pattern.case !== "get";
}

/** `GetX` of the service of `UpdateX` / `DeleteX`, when it takes a uid. */
function getterOf(method: DescMethod, entries: ReadonlyMap<DescMethod, Entry>): Entry | undefined {
  const resource = method.name.replace(/^[A-Z][a-z]*/, "");
  const get = method.parent.methods.find((m) => m.name === `Get${resource}`);
  if (get === undefined || !get.input.fields.some((f) => f.name === "uid" && f.fieldKind === "scalar")) return undefined;
  return entries.get(get);
}

/** The resource before a change, read as the caller; undefined when it cannot be read. */
async function readBefore(
  getter: Entry | undefined,
  uid: string,
  ctx: CallContext,
): Promise<{ schema: DescMessage; message: Message } | undefined> {
  if (getter === undefined || uid === "") return undefined;
  try {
    return { schema: getter.method.output, message: await getter.handler(create(getter.method.input, { uid } as never), ctx) };
  } catch {
    // Missing or unreadable: the change itself will say why, and the event has no before.
    return undefined;
  }
}

function entryFor(method: DescMethod, binding: ServiceBinding): Entry {
  const handler = binding.handlers.get(method.localName);
  if (!handler) throw new Error(`${method.parent.typeName}/${method.name} has no implementation`);
  if (!hasOption(method, authz)) throw new Error(`${method.parent.typeName}/${method.name} declares no authorization policy`);
  const policy = getOption(method, authz);
  const entry: Entry = { method, handler, refuseNul: createNulRefusal(method), policy, capabilities: [...policy.capabilities] };
  if (policy.scopeField !== "") {
    const path = resolvePath(method.input, policy.scopeField);
    const last = path[path.length - 1] as DescField;
    const behaviors = getOption(last, field_behavior);
    const required = behaviors.includes(FieldBehavior.REQUIRED) || behaviors.includes(FieldBehavior.IDENTIFIER);
    entry.scope = { path, label: last.name, required };
  } else if (!policy.unscoped && !policy.public) {
    throw new Error(`${method.parent.typeName}/${method.name}: authz must be public, unscoped or name a scope_field`);
  }
  return entry;
}

function resolvePath(message: DescMessage, dotted: string): DescField[] {
  const out: DescField[] = [];
  let current: DescMessage | undefined = message;
  for (const name of dotted.split(".")) {
    const field: DescField | undefined = current?.fields.find((f) => f.name === name);
    if (!field) throw new Error(`${message.typeName} has no field ${dotted}`);
    out.push(field);
    current = field.fieldKind === "message" ? field.message : undefined;
  }
  return out;
}

function scopeOf(scope: NonNullable<Entry["scope"]>, request: Message): string {
  let value: unknown = request;
  for (const f of scope.path) value = (value as Record<string, unknown> | undefined)?.[f.localName];
  const uid = typeof value === "string" ? value : "";
  if (uid === "") {
    if (scope.required) throw invalidArgument(scope.label, "is required");
    return "";
  }
  return requireUid(scope.label, uid);
}

async function authenticate(deps: InvokerDeps, header: string | undefined): Promise<Principal> {
  if (header === undefined || header.trim() === "") {
    throw unauthenticated("BEARER_MISSING");
  }
  // The one reading of the header every endpoint shares (RFC 6750: the scheme, spaces or tabs, the token).
  const token = bearerToken(header);
  if (token === undefined) throw unauthenticated("BEARER_MALFORMED");
  const claims = await deps.tokens.verify(token, deps.audience());
  return { uid: claims.sub, claims };
}

function denied(caps: readonly Capability[], scope: string) {
  const names = caps.map(capabilityName).join(", ");
  if (scope === "") return permissionDenied("this caller may not create organizations");
  return permissionDenied(`the caller lacks ${names} on ${scope}`);
}

function publicContext(signal: AbortSignal): CallContext {
  return {
    principal: undefined,
    permissions: () => Promise.reject(new Error("a public RPC has no permissions")),
    signal,
  };
}
