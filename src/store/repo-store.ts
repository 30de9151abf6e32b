/**
 * Repos in the `repos` table. Names are unique in a group by constraint, and the parent foreign
 * key (ON DELETE RESTRICT) keeps a group holding repos from being deleted; tags go with their repo.
 */
import { notFound } from "../domain/errors.js";
import { repoSortValue, type RepoFilter, type RepoRecord } from "../domain/repos.js";
import type { Executor, ReposTable } from "./tables.js";
import type { Engine } from "./dialect.js";
import { ownUidLists } from "./list-changes.js";
import type { ScopeMemory } from "./scope-memory.js";
import { listConditions } from "./resource-filter.js";
import { nameTaken, NAMED_SORT_COLUMNS, resourceTable } from "./resource-table.js";
import { guard } from "./translate-error.js";
import { NAMED_FIELDS, snakeColumns } from "./snake-columns.js";
import type { RowWindow } from "./row-window.js";

export interface RepoStore {
  /** Inserts a repo. ALREADY_EXISTS when its group has a repo of that name; NOT_FOUND when the group is gone. */
  insert(repo: RepoRecord): Promise<void>;
  /** The repo, or undefined. */
  get(uid: string): Promise<RepoRecord | undefined>;
  /** The repo named name in group parentUid, or undefined. */
  find(parentUid: string, name: string): Promise<RepoRecord | undefined>;
  /** Applies changes and sets updateTime; undefined when it does not exist. */
  update(uid: string, changes: { description?: string }, updateTime: number): Promise<RepoRecord | undefined>;
  /**
   * Moves the repo's updateTime forward to time (never back); false when the repo does not
   * exist. Inside a transaction it also holds the repo's row until the end, so the registry
   * events of one repo are applied one after another on every engine.
   */
  touch(uid: string, time: number): Promise<boolean>;
  /** Deletes the repo with its tags; false when it does not exist. */
  delete(uid: string): Promise<boolean>;
  /** The repos matching filter (fields: name, create_time, update_time, uid). */
  list(filter: RepoFilter, window: RowWindow): Promise<RepoRecord[]>;
  /** How many repos match filter. */
  count(filter: RepoFilter): Promise<number>;
}

/** The repo store over an executor. */
export function createRepoStore(db: Executor, engine: Engine, memory: ScopeMemory): RepoStore {
  const matching = (filter: RepoFilter) => listConditions(filter, { uid: "uid", parent: "parent_uid" });
  const table = resourceTable(db, engine, {
    table: "repos",
    toRecord: toRepo,
    matching,
    sortColumns: NAMED_SORT_COLUMNS,
  });
  return {
    insert: (repo) =>
      table.insert(toRow(repo), {
        violations: {
          unique: () => nameTaken("repo", repo.parentUid, repo.name),
          foreignKey: () => notFound("group", repo.parentUid),
        },
        // v1's create updates the existing repo after a clash, in the same transaction.
        survivable: true,
      }),

    get: table.get,

    async find(parentUid, name) {
      const row = await guard(() =>
        db.selectFrom("repos").selectAll().where("parent_uid", "=", parentUid).where("name", "=", name).executeTakeFirst(),
      );
      return row && toRepo(row);
    },

    // The name never changes: the registry keeps a repo's content under its path.
    update: (uid, changes, updateTime) => table.update(uid, { description: changes.description, update_time: updateTime }),

    async touch(uid, time) {
      // An update that may change nothing still locks the row on PostgreSQL; SQLite's write
      // transactions are serial anyway. CASE rather than max()/greatest(), which differ by engine.
      const { numUpdatedRows } = await guard(() =>
        db
          .updateTable("repos")
          .set((eb) => ({
            update_time: eb.case().when("update_time", "<", time).then(time).else(eb.ref("update_time")).end(),
          }))
          .where("uid", "=", uid)
          .executeTakeFirstOrThrow(),
      );
      return numUpdatedRows > 0n;
    },

    delete: (uid) => table.delete(uid),
    ...ownUidLists(db, engine, memory, {
      name: "repos",
      list: table.list,
      count: table.count,
      fromRow: table.fromRow,
      matching,
      sortValue: repoSortValue,
      narrower: () => false,
    }),
  };
}

const columns = snakeColumns<RepoRecord>(NAMED_FIELDS);
const toRow: (r: RepoRecord) => ReposTable = columns.toRow;
const toRepo: (row: ReposTable) => RepoRecord = columns.toRecord;
