/**
 * Audit retention (ARBOR_AUDIT_RETENTION): the server deletes events older than the retention,
 * in batches of a bounded size, each in one transaction with its kept counts, so neither a
 * request nor the store waits long behind it. Only the replica that leads sweeps (Store.leads);
 * were two to sweep at once, deleting what another deleted already is deleting nothing.
 */
import type { Logger } from "pino";
import type { Clock } from "../../domain/clock.js";
import { startPeriodic, type Gate, type Periodic } from "../../domain/periodic.js";
import type { AuditStore } from "../../store/audit-store.js";

/** Events deleted per transaction. */
export const RETENTION_BATCH = 1_000;
/** How often a replica sweeps. */
export const RETENTION_INTERVAL_MS = 60 * 60 * 1000;

/** Deletes every event created more than retentionMs before now, batch by batch; how many. */
export async function sweepAuditLog(
  audit: AuditStore,
  clock: Clock,
  retentionMs: number,
  batch = RETENTION_BATCH,
  signal?: AbortSignal,
): Promise<number> {
  const cutoff = clock.now() - retentionMs;
  let deleted = 0;
  for (;;) {
    const n = await audit.deleteBefore(cutoff, batch);
    deleted += n;
    if (n < batch || signal?.aborted === true) break;
  }
  // Each batch added its decrements beside the counts; one fold keeps counts cheap to read.
  if (deleted > 0) await audit.foldCounts();
  return deleted;
}

/**
 * Sweeps now and then every RETENTION_INTERVAL_MS while gate allows; undefined when retentionMs
 * is undefined (keep everything).
 */
export function startAuditRetention(
  audit: AuditStore,
  clock: Clock,
  retentionMs: number | undefined,
  logger: Logger,
  gate?: Gate,
): Periodic | undefined {
  if (retentionMs === undefined) return undefined;
  return startPeriodic(
    async (signal) => {
      const deleted = await sweepAuditLog(audit, clock, retentionMs, RETENTION_BATCH, signal);
      if (deleted > 0) logger.info({ deleted, retentionMs }, "audit events past retention deleted");
    },
    RETENTION_INTERVAL_MS,
    (e) => logger.warn({ err: e }, "audit retention sweep failed; trying again at the next interval"),
    gate,
  );
}
