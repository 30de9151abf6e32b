/**
 * Event subscriptions in `event_subscriptions` (migration 0021): what each says, and where its
 * delivery stands (its cursor in the outbox, its failures). They go with their group (ON DELETE
 * CASCADE).
 */
import { sql } from "kysely";
import { notFound } from "../domain/errors.js";
import type { DeliveryState, SubscriptionRecord, SubscriptionSettings } from "../domain/event-subscriptions.js";
import type { ResourceFilter } from "../domain/hierarchy.js";
import type { EventSubscriptionsTable, Executor } from "./tables.js";
import type { Engine } from "./dialect.js";
import { listConditions } from "./resource-filter.js";
import { resourceTable } from "./resource-table.js";
import type { RowWindow } from "./row-window.js";
import { guard } from "./translate-error.js";

export interface EventSubscriptionStore {
  /**
   * Inserts a subscription (its delivery state is ignored): its cursor is the outbox's end, so
   * it receives the changes committed after it (its own creation among them). NOT_FOUND when
   * its group is gone.
   */
  insert(subscription: SubscriptionRecord): Promise<SubscriptionRecord>;
  /** The subscription, or undefined. */
  get(uid: string): Promise<SubscriptionRecord | undefined>;
  /**
   * Applies changes and sets updateTime; undefined when it does not exist. Where changes send it
   * to another sink than it has, setter becomes its creator, in the same statement (two updates
   * racing cannot leave one's sink with the other's creator).
   */
  update(uid: string, changes: Partial<SubscriptionSettings>, updateTime: number, setter: string): Promise<SubscriptionRecord | undefined>;
  /** Moves the cursor to cursor, its failures forgotten, so delivery restarts there; undefined when it does not exist. */
  rewind(uid: string, cursor: DeliveryState["cursor"], updateTime: number): Promise<SubscriptionRecord | undefined>;
  /** Deletes a subscription; false when it does not exist. */
  delete(uid: string): Promise<boolean>;
  /** The subscriptions matching filter (fields: create_time, update_time, uid). */
  list(filter: ResourceFilter, window: RowWindow): Promise<SubscriptionRecord[]>;
  /** How many subscriptions match filter. */
  count(filter: ResourceFilter): Promise<number>;
  /** Up to limit subscriptions whose next attempt is due at now, oldest due first, none of skip. */
  due(now: number, limit: number, skip: readonly string[]): Promise<SubscriptionRecord[]>;
  /**
   * Records where uid's delivery stands, only when its cursor is still `from` (a replica that
   * took over meanwhile wins); whether it was recorded.
   */
  record(uid: string, from: DeliveryState["cursor"], state: DeliveryState): Promise<boolean>;
}

const SORT_COLUMNS = { uid: "uid", create_time: "create_time", update_time: "update_time" } as const;

/** The subscription store over an executor. */
export function createEventSubscriptionStore(db: Executor, engine: Engine): EventSubscriptionStore {
  const table = resourceTable(db, engine, {
    table: "event_subscriptions",
    toRecord: toSubscription,
    matching: (filter: ResourceFilter) => listConditions(filter, { uid: "uid", parent: "parent_uid" }),
    sortColumns: SORT_COLUMNS,
  });
  // The current transaction's id: the cursor of a subscription made now (see 0021).
  const ownXid = engine === "postgres" ? sql<number>`pg_current_xact_id()::text::bigint` : sql<number>`0`;

  return {
    async insert(s) {
      const row = await guard(
        () =>
          db
            .insertInto("event_subscriptions")
            .values({
              uid: s.uid,
              sink: s.sink,
              types: JSON.stringify(s.types),
              include_descendants: s.includeDescendants ? 1 : 0,
              parent_uid: s.parentUid,
              creator_uid: s.creatorUid,
              create_time: s.createTime,
              update_time: s.updateTime,
              cursor_xid: ownXid,
              cursor_position: sql<number>`(select coalesce(max(position), 0) from event_outbox)`,
              attempts: 0,
              next_attempt_time: 0,
              last_error: "",
            })
            .returningAll()
            .executeTakeFirstOrThrow(),
        { foreignKey: () => notFound("group", s.parentUid) },
      );
      return toSubscription(row);
    },

    get: table.get,

    async update(uid, changes, updateTime, setter) {
      const { sink } = changes;
      const row = await guard(() =>
        db
          .updateTable("event_subscriptions")
          .set((eb) => ({
            ...settingsColumns(changes),
            update_time: updateTime,
            // Whoever sends the deliveries somewhere else answers for what they carry.
            ...(sink !== undefined && { creator_uid: eb.case().when("sink", "=", sink).then(eb.ref("creator_uid")).else(setter).end() }),
          }))
          .where("uid", "=", uid)
          .returningAll()
          .executeTakeFirst(),
      );
      return row && toSubscription(row);
    },

    rewind: (uid, cursor, updateTime) =>
      table.update(uid, {
        cursor_xid: cursor.xid,
        cursor_position: cursor.position,
        attempts: 0,
        next_attempt_time: 0,
        first_failure_time: null,
        last_error: "",
        update_time: updateTime,
      }),

    delete: (uid) => table.delete(uid),
    list: table.list,
    count: table.count,

    async due(now, limit, skip) {
      let query = db.selectFrom("event_subscriptions").selectAll().where("next_attempt_time", "<=", now);
      if (skip.length > 0) query = query.where("uid", "not in", skip);
      const rows = await guard(() => query.orderBy("next_attempt_time").limit(limit).execute());
      return rows.map(toSubscription);
    },

    async record(uid, from, state) {
      const result = await guard(() =>
        db
          .updateTable("event_subscriptions")
          .set({
            cursor_xid: state.cursor.xid,
            cursor_position: state.cursor.position,
            attempts: state.attempts,
            next_attempt_time: state.nextAttemptTime,
            first_failure_time: state.firstFailureTime ?? null,
            last_delivery_time: state.lastDeliveryTime ?? null,
            last_error: state.lastError,
          })
          .where("uid", "=", uid)
          .where("cursor_xid", "=", from.xid)
          .where("cursor_position", "=", from.position)
          .executeTakeFirst(),
      );
      return result.numUpdatedRows > 0n;
    },
  };
}

function settingsColumns(
  s: Partial<SubscriptionSettings>,
): Partial<Pick<EventSubscriptionsTable, "sink" | "types" | "include_descendants">> {
  return {
    sink: s.sink,
    types: s.types && JSON.stringify(s.types),
    include_descendants: s.includeDescendants === undefined ? undefined : s.includeDescendants ? 1 : 0,
  };
}

function toSubscription(row: EventSubscriptionsTable): SubscriptionRecord {
  return {
    uid: row.uid,
    parentUid: row.parent_uid,
    sink: row.sink,
    types: JSON.parse(row.types) as string[],
    includeDescendants: row.include_descendants !== 0,
    creatorUid: row.creator_uid,
    createTime: row.create_time,
    updateTime: row.update_time,
    cursor: { xid: row.cursor_xid, position: row.cursor_position },
    attempts: row.attempts,
    nextAttemptTime: row.next_attempt_time,
    ...(row.first_failure_time !== null && { firstFailureTime: row.first_failure_time }),
    ...(row.last_delivery_time !== null && { lastDeliveryTime: row.last_delivery_time }),
    lastError: row.last_error,
  };
}
