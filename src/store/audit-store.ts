/**
 * The audit log in `audit_events`: inserted, listed and read, never changed. Before and after
 * are kept as JSON text, exactly as the API showed the resource.
 */
import type { AuditEventRecord, AuditFilter } from "../domain/audit.js";
import { parentOf } from "../domain/uid.js";
import type { AuditEventsTable, Executor } from "./database.js";
import { listConditions } from "./resource-filter.js";
import { resourceTable } from "./resource-table.js";
import type { RowWindow } from "./types.js";

/** The audit log. */
export interface AuditStore {
  /** Records one event. */
  insert(event: AuditEventRecord): Promise<void>;
  /** The event, or undefined. */
  get(uid: string): Promise<AuditEventRecord | undefined>;
  /** The events matching filter, in the window's order (fields: create_time, uid). */
  list(filter: AuditFilter, window: RowWindow): Promise<AuditEventRecord[]>;
  /** How many events match filter. */
  count(filter: AuditFilter): Promise<number>;
}

/** The audit store over an executor. */
export function createAuditStore(db: Executor): AuditStore {
  const table = resourceTable(db, {
    table: "audit_events",
    toRecord: toEvent,
    matching: (f: AuditFilter) =>
      listConditions(
        { uidp: f.uidp, ...(f.visibleUnder !== undefined && { visibleUnder: f.visibleUnder }) },
        { uid: "uid", parent: "group_uid" },
        { actor_uid: f.actorUid, resource_uid: f.resourceUid, method: f.method },
      ),
    sortColumns: { create_time: "create_time", uid: "uid" },
  });
  return {
    insert: (event) => table.insert(toRow(event)),
    get: table.get,
    list: table.list,
    count: table.count,
  };
}

function toRow(e: AuditEventRecord): AuditEventsTable {
  const { uid: actorUid, ...upstream } = e.actor;
  return {
    uid: e.uid,
    group_uid: parentOf(e.uid) ?? e.uid,
    create_time: e.createTime,
    actor_uid: actorUid,
    actor: JSON.stringify(upstream),
    method: e.method,
    action: e.action,
    resource_type: e.resourceType,
    resource_uid: e.resourceUid,
    before: e.before === undefined ? null : JSON.stringify(e.before),
    after: e.after === undefined ? null : JSON.stringify(e.after),
  };
}

function toEvent(row: AuditEventsTable): AuditEventRecord {
  return {
    uid: row.uid,
    createTime: row.create_time,
    actor: { uid: row.actor_uid, ...(JSON.parse(row.actor) as { upstreamIssuer?: string; upstreamSubject?: string }) },
    method: row.method,
    action: row.action,
    resourceType: row.resource_type,
    resourceUid: row.resource_uid,
    ...(row.before !== null && { before: JSON.parse(row.before) as Record<string, unknown> }),
    ...(row.after !== null && { after: JSON.parse(row.after) as Record<string, unknown> }),
  };
}
