/**
 * The outbox (`event_outbox`, migrations 0021 and 0023): one row per change, written in the
 * change's transaction by one insert, read by delivery in (xid, position) order, pruned once
 * delivered. On SQLite xid is always 0, so that order is the rowid's and needs no index (the
 * time index alone stays, for pruning and replay), and a position is one more than the greater
 * of the last one and the floor pruning leaves (`event_outbox_floor`): none is given twice, and
 * an insert writes no `sqlite_sequence` row as AUTOINCREMENT did.
 */
import { sql, type Expression, type Selectable, type SqlBool } from "kysely";
import type { OutboxPosition } from "../domain/event-subscriptions.js";
import type { OutboxEvent, Reach, StoredEvent } from "../domain/events.js";
import type { EventOutboxTable, Executor } from "./tables.js";
import { compiledOnce } from "./compiled-query.js";
import type { Engine } from "./dialect.js";
import { selfOrBelow } from "./hierarchy-filter.js";
import { guard } from "./translate-error.js";

export interface EventOutboxStore {
  /** Writes an event (in the surrounding transaction, when there is one). */
  insert(event: OutboxEvent): Promise<void>;
  /** Up to limit events of reach after cursor, in delivery order: only those no later write can precede. */
  after(cursor: OutboxPosition, reach: Reach, limit: number): Promise<StoredEvent[]>;
  /**
   * The place just before the first event of reach (in delivery order) at or after a time, or
   * before the event with an id; undefined when the outbox holds none.
   */
  before(reach: Reach, from: { time: number } | { id: string }): Promise<OutboxPosition | undefined>;
  /** The place of the last event in the outbox, (0, 0) when it is empty. */
  end(): Promise<OutboxPosition>;
  /** How many events of reach lie after cursor. */
  pending(cursor: OutboxPosition, reach: Reach): Promise<number>;
  /**
   * Deletes events older than keepAfter that every subscription is done with, and any older than
   * dropBefore (given up on anyway); how many.
   */
  prune(keepAfter: number, dropBefore: number): Promise<number>;
}

/** The outbox over an executor. */
export function createEventOutboxStore(db: Executor, engine: Engine): EventOutboxStore {
  const postgres = engine === "postgres";
  // On PostgreSQL, rows of transactions still open (and of those after them) are left for a
  // later read: one of them could commit with a place before what this read returns.
  const settled: Expression<SqlBool> = postgres
    ? sql<SqlBool>`xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint`
    : sql<SqlBool>`1 = 1`;
  // On SQLite xid is always 0: position alone, the rowid, so a read is a range of the table itself.
  const afterCursor = (c: OutboxPosition) =>
    postgres ? sql<SqlBool>`(xid, position) > (${c.xid}, ${c.position})` : sql<SqlBool>`position > ${c.position}`;
  const within = (r: Reach) => (r.includeDescendants ? selfOrBelow("group_uid", r.groupUid) : sql<SqlBool>`group_uid = ${r.groupUid}`);
  // Built and compiled once: a create's insert is the one statement of this store on its path.
  const insertRow = compiledOnce(db, () =>
    db.insertInto("event_outbox").values({
      ...(!postgres && {
        position: sql<number>`max(coalesce((select max(position) from event_outbox), 0), (select position from event_outbox_floor)) + 1`,
      }),
      id: "",
      type: "",
      subject: "",
      group_uid: "",
      time: 0,
      read_caps: "",
      data: "",
    }),
  );

  return {
    async insert(e) {
      await guard(() => insertRow(e.id, e.type, e.subject, e.groupUid, e.time, e.readCaps.join(","), JSON.stringify(e.data)));
    },

    async after(cursor, reach, limit) {
      const rows = await guard(() =>
        db
          .selectFrom("event_outbox")
          .selectAll()
          .where((eb) => eb.and([afterCursor(cursor), within(reach), settled]))
          .$call((q) => (postgres ? q.orderBy("xid") : q))
          .orderBy("position")
          .limit(limit)
          .execute(),
      );
      return rows.map(toEvent);
    },

    async before(reach, from) {
      const row = await guard(() =>
        db
          .selectFrom("event_outbox")
          .select(["xid", "position"])
          .where((eb) => eb.and([within(reach), "time" in from ? eb("time", ">=", from.time) : eb("id", "=", from.id)]))
          .$call((q) => (postgres ? q.orderBy("xid") : q))
          .orderBy("position")
          .limit(1)
          .executeTakeFirst(),
      );
      return row && { xid: Number(row.xid), position: Number(row.position) - 1 };
    },

    async end() {
      const row = await guard(() =>
        db
          .selectFrom("event_outbox")
          .select(["xid", "position"])
          .$call((q) => (postgres ? q.orderBy("xid", "desc") : q))
          .orderBy("position", "desc")
          .limit(1)
          .executeTakeFirst(),
      );
      return row ? { xid: Number(row.xid), position: Number(row.position) } : { xid: 0, position: 0 };
    },

    async pending(cursor, reach) {
      const row = await guard(() =>
        db
          .selectFrom("event_outbox")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where((eb) => eb.and([afterCursor(cursor), within(reach)]))
          .executeTakeFirstOrThrow(),
      );
      return Number(row.n);
    },

    async prune(keepAfter, dropBefore) {
      // Done: no subscription whose reach holds the event has yet to pass it.
      const done = sql<SqlBool>`not exists (
        select 1 from event_subscriptions s
        where (s.cursor_xid, s.cursor_position) < (event_outbox.xid, event_outbox.position)
          and (event_outbox.group_uid = s.parent_uid
            or (s.include_descendants = 1
              and event_outbox.group_uid > (s.parent_uid || '/') and event_outbox.group_uid < (s.parent_uid || '0'))))`;
      const prune = (tx: Executor) =>
        tx
          .deleteFrom("event_outbox")
          .where((eb) => eb.or([eb.and([eb("time", "<", keepAfter), done]), eb("time", "<", dropBefore)]))
          .executeTakeFirst();
      // SQLite: when the prune drops anything, the floor is raised to the last position given
      // before it, in the same transaction, so the next insert takes a position after it even if
      // this empties the outbox. A prune that drops nothing writes nothing (an idle server's
      // store stays as it is between prunes).
      const pruneAboveFloor = async (tx: Executor) => {
        const last = await tx
          .selectFrom("event_outbox")
          .select((eb) => eb.fn.max<number | null>("position").as("position"))
          .executeTakeFirstOrThrow();
        const pruned = await prune(tx);
        if (Number(pruned.numDeletedRows) > 0)
          await sql`update event_outbox_floor set position = max(position, ${Number(last.position ?? 0)}) where id = 1`.execute(tx);
        return pruned;
      };
      const result = await guard(() =>
        postgres ? prune(db) : db.isTransaction ? pruneAboveFloor(db) : db.transaction().execute(pruneAboveFloor),
      );
      return Number(result.numDeletedRows);
    },
  };
}

function toEvent(row: Selectable<EventOutboxTable>): StoredEvent {
  return {
    at: { xid: Number(row.xid), position: Number(row.position) },
    id: row.id,
    type: row.type,
    subject: row.subject,
    groupUid: row.group_uid,
    time: row.time,
    readCaps: row.read_caps === "" ? [] : row.read_caps.split(","),
    data: JSON.parse(row.data) as OutboxEvent["data"],
  };
}
