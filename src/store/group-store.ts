/**
 * Groups in the `groups` table. Sibling names are unique by constraint, and the parent foreign
 * keys of groups, repos and identities (ON DELETE RESTRICT) are what finally keep a group with
 * children from being deleted.
 */
import type { AuthorityRecorder } from "../domain/authority.js";
import { alreadyExists, failedPreconditions, notFound, type ApiError } from "../domain/errors.js";
import { descendantCountPlan } from "../domain/group-counts.js";
import type { GroupFilter, GroupRecord } from "../domain/groups.js";
import { parentOf } from "../domain/uid.js";
import { type Executor, type GroupsTable } from "./tables.js";
import { inTransaction } from "./nested-transactions.js";
import { foldDescendantCounts, sumDescendantCounts, type Engine } from "./dialect.js";
import { FOLD_AT, manyScopeGroups } from "./group-pages.js";
import { listConditions } from "./resource-filter.js";
import { hasRow, NAMED_SORT_COLUMNS, resourceTable } from "./resource-table.js";
import type { ScopeMemory } from "./scope-memory.js";
import { guard } from "./translate-error.js";
import { NAMED_FIELDS, snakeColumns } from "./snake-columns.js";
import type { RowWindow } from "./row-window.js";

export interface GroupStore {
  /**
   * Inserts a group. ALREADY_EXISTS when a sibling (or, for an organization, another
   * organization) has the name; NOT_FOUND (group <parent>) when the parent is gone.
   */
  insert(group: GroupRecord): Promise<void>;
  /** The group, or undefined. */
  get(uid: string): Promise<GroupRecord | undefined>;
  /**
   * The group, its row held until the surrounding transaction ends (resource-table.ts, lock):
   * what a change counts under it (an organization's subscriptions) cannot be counted at once by
   * a racing change.
   */
  lock(uid: string): Promise<GroupRecord | undefined>;
  /** The groups among uids that exist, in uid order. */
  getMany(uids: readonly string[]): Promise<GroupRecord[]>;
  /** The organization (root group) with this name, or undefined. */
  findOrganization(name: string): Promise<GroupRecord | undefined>;
  /**
   * Applies changes and sets updateTime; returns the updated group, or undefined when it does not
   * exist. ALREADY_EXISTS when the new name is a sibling's.
   */
  update(uid: string, changes: { name?: string; description?: string }, updateTime: number): Promise<GroupRecord | undefined>;
  /**
   * Deletes a group and the role bindings held in it. Returns false when it does not exist.
   * FAILED_PRECONDITION (RESOURCE_NOT_EMPTY, one violation per kind in the way) while it holds
   * child groups, repos or identities, decided by the store's constraints, not by a check that
   * can race. Custom roles,
   * identity providers, invites and the account association go with it.
   */
  delete(uid: string): Promise<boolean>;
  /** The groups matching filter, in the window's order. */
  list(filter: GroupFilter, window: RowWindow): Promise<GroupRecord[]>;
  /** How many groups match filter. */
  count(filter: GroupFilter): Promise<number>;
}

/**
 * The group store over an executor; memory keeps what is derived from many-scope callers'
 * scopes across requests, so it must be the store's own, not one per executor.
 */
export function createGroupStore(db: Executor, engine: Engine, record: AuthorityRecorder, memory: ScopeMemory): GroupStore {
  const table = groupsTable(db, engine);
  const many = manyScopeGroups(db, engine, memory, table, toGroup);
  const sumCounts = async (uids: readonly string[]) => {
    const { rows } = await sumDescendantCounts(engine, uids).execute(db);
    const row = rows[0];
    if (row === undefined) throw new Error("an aggregate select returned no row");
    return row;
  };

  return {
    async insert(group) {
      await table.insert(toRow(group), {
        violations: {
          unique: () => nameTaken(group.parentUid, group.name),
          foreignKey: () => notFound("group", group.parentUid ?? ""),
        },
      });
      if (group.parentUid === null) record({ kind: "organization", groupUid: group.uid });
    },

    get: table.get,
    lock: (uid) => table.lock(uid, "update_time"),
    getMany: table.getMany,

    async findOrganization(name) {
      const row = await guard(() =>
        db.selectFrom("groups").selectAll().where("parent_uid", "is", null).where("name", "=", name).executeTakeFirst(),
      );
      return row && toGroup(row);
    },

    update: (uid, changes, updateTime) =>
      table.update(
        uid,
        { name: changes.name, description: changes.description, update_time: updateTime },
        // The uid is the path from the root (DESIGN 1.2), so it names the parent.
        { violations: { unique: () => nameTaken(parentOf(uid) ?? null, changes.name ?? "") } },
      ),

    async delete(uid) {
      return guard(() =>
        inTransaction(db, async (tx) => {
          // The checks name everything in the way, so the caller learns at once all there is to
          // remove; the foreign keys catch a child inserted after them, which the description
          // can then only call a child.
          const blocking: string[] = [];
          for (const [table, what] of BLOCKING_CHILDREN) if (await hasRow(tx, table, "parent_uid", uid)) blocking.push(what);
          if (blocking.length > 0) throw notEmpty(uid, blocking);
          // Custom roles, identity providers, invites, role bindings and the account association
          // go with the group (ON DELETE CASCADE).
          return groupsTable(tx, engine).delete(uid, { violations: { foreignKey: () => notEmpty(uid, ["child resources"]) } });
        }),
      );
    },

    async list(filter, window) {
      return (await many.list(filter, window)) ?? table.list(filter, window);
    },

    async count(filter) {
      const remembered = await many.count(filter);
      if (remembered !== undefined) return remembered;
      const plan = descendantCountPlan(filter);
      if (plan === undefined) return table.count(filter);
      if (plan.sumBelow.length === 0) return 0;
      const [{ total, rows }, tops] = await Promise.all([
        guard(() => sumCounts(plan.sumBelow)),
        plan.plusGroups.length === 0 ? [] : table.getMany(plan.plusGroups),
      ]);
      if (Number(rows) > FOLD_AT * plan.sumBelow.length && !db.isTransaction) {
        // The answer is right already; folding only makes the next count cheaper, so a fold that
        // fails (a busy store) is left for a later count to retry.
        await Promise.all(plan.sumBelow.map((uid) => foldDescendantCounts(db, engine, uid))).catch(() => undefined);
      }
      return Number(total) + tops.length;
    },
  };
}

/** The shared statements over `groups` (exported for the many-scope pages' tests). */
export function groupsTable(db: Executor, engine: Engine) {
  return resourceTable(db, engine, {
    table: "groups",
    toRecord: toGroup,
    matching: (filter: GroupFilter) => listConditions(filter, { uid: "uid", parent: "parent_uid" }),
    sortColumns: NAMED_SORT_COLUMNS,
  });
}

function nameTaken(parentUid: string | null, name: string): ApiError {
  return parentUid === null ? alreadyExists(`organization named "${name}"`) : alreadyExists(`group named "${name}" under ${parentUid}`);
}

/** The children that keep a group from being deleted, in the order the refusal names them. */
const BLOCKING_CHILDREN = [
  ["groups", "child groups"],
  ["repos", "child repos"],
  ["identities", "child identities"],
] as const;

/** One RESOURCE_NOT_EMPTY violation per kind in the way (the spec's `cannot delete group with child repos` among them). */
function notEmpty(uid: string, kinds: readonly string[]): ApiError {
  const said = (what: string) => `cannot delete group with ${what}`;
  const listed = kinds.length === 1 ? kinds.join("") : `${kinds.slice(0, -1).join(", ")} and ${kinds.at(-1) ?? ""}`;
  return failedPreconditions(
    said(listed),
    kinds.map((what) => ({ type: "RESOURCE_NOT_EMPTY", subject: uid, description: said(what) })),
  );
}

const columns = snakeColumns<GroupRecord>(NAMED_FIELDS);
const toRow: (g: GroupRecord) => GroupsTable = columns.toRow;
const toGroup: (row: GroupsTable) => GroupRecord = columns.toRecord;
