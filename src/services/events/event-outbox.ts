/**
 * The outbox's write side (docs/events.md): every change made through the API writes, after its
 * audit event and in the same transaction, one CloudEvent built from that audit event, so the
 * event shows exactly what the audit log does (debug_redact fields never written) and no change
 * commits without it. The registry index writes its own (registryEvent) in its repo's transaction.
 */
import { getOption, hasOption, type DescMethod } from "@bufbuild/protobuf";
import { authz } from "../../gen/arbor/api/v1/authz_pb.js";
import type { AuditEventRecord } from "../../domain/audit.js";
import { capabilityByName, capabilityName } from "../../domain/capabilities.js";
import { EVENT_TYPE_PREFIX, pastTense, snakeResource, type OutboxEvent } from "../../domain/events.js";
import { isUid, parentOf } from "../../domain/uid.js";
import type { Store } from "../../store/store.js";
import type { AuditTrail } from "../audit/audit-trail.js";

/** The audit trail, each change also written to the outbox. */
export function withEvents(trail: AuditTrail, store: Pick<Store, "outbox">): AuditTrail {
  return {
    async record(call) {
      const audit = await trail.record(call);
      await store.outbox.insert(eventOfChange(call.method, audit));
      return audit;
    },
  };
}

/** The CloudEvent of a change the audit event records. */
export function eventOfChange(method: DescMethod, audit: AuditEventRecord): OutboxEvent {
  const { actor } = audit;
  // v1 resources name their uid `id`; the audit event then records the scope instead.
  const subject = uidIn(audit.after) ?? uidIn(audit.before) ?? audit.resourceUid;
  return {
    id: audit.uid,
    type: eventType(method),
    subject,
    groupUid: groupOf(audit.resourceType, subject),
    time: audit.createTime,
    readCaps: readCapsOf(method),
    data: {
      actor: {
        subject: actor.uid,
        ...(actor.upstreamIssuer !== undefined && { act: { iss: actor.upstreamIssuer, sub: actor.upstreamSubject } }),
      },
      // A delete answers nothing: its event carries the resource as it was, when it could be read.
      body: audit.after ?? audit.before ?? { uid: audit.resourceUid },
    },
  };
}

/** `dev.arbor.api.<area>.<resource>.<verb, past tense>.v1`: `CreateGroup` of arbor.iam.v2beta1 is `dev.arbor.api.iam.group.created.v1`. */
export function eventType(method: DescMethod): string {
  const area = method.parent.file.proto.package.split(".")[1] ?? "";
  const [, verb = "", resource = ""] = /^([A-Z][a-z]*)(.*)$/.exec(method.name) ?? [];
  return `${EVENT_TYPE_PREFIX}${area}.${snakeResource(resource)}.${pastTense(verb)}.v1`;
}

/**
 * The group a change lies in: a group itself, anything else its parent (a group, or a repo for
 * what lives in one); an organization, or a root-level identity, itself.
 */
function groupOf(resourceType: string, uid: string): string {
  if (/\.Group$/.test(resourceType)) return uid;
  return parentOf(uid) ?? uid;
}

function uidIn(json: Record<string, unknown> | undefined): string | undefined {
  for (const key of ["uid", "id"]) {
    const value = json?.[key];
    if (typeof value === "string" && isUid(value)) return value;
  }
  return undefined;
}

const readCaps = new WeakMap<DescMethod, string[]>();

/**
 * What a subscription's creator must hold at the resource to receive its changes: what reading
 * it takes (the capabilities the Get, else the List, of the same resource in the same service
 * declares); where neither declares any (roles: their service checks), the `.list` of each
 * family the change itself required (`roles.create` makes `roles.list`), else that capability.
 */
function readCapsOf(method: DescMethod): string[] {
  let caps = readCaps.get(method);
  if (caps === undefined) {
    const resource = method.name.replace(/^[A-Z][a-z]*/, "");
    const declared = (m: DescMethod | undefined) => (m !== undefined && hasOption(m, authz) ? getOption(m, authz).capabilities : []);
    const readers = [`Get${resource}`, `List${resource}s`].map((name) => declared(method.parent.methods.find((m) => m.name === name)));
    caps = readers.find((c) => c.length > 0)?.map(capabilityName) ?? declared(method).map(capabilityName).map(listOfFamily);
    readCaps.set(method, caps);
  }
  return caps;
}

function listOfFamily(cap: string): string {
  const list = cap.replace(/\.[a-z_]+$/, ".list");
  return capabilityByName(list) !== undefined ? list : cap;
}

/** What a registry event's CloudEvent needs. */
export interface RegistryChange {
  id: string;
  kind: "push" | "delete";
  repoUid: string;
  groupUid: string;
  /** The notification as the registry index read it. */
  body: { repository: string; tag?: string; digest?: string; time: number };
}

/** The CloudEvent of a registry push or delete that changed the index: `dev.arbor.api.registry.<push|delete>.v1`. */
export function registryEvent(change: RegistryChange): OutboxEvent {
  const { time, ...rest } = change.body;
  return {
    id: change.id,
    type: `${EVENT_TYPE_PREFIX}registry.${change.kind}.v1`,
    subject: change.repoUid,
    groupUid: change.groupUid,
    time,
    readCaps: ["tag.list"],
    data: { actor: { subject: "registry" }, body: { ...rest, time: new Date(time).toISOString() } },
  };
}
