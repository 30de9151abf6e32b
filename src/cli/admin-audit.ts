/**
 * `arbor admin audit`: reads the audit log straight from the store, newest first, for operators
 * who hold the data directory or the database rather than an owner's token.
 */
import { open } from "node:fs/promises";
import type { Config } from "../config.js";
import type { AuditEventRecord, AuditFilter } from "../domain/audit.js";
import { isUid } from "../domain/uid.js";
import { AuditEventSchema } from "../gen/arbor/audit/v1beta1/audit_pb.js";
import { toApiJson } from "../server/rest/json.js";
import { auditEventMessage } from "../services/audit/audit-service.js";
import { createStore } from "../store/create-store.js";
import { readableTime } from "./output/cells.js";
import { renderTable, type Column } from "./output/table.js";
import { announceStore } from "./store-access.js";
import { UsageError } from "./usage-error.js";

/** Options of `arbor admin audit`. */
export interface AuditOptions {
  org?: string;
  actor?: string;
  resource?: string;
  method?: string;
  before?: string;
  export?: string;
  limit: string;
  /** table, wide or json; the action defaults it by where stdout goes. */
  output?: string;
  /** The columns a table may take (output/io.ts tableWidth); undefined for no limit. */
  width?: number;
}

/** The events matching options, newest first, as JSON lines or a table. */
export async function adminAudit(config: Config, options: AuditOptions): Promise<string> {
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) throw new UsageError("--limit must be a whole number from 1 to 100000");
  const output = options.output ?? "json";
  if (output !== "table" && output !== "wide" && output !== "json") throw new UsageError("--output must be table, wide or json");
  await announceStore(config, "existing");
  const store = await createStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.databaseSchema });
  try {
    let orgUid: string | undefined;
    if (options.org !== undefined) {
      orgUid = isUid(options.org) ? options.org : (await store.groups.findOrganization(options.org))?.uid;
      if (orgUid === undefined) throw new UsageError(`no organization named "${options.org}"`);
    }
    const filter: AuditFilter = {
      uidp: orgUid === undefined ? {} : { descendantsOf: orgUid },
      ...(options.actor !== undefined && { actorUid: options.actor }),
      ...(options.resource !== undefined && { resourceUid: options.resource }),
      ...(options.method !== undefined && { method: options.method }),
      ...(options.before !== undefined && { createdBefore: timeOf(options.before) }),
    };
    if (options.export !== undefined) return `exported ${await exportEvents(store, filter, options.export)} events to ${options.export}`;
    const events = await store.audit.list(filter, {
      order: [
        { field: "create_time", desc: true },
        { field: "uid", desc: true },
      ],
      offset: 0,
      limit,
    });
    if (output === "json") {
      return events.map((e) => JSON.stringify(toApiJson(AuditEventSchema, auditEventMessage(e)))).join("\n");
    }
    return renderTable(AUDIT_COLUMNS, events, { width: options.width, wide: output === "wide" }).trimEnd();
  } finally {
    await store.close();
  }
}

/** RFC 3339 time to milliseconds. */
function timeOf(text: string): number {
  const ms = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(ms)) throw new UsageError(`--before must be an RFC 3339 time such as 2026-01-01T00:00:00Z (got "${text}")`);
  return ms;
}

/** Pages of the export: keyset windows of this many events, so memory stays bounded at any size. */
const EXPORT_PAGE = 1_000;

/** Writes every event matching filter, oldest first, as JSON lines to a new file; how many. */
async function exportEvents(store: Awaited<ReturnType<typeof createStore>>, filter: AuditFilter, path: string): Promise<number> {
  // "wx": never overwrite (an earlier export, or a file someone else placed there).
  const file = await open(path, "wx", 0o600).catch((e: unknown) => {
    if ((e as { code?: string }).code === "EEXIST") throw new UsageError(`${path} exists: export to a new file`);
    throw e;
  });
  let written = 0;
  try {
    const order = [
      { field: "create_time", desc: false },
      { field: "uid", desc: false },
    ];
    let after: (string | number)[] | undefined;
    for (;;) {
      const events = await store.audit.list(filter, { order, ...(after !== undefined && { after }), offset: 0, limit: EXPORT_PAGE });
      if (events.length === 0) break;
      await file.write(events.map((e) => `${JSON.stringify(toApiJson(AuditEventSchema, auditEventMessage(e)))}\n`).join(""));
      written += events.length;
      const last = events[events.length - 1] as AuditEventRecord;
      after = [last.createTime, last.uid];
    }
  } finally {
    await file.close();
  }
  return written;
}

/** The audit table: times as every table shows them, uids shortened as in every list. */
const AUDIT_COLUMNS: Column<AuditEventRecord>[] = [
  { header: "TIME", value: (e) => readableTime(new Date(e.createTime).toISOString()), kind: "fixed" },
  { header: "ACTOR", value: (e) => e.actor.uid, kind: "uid", priority: 1 },
  { header: "ACTION", value: (e) => e.action },
  { header: "TYPE", value: (e) => e.resourceType.split(".").at(-1) ?? "", priority: 2 },
  { header: "RESOURCE", value: (e) => e.resourceUid, kind: "uid" },
];
