/**
 * The outbox (`event_outbox`, migration 0021): one row per change, written in the change's
 * transaction by one insert, read by delivery in (xid, position) order, pruned once delivered.
 */
import { sql, type Expression, type Selectable, type SqlBool } from "kysely";
import type { OutboxPosition } from "../domain/event-subscriptions.js";
import type { OutboxEvent, Reach, StoredEvent } from "../domain/events.js";
import type { EventOutboxTable, Executor } from "./tables.js";
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
  // On PostgreSQL, rows of transactions still open (and of those after them) are left for a
  // later read: one of them could commit with a place before what this read returns.
  const settled: Expression<SqlBool> =
    engine === "postgres" ? sql<SqlBool>`xid < pg_snapshot_xmin(pg_current_snapshot())::text::bigint` : sql<SqlBool>`1 = 1`;
  const afterCursor = (c: OutboxPosition) => sql<SqlBool>`(xid, position) > (${c.xid}, ${c.position})`;
  const within = (r: Reach) => (r.includeDescendants ? selfOrBelow("group_uid", r.groupUid) : sql<SqlBool>`group_uid = ${r.groupUid}`);

  return {
    async insert(e) {
      await guard(() =>
        db
          .insertInto("event_outbox")
          .values({
            id: e.id,
            type: e.type,
            subject: e.subject,
            group_uid: e.groupUid,
            time: e.time,
            read_caps: e.readCaps.join(","),
            data: JSON.stringify(e.data),
          })
          .execute(),
      );
    },

    async after(cursor, reach, limit) {
      const rows = await guard(() =>
        db
          .selectFrom("event_outbox")
          .selectAll()
          .where((eb) => eb.and([afterCursor(cursor), within(reach), settled]))
          .orderBy("xid")
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
          .orderBy("xid")
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
          .orderBy("xid", "desc")
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
      const result = await guard(() =>
        db
          .deleteFrom("event_outbox")
          .where((eb) => eb.or([eb.and([eb("time", "<", keepAfter), done]), eb("time", "<", dropBefore)]))
          .executeTakeFirst(),
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
