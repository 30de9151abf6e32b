/**
 * The audit log's records: one change made through the API, who made it and the resource before
 * and after, and how the list sorts them (newest first by default).
 */
import type { HierarchyFilter } from "./hierarchy.js";
import type { Sortable } from "./list.js";

/** One change. */
export interface AuditEventRecord {
  /** `<group uid>/<16 hex>`: under the group the change was made in. */
  uid: string;
  createTime: number;
  actor: { uid: string; upstreamIssuer?: string; upstreamSubject?: string };
  /** `package.Service/Method`. */
  method: string;
  /** `create`, `update`, `delete`, or another verb. */
  action: string;
  resourceType: string;
  resourceUid: string;
  /** The resource as the API showed it (proto3 JSON), or undefined. */
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}

/** What a list of events is narrowed by. */
export interface AuditFilter {
  uidp: HierarchyFilter;
  actorUid?: string;
  resourceUid?: string;
  method?: string;
  /** Only events created at or after this time (ms). */
  createdSince?: number;
  /** Only events created before this time (ms): what a retention would drop (`arbor admin audit --before`). */
  createdBefore?: number;
  /** The uids whose subtrees the caller may see; undefined means everything. */
  visibleUnder?: readonly string[];
}

/** Sortable fields of audit events; newest first by default. */
export const auditSortable: Sortable = {
  fields: { create_time: "create_time", createTime: "create_time", time: "create_time", uid: "uid" },
  defaultOrder: [{ field: "create_time", desc: true }],
};

/** The value of an event's sort field. */
export function auditSortValue(record: AuditEventRecord, field: string): string | number {
  if (field === "create_time") return record.createTime;
  if (field === "uid") return record.uid;
  throw new RangeError(`audit events are not sortable by ${field}`);
}

/** The action a method's name says: its leading verb, lowercased (`UpdateGroup` is `update`). */
export function actionOf(methodName: string): string {
  const verb = /^[A-Z][a-z]*/.exec(methodName)?.[0] ?? methodName;
  return verb.toLowerCase();
}
