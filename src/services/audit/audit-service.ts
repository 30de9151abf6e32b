/**
 * The audit log's read side (an Arbor extension): list and get events, each caller seeing the
 * events of the groups where they hold audit.read.
 */
import { create, type JsonObject } from "@bufbuild/protobuf";
import { timestampFromMs, timestampMs } from "@bufbuild/protobuf/wkt";
import { auditSortable, auditSortValue, type AuditEventRecord } from "../../domain/audit.js";
import { Capability } from "../../domain/capabilities.js";
import { notFound } from "../../domain/errors.js";
import { hierarchyFilter } from "../../domain/hierarchy.js";
import { requireUid } from "../../domain/uid.js";
import {
  AuditEventSchema,
  ListAuditEventsResponseSchema,
  type AuditEvent,
  type GetAuditEventRequest,
  type ListAuditEventsRequest,
  type ListAuditEventsResponse,
} from "../../gen/arbor/audit/v1beta1/audit_pb.js";
import type { CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { listing } from "../list-page.js";

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

export function createAuditService(deps: ServiceDeps) {
  const { store, pageTokens } = deps;
  const auditListing = listing({
    resource: "audit events",
    sortable: auditSortable,
    sortValue: auditSortValue,
    source: () => store.audit,
    tokens: pageTokens,
  });
  return {
    async listAuditEvents(req: ListAuditEventsRequest, ctx: CallContext): Promise<ListAuditEventsResponse> {
      const query = {
        uidp: hierarchyFilter(req.uidp),
        ...(req.actorUid !== "" && { actorUid: req.actorUid }),
        ...(req.resourceUid !== "" && { resourceUid: req.resourceUid }),
        ...(req.method !== "" && { method: req.method }),
        ...(req.createdSince !== undefined && { createdSince: timestampMs(req.createdSince) }),
        ...(req.createdBefore !== undefined && { createdBefore: timestampMs(req.createdBefore) }),
      };
      const visibleUnder = (await ctx.permissions()).scopes([Capability.CAP_AUDIT_READ]);
      const { items, ...envelope } = await auditListing.page(req, query, visibleUnder);
      return create(ListAuditEventsResponseSchema, { events: items.map(auditEventMessage), ...envelope });
    },

    async getAuditEvent(req: GetAuditEventRequest): Promise<AuditEvent> {
      const uid = requireUid("uid", req.uid);
      const event = await store.audit.get(uid);
      if (!event) throw notFound("audit event", uid);
      return auditEventMessage(event);
    },
  };
}
