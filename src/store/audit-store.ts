/**
 * The audit log in `audit_events`: inserted, listed and read, never changed, and deleted only
 * when older than the retention an operator set. Before and after are kept as JSON text, exactly
 * as the API showed the resource. Counts are read off `audit_event_counts` where they can be
 * (migration 0014, src/domain/audit-counts.ts).
 */
import { sql, type Expression, type SqlBool } from "kysely";
import { auditCountPlan, type AuditCountPlan } from "../domain/audit-counts.js";
import { pageRoot, walkIsCheaper } from "../domain/audit-pages.js";
import type { AuditEventRecord, AuditFilter } from "../domain/audit.js";
import { parentOf } from "../domain/uid.js";
import { type AuditEventsTable, type Executor } from "./tables.js";
import { inTransaction } from "./nested-transactions.js";
import { foldAuditCounts, type Engine } from "./dialect.js";
import { byMembership, FEW_SCOPES, rowsInSubtrees, strictlyBelow } from "./hierarchy-filter.js";
import { listConditions } from "./resource-filter.js";
import { resourceTable } from "./resource-table.js";
import { applyWindow } from "./row-window.js";
import { guard } from "./translate-error.js";
import type { RowWindow } from "./row-window.js";

/** A (group, key) pair's count rows are folded into one once a count reads this many more than pairs. */
const FOLD_AT = 64;

export interface AuditStore {
  /** Records one event. */
  insert(event: AuditEventRecord): Promise<void>;
  /** The event, or undefined. */
  get(uid: string): Promise<AuditEventRecord | undefined>;
  /** The events matching filter, in the window's order (fields: create_time, uid). */
  list(filter: AuditFilter, window: RowWindow): Promise<AuditEventRecord[]>;
  /** How many events match filter. */
  count(filter: AuditFilter): Promise<number>;
  /**
   * Deletes up to limit of the oldest events created before time, in one transaction with their
   * counts; how many it deleted.
   */
  deleteBefore(time: number, limit: number): Promise<number>;
  /** Folds every (group, key) pair's count rows that have piled up. */
  foldCounts(): Promise<void>;
}

/**
 * A filter with how its page is read: walking in time order the (root_uid, create_time, uid)
 * index of a root (0014), or with `root` undefined the whole log's (create_time, uid) index.
 */
interface PageFilter extends AuditFilter {
  walk?: { root: string | undefined };
}

/** How a page is read: by walking (PageFilter), by gathering many subtrees' uid ranges, or by the filter's own ranges. */
type PageRead = { walk: { root: string | undefined } } | { gather: readonly string[] } | undefined;

/** The audit store over an executor. */
export function createAuditStore(db: Executor, engine: Engine): AuditStore {
  const table = resourceTable(db, engine, {
    table: "audit_events",
    toRecord: toEvent,
    matching: (f: PageFilter) => [
      ...(f.walk !== undefined
        ? walkConditions(f, f.walk.root)
        : listConditions(
            { uidp: f.uidp, ...(f.visibleUnder !== undefined && { visibleUnder: f.visibleUnder }) },
            { uid: "uid", parent: "group_uid" },
            { actor_uid: f.actorUid, resource_uid: f.resourceUid, method: f.method },
          )),
      ...timeConditions(f),
    ],
    sortColumns: SORT_COLUMNS,
  });

  /** The events a plan counts, read off the kept counts. */
  async function kept(plan: AuditCountPlan): Promise<number> {
    if (plan.subtrees?.length === 0) return 0;
    if (plan.subtrees !== undefined && plan.subtrees.length > FEW_SCOPES) return keptInMany(plan.key, plan.subtrees);
    const where = countedRows(plan);
    const { total, rows, pairs } = await guard(() =>
      db
        .selectFrom("audit_event_counts")
        .select((eb) => [
          eb.fn.coalesce(eb.fn.sum<number>("delta"), eb.lit(0)).as("total"),
          eb.fn.countAll<number>().as("rows"),
          eb.fn.count<number>("group_uid").distinct().as("pairs"),
        ])
        .where(where)
        .executeTakeFirstOrThrow(),
    );
    if (Number(rows) - Number(pairs) > FOLD_AT && !db.isTransaction) {
      // The answer is right already; folding only makes the next count cheaper, so a fold that
      // fails (a busy store) is left for a later count to retry.
      await foldAuditCounts(db, engine, where).catch(() => undefined);
    }
    return Number(total);
  }

  /**
   * The events of key in many subtrees, read off the kept counts: one range of the (key,
   * group_uid) index per subtree, the subtrees a set bound as one parameter, so the statement keeps
   * one size and reads the subtrees' count rows, not every group's (nor, as an OR of ranges did,
   * past SQLite's expression depth for a caller with thousands of bindings). Nothing is folded
   * here: retention and the counts of fewer subtrees fold.
   */
  async function keptInMany(key: string, subtrees: readonly string[]): Promise<number> {
    const counts = rowsInSubtrees(engine, "audit_event_counts", "group_uid", subtrees, {
      where: (row) => sql<SqlBool>`${sql.ref(`${row}.key`)} = ${key}`,
    });
    const query = sql<{ total: number | string }>`select coalesce(sum(c.delta), 0) as total from (${counts}) as c`;
    const { rows } = await guard(() => query.execute(db));
    return Number(rows[0]?.total ?? 0);
  }

  /**
   * How a page is read: the root it walks in time order (src/domain/audit-pages.ts), the many
   * subtrees whose ranges it gathers, or undefined to read the filter's ranges. For a subtree
   * narrower than the root the kept counts decide, exactly: SQLite keeps no statistics unless
   * ANALYZE ran, and PostgreSQL's estimate of a uid prefix range was off fifty times on a
   * 40,000-event log (test/store/audit-pages.store.test.ts).
   */
  async function readFor(filter: AuditFilter, window: RowWindow): Promise<PageRead> {
    const page = pageRoot(filter, window.order[0]?.field);
    if (page === undefined) return undefined;
    const walk = { walk: { root: page.root } };
    if (!page.narrower) return walk;
    const inside = auditCountPlan(filter);
    if (inside === undefined) return undefined;
    const [subtree, root] = await Promise.all([
      kept(inside),
      kept(page.root === undefined ? { key: "" } : { key: "", subtrees: [page.root] }),
    ]);
    if (walkIsCheaper(subtree, root, window.offset + window.limit)) return walk;
    return inside.subtrees !== undefined && inside.subtrees.length > FEW_SCOPES ? { gather: inside.subtrees } : undefined;
  }

  /**
   * A page of the events of the subtrees (none below another): each subtree's uid range read
   * once, whole rows (rowsInSubtrees), then ordered and cut.
   * Only chosen when the kept counts say they hold few events (readFor).
   */
  async function gatheredPage(filter: AuditFilter, subtrees: readonly string[], window: RowWindow): Promise<AuditEventRecord[]> {
    const ranges = sql<AuditEventsTable>`(${rowsInSubtrees(engine, "audit_events", "uid", subtrees, { below: true })})`;
    let query = db.selectFrom(ranges.as("t")).selectAll();
    for (const condition of timeConditions(filter)) query = query.where(condition);
    const rows = await guard(() => applyWindow(query, window, sortColumn).execute());
    return rows.map((row) => toEvent(row as AuditEventsTable));
  }

  return {
    insert: (event) => table.insert(toRow(event)),
    get: table.get,
    list: async (filter, window) => {
      const read = await readFor(filter, window);
      if (read !== undefined && "gather" in read) return gatheredPage(filter, read.gather, window);
      return table.list({ ...filter, ...(read !== undefined && { walk: read.walk }) }, window);
    },

    count: (filter) => {
      const plan = auditCountPlan(filter);
      return plan === undefined ? table.count(filter) : kept(plan);
    },

    async deleteBefore(time, limit) {
      return guard(() =>
        inTransaction(db, async (tx) => {
          // The oldest first, by the (create_time, uid) index, so a batch reads what it deletes.
          const oldest = tx
            .selectFrom("audit_events")
            .select("uid")
            .where("create_time", "<", time)
            .orderBy("create_time")
            .orderBy("uid")
            .limit(limit);
          const { numDeletedRows } = await tx.deleteFrom("audit_events").where("uid", "in", oldest).executeTakeFirstOrThrow();
          return Number(numDeletedRows);
        }),
      );
    },

    foldCounts: () =>
      guard(() =>
        foldAuditCounts(
          db,
          engine,
          sql<SqlBool>`(group_uid, key) in (select group_uid, key from audit_event_counts group by group_uid, key having count(*) > 1)`,
        ),
      ),
  };
}

/**
 * The conditions of a page that walks root's events in time order (pageRoot: no exact filter, no
 * children_of or ids): the root, then the subtree and the caller's visibility as tests on each
 * walked event. Those tests are written so that no index serves them (the uid in an expression)
 * and no planner takes them for selective (a range inside coalesce() is an opaque boolean, which
 * PostgreSQL guesses keeps half the rows, where it guesses 0.5 % for a plain range): else either
 * engine reads the uid range and sorts it, or PostgreSQL sorts the root's events for a filter it
 * guesses keeps few of them. The kept counts have already judged the walk the cheaper.
 */
function walkConditions(f: AuditFilter, root: string | undefined): Expression<SqlBool>[] {
  const uid = sql<string>`(uid || '')`;
  const { descendantsOf } = f.uidp;
  const tops = f.visibleUnder;
  return [
    ...(root !== undefined ? [sql<SqlBool>`root_uid = ${root}`] : []),
    ...(descendantsOf !== undefined ? [walkedBelow(uid, descendantsOf)] : []),
    ...(tops !== undefined && (root === undefined || !tops.includes(root)) ? [walkedVisible(uid, tops)] : []),
  ];
}

/**
 * A walked event is visible: one test per scope for a few, a membership test on the uid's
 * prefixes for more (hierarchy-filter.ts), so a caller with thousands of scopes sends one
 * statement of one size; both on the uid expression, which no index serves.
 */
function walkedVisible(uid: Expression<string>, tops: readonly string[]): Expression<SqlBool> {
  if (tops.length > FEW_SCOPES) return byMembership(uid, tops);
  return sql<SqlBool>`(${sql.join(
    tops.map((top) => sql`(${uid} = ${top} or ${walkedBelow(uid, top)})`),
    sql` or `,
  )})`;
}

/** A walked event lies strictly below top: a range inside coalesce(), which no planner reads as one. */
function walkedBelow(uid: Expression<string>, top: string): Expression<SqlBool> {
  return sql<SqlBool>`coalesce(${uid} > ${`${top}/`} and ${uid} < ${`${top}0`}, false)`;
}

const SORT_COLUMNS = { create_time: "create_time", uid: "uid" } as const;

function sortColumn(field: string): string {
  if (field === "create_time" || field === "uid") return SORT_COLUMNS[field];
  throw new RangeError(`audit events are not sortable by ${field}`);
}

/** The filter's time bounds (created_since, created_before), whichever way its page is read. */
function timeConditions(f: AuditFilter): Expression<SqlBool>[] {
  return [
    ...(f.createdSince !== undefined ? [sql<SqlBool>`create_time >= ${f.createdSince}`] : []),
    ...(f.createdBefore !== undefined ? [sql<SqlBool>`create_time < ${f.createdBefore}`] : []),
  ];
}

/** The rows of audit_event_counts a plan sums. */
function countedRows(plan: AuditCountPlan): Expression<SqlBool> {
  const key = sql<SqlBool>`key = ${plan.key}`;
  if (plan.group !== undefined) return sql<SqlBool>`${key} and group_uid = ${plan.group}`;
  if (plan.subtrees === undefined) return key;
  const each = plan.subtrees.map((top) => sql<SqlBool>`(group_uid = ${top} or ${strictlyBelow("group_uid", top)})`);
  return sql<SqlBool>`${key} and (${sql.join(each, sql` or `)})`;
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
