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
import { auditEventMessage } from "../services/audit-service.js";
import { createStore } from "../store/create-store.js";
import { UsageError } from "./usage-error.js";
import { announceStore } from "./store-access.js";

/** Options of `arbor admin audit`. */
export interface AuditOptions {
  org?: string;
  actor?: string;
  resource?: string;
  method?: string;
  before?: string;
  export?: string;
  limit: string;
  output: string;
}

/** The events matching options, newest first, as JSON lines or a table. */
export async function adminAudit(config: Config, options: AuditOptions): Promise<string> {
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100_000) throw new UsageError("--limit must be a whole number from 1 to 100000");
  if (options.output !== "table" && options.output !== "json") throw new UsageError("--output must be table or json");
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
    const events = await store.audit.list(filter, { order: [{ field: "create_time", desc: true }, { field: "uid", desc: true }], offset: 0, limit });
    if (options.output === "json") {
      return events.map((e) => JSON.stringify(toApiJson(AuditEventSchema, auditEventMessage(e)))).join("\n");
    }
    const rows = events.map((e) => [new Date(e.createTime).toISOString(), e.actor.uid, e.action, e.resourceType.split(".").at(-1) ?? "", e.resourceUid]);
    return table(["TIME", "ACTOR", "ACTION", "TYPE", "RESOURCE"], rows);
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
    const order = [{ field: "create_time", desc: false }, { field: "uid", desc: false }];
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

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join("  ").trimEnd()).join("\n");
}
