/**
 * Tags in the `tags` table, tombstones included: the registry index reads and writes a tag's
 * whole state, the API sees live tags only. `manifest_deletes` remembers when each manifest was
 * last deleted from a repo, so a push of it that arrives after its delete is not brought back.
 */
import { sql, type SqlBool } from "kysely";
import { notFound } from "../domain/errors.js";
import { tagSortValue, type TagFilter, type TagRecord } from "../domain/repos.js";
import type { TagState } from "../domain/tag-events.js";
import type { Executor, TagsTable } from "./tables.js";
import type { Engine } from "./dialect.js";
import { ownUidLists } from "./list-changes.js";
import type { ScopeMemory } from "./scope-memory.js";
import { listConditions } from "./resource-filter.js";
import { nameTaken, NAMED_SORT_COLUMNS, resourceTable } from "./resource-table.js";
import { guard } from "./translate-error.js";
import { snakeColumns } from "./snake-columns.js";
import type { RowWindow } from "./row-window.js";

/** Tags of the registry's repos. */
export interface TagStore {
  /** The live tag, or undefined (also for a tombstone). */
  get(uid: string): Promise<TagRecord | undefined>;
  /** The state of the tag `name` of a repo, tombstone or not; undefined when it was never seen. */
  state(repoUid: string, name: string): Promise<TagState | undefined>;
  /** The live tags of a repo that point at digest. */
  pointingAt(repoUid: string, digest: string): Promise<TagState[]>;
  /** Inserts a tag's state. ALREADY_EXISTS when the repo has a tag of that name; NOT_FOUND when the repo is gone. */
  insert(state: TagState): Promise<void>;
  /** Replaces the stored state of the tag with state.uid. */
  replace(state: TagState): Promise<void>;
  /** When digest was last deleted from the repo, or undefined. */
  manifestDeleted(repoUid: string, digest: string): Promise<number | undefined>;
  /** Records that digest was deleted from the repo at time, unless a later delete is recorded. */
  recordManifestDelete(repoUid: string, digest: string, time: number): Promise<void>;
  /** The live tags matching filter (fields: name, create_time, update_time, uid). */
  list(filter: TagFilter, window: RowWindow): Promise<TagRecord[]>;
  /** How many live tags match filter. */
  count(filter: TagFilter): Promise<number>;
}

const LIVE = sql<SqlBool>`deleted = 0`;

/** The tag store over an executor. */
export function createTagStore(db: Executor, engine: Engine, memory: ScopeMemory): TagStore {
  const matching = (filter: TagFilter) => [LIVE, ...listConditions(filter, { uid: "uid", parent: "repo_uid" }, { digest: filter.digest })];
  const table = resourceTable(db, engine, {
    table: "tags",
    toRecord: toTag,
    matching,
    sortColumns: NAMED_SORT_COLUMNS,
  });
  return {
    async get(uid) {
      const row = await guard(() => db.selectFrom("tags").selectAll().where("uid", "=", uid).where("deleted", "=", 0).executeTakeFirst());
      return row && toTag(row);
    },

    async state(repoUid, name) {
      const row = await guard(() =>
        db.selectFrom("tags").selectAll().where("repo_uid", "=", repoUid).where("name", "=", name).executeTakeFirst(),
      );
      return row && toState(row);
    },

    async pointingAt(repoUid, digest) {
      const rows = await guard(() =>
        db.selectFrom("tags").selectAll().where("repo_uid", "=", repoUid).where("digest", "=", digest).where("deleted", "=", 0).execute(),
      );
      return rows.map(toState);
    },

    insert: (state) =>
      table.insert(toRow(state), {
        violations: {
          unique: () => nameTaken("tag", state.repoUid, state.name),
          foreignKey: () => notFound("repo", state.repoUid),
        },
      }),

    async replace(state) {
      const { uid, ...columns } = toRow(state);
      await guard(() => db.updateTable("tags").set(columns).where("uid", "=", uid).execute());
    },

    async manifestDeleted(repoUid, digest) {
      const row = await guard(() =>
        db
          .selectFrom("manifest_deletes")
          .select("event_time")
          .where("repo_uid", "=", repoUid)
          .where("digest", "=", digest)
          .executeTakeFirst(),
      );
      return row?.event_time;
    },

    async recordManifestDelete(repoUid, digest, time) {
      await guard(() =>
        db
          .insertInto("manifest_deletes")
          .values({ repo_uid: repoUid, digest, event_time: time })
          .onConflict((oc) =>
            oc.columns(["repo_uid", "digest"]).doUpdateSet({ event_time: time }).where("manifest_deletes.event_time", "<", time),
          )
          .execute(),
      );
    },

    ...ownUidLists(db, engine, memory, {
      name: "tags",
      list: table.list,
      count: table.count,
      fromRow: table.fromRow,
      matching,
      sortValue: tagSortValue,
      narrower: (filter) => filter.digest !== undefined,
    }),
  };
}

const tagColumns = snakeColumns<TagRecord>({ uid: true, repoUid: true, name: true, digest: true, createTime: true, updateTime: true });
const stateColumns = snakeColumns<TagState, "eventTime" | "deleteTime">({ eventTime: true, deleteTime: true });

function toRow(t: TagState): TagsTable {
  return { ...tagColumns.toRow(t), ...stateColumns.toRow(t), deleted: t.deleted ? 1 : 0 };
}

function toState(row: TagsTable): TagState {
  return { ...toTag(row), ...stateColumns.toRecord(row), deleted: row.deleted !== 0 };
}

const toTag: (row: TagsTable) => TagRecord = tagColumns.toRecord;
