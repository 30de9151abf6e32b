/**
 * The audit log's write side: for a change made through the API, one event with who made it,
 * what it was, and the resource before and after, as the API showed it, written by the invoker
 * in the change's own transaction. Fields marked `debug_redact` in the protos (invite codes,
 * client secrets) are never written.
 */
import { clone, type DescMessage, type DescMethod, type JsonValue, type Message } from "@bufbuild/protobuf";
import { actionOf, type AuditEventRecord } from "../../domain/audit.js";
import type { Clock } from "../../domain/clock.js";
import { newChildUid, type IdSource } from "../../domain/uid.js";
import type { Store } from "../../store/store.js";
import type { Principal } from "../context.js";

/** One successful change, as the call pipeline saw it. */
export interface AuditedCall {
  method: DescMethod;
  principal: Principal;
  /** The uid the call was authorized at (the parent on create, the resource otherwise); "" at the root. */
  scope: string;
  /** The resource before, when there was one and it could be read. */
  before?: { schema: DescMessage; message: Message };
  response: Message;
}

/** Records changes. */
export interface AuditTrail {
  /** Writes the event of a successful change; returns it. */
  record(call: AuditedCall): Promise<AuditEventRecord>;
}

/** The text written in place of a redacted field. */
export const REDACTED = "[redacted]";

/** How a message looks in the API's JSON (the transports' own mapping, so the log shows what clients saw). */
export type ApiJson = (schema: DescMessage, message: Message) => JsonValue;

/** The trail over the store. */
export function createAuditTrail(deps: { store: Store; clock: Clock; ids: IdSource }, json: ApiJson): AuditTrail {
  const redactedJson = (schema: DescMessage, message: Message): Record<string, unknown> => {
    const copy = clone(schema, message);
    redact(schema, copy as unknown as Record<string, unknown>);
    return json(schema, copy) as Record<string, unknown>;
  };
  return {
    async record(call) {
      const after = isEmpty(call.method.output) ? undefined : redactedJson(call.method.output, call.response);
      const before = call.before && redactedJson(call.before.schema, call.before.message);
      const resourceUid = stringField(after, "uid") ?? stringField(before, "uid") ?? call.scope;
      // An organization's creation is authorized at the root: it lies under the new organization.
      const under = call.scope !== "" ? call.scope : resourceUid;
      const upstream = call.principal.claims.act;
      const event: AuditEventRecord = {
        uid: newChildUid(deps.ids, under),
        createTime: deps.clock.now(),
        actor: {
          uid: call.principal.uid,
          ...(upstream !== undefined && { upstreamIssuer: upstream.iss, upstreamSubject: upstream.sub }),
        },
        method: `${call.method.parent.typeName}/${call.method.name}`,
        action: actionOf(call.method.name),
        resourceType: (isEmpty(call.method.output) ? call.before?.schema : call.method.output)?.typeName ?? "",
        resourceUid,
        ...(before !== undefined && { before }),
        ...(after !== undefined && { after }),
      };
      await deps.store.audit.insert(event);
      return event;
    },
  };
}

function isEmpty(schema: DescMessage): boolean {
  return schema.typeName === "google.protobuf.Empty";
}

function stringField(json: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = json?.[name];
  return typeof value === "string" && value !== "" ? value : undefined;
}

/** Replaces every debug_redact field of message (at any depth), in place. */
function redact(schema: DescMessage, message: Record<string, unknown>): void {
  for (const field of schema.fields) {
    const value = message[field.localName];
    if (value === undefined) continue;
    if (field.proto.options?.debugRedact === true) {
      if (field.fieldKind === "scalar" && typeof value === "string") message[field.localName] = REDACTED;
      else message[field.localName] = undefined;
      continue;
    }
    if (field.fieldKind === "message" && value !== null && typeof value === "object") {
      redact(field.message, value as Record<string, unknown>);
    } else if (field.fieldKind === "list" && field.listKind === "message") {
      for (const item of value as Record<string, unknown>[]) redact(field.message, item);
    }
  }
}
