/**
 * Where the advisories feed sync stands on each feed (`advisory_feed_cursors`, migration 0019).
 * The sync writes a cursor only once everything up to it is in the store, so a sync that stops
 * midway leaves the previous cursor, and the next one fetches again what it had not finished.
 */
import type { Executor } from "./tables.js";
import { guard } from "./translate-error.js";

/** How far a feed has been applied. */
export interface FeedCursor {
  /** The newest OSV `modified` time applied, as `YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ` (text order is time order). */
  modified: string;
  /** The advisory ids the feed listed at exactly `modified`; all of them are applied. */
  boundaryIds: string[];
  /** When a sync last applied or confirmed the cursor, in milliseconds since the epoch. */
  syncTime: number;
}

/** The feed cursors, keyed by the feed's URL. */
export interface FeedCursorStore {
  /** The cursor of feed, or undefined before its first complete sync. */
  get(feed: string): Promise<FeedCursor | undefined>;
  /** Sets the cursor of feed (last writer wins: replicas sync one at a time). */
  put(feed: string, cursor: FeedCursor): Promise<void>;
}

/** The feed cursor store over an executor. */
export function createFeedCursorStore(db: Executor): FeedCursorStore {
  return {
    async get(feed) {
      const row = await guard(() => db.selectFrom("advisory_feed_cursors").selectAll().where("feed", "=", feed).executeTakeFirst());
      if (row === undefined) return undefined;
      return { modified: row.modified, boundaryIds: JSON.parse(row.boundary_ids) as string[], syncTime: Number(row.sync_time) };
    },

    async put(feed, cursor) {
      const values = { modified: cursor.modified, boundary_ids: JSON.stringify(cursor.boundaryIds), sync_time: cursor.syncTime };
      await guard(() =>
        db
          .insertInto("advisory_feed_cursors")
          .values({ feed, ...values })
          .onConflict((oc) => oc.column("feed").doUpdateSet(values))
          .execute(),
      );
    },
  };
}
