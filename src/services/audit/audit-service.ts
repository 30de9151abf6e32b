/**
 * The audit log's read side (an Arbor extension): list and get events, each caller seeing the
 * events of the groups where they hold audit.read.
 */
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { auditSortable, auditSortValue, type AuditEventRecord } from "../../domain/audit.js";
import { Capability } from "../../domain/capabilities.js";
import { hierarchyFilter } from "../../domain/hierarchy.js";
import { requireUid } from "../../domain/uid.js";
import {
  AuditEventSchema,
  ListAuditEventsResponseSchema,
  type AuditEvent,
  type GetAuditEventRequest,
  type ListAuditEventsRequest,
} from "../../gen/arbor/audit/v1beta1/audit_pb.js";
import type { ServiceDeps } from "../deps.js";
import { found } from "../crud.js";
import { listRpc } from "../list-page.js";

/** An event as the API shows it. */
export function auditEventMessage(e: AuditEventRecord): AuditEvent {
  return create(AuditEventSchema, {
    uid: e.uid,
    createTime: timestampFromMs(e.createTime),
    actor: { uid: e.actor.uid, upstreamIssuer: e.actor.upstreamIssuer ?? "", upstreamSubject: e.actor.upstreamSubject ?? "" },
    method: e.method,
    action: e.action,
    resourceType: e.resourceType,
    resourceUid: e.resourceUid,
    ...(e.before !== undefined && { before: e.before as JsonObject }),
    ...(e.after !== undefined && { after: e.after as JsonObject }),
  });
}

/** The list filters of a request. */
function auditQuery(req: ListAuditEventsRequest) {
  return {
    uidp: hierarchyFilter(req.uidp),
    ...(req.actorUid !== "" && { actorUid: req.actorUid }),
    ...(req.resourceUid !== "" && { resourceUid: req.resourceUid }),
    ...(req.method !== "" && { method: req.method }),
    ...(req.createdSince !== undefined && { createdSince: timestampMs(req.createdSince) }),
    ...(req.createdBefore !== undefined && { createdBefore: timestampMs(req.createdBefore) }),
  };
}

export function createAuditService(deps: ServiceDeps) {
  const { store, pageTokens } = deps;
  return {
    listAuditEvents: listRpc(pageTokens, {
      resource: "audit events",
      sortable: auditSortable,
      sortValue: auditSortValue,
      source: () => store.audit,
      query: auditQuery,
      visibleWith: [Capability.CAP_AUDIT_READ],
      respond: (items, page) => create(ListAuditEventsResponseSchema, { events: items.map(auditEventMessage), ...page }),
    }),

    async getAuditEvent(req: GetAuditEventRequest): Promise<AuditEvent> {
      const uid = requireUid("uid", req.uid);
      return auditEventMessage(found(await store.audit.get(uid), "audit event", uid));
    },
  };
}
