/**
 * Roles in the `roles` table: built-in ones are rows without a parent, kept in step with the
 * code by syncBuiltins and never changed otherwise; custom ones live and die with their group.
 * Foreign keys from role bindings and identity providers keep a role in use from being deleted.
 */
import { builtinRoleUnchangeable } from "../domain/role-refusals.js";
import { sql, type SqlBool } from "kysely";
import type { AuthorityRecorder } from "../domain/authority.js";
import { failedPrecondition, notFound, type ApiError } from "../domain/errors.js";
import type { RoleRecord } from "../domain/roles.js";
import { namedSortValue } from "../domain/named-sort-value.js";
import { parentOf } from "../domain/uid.js";
import type { Executor, RolesTable } from "./tables.js";
import type { Engine } from "./dialect.js";
import { visibleUnder } from "./hierarchy-filter.js";
import { ownUidLists } from "./list-changes.js";
import { listConditions } from "./resource-filter.js";
import { hasRow, nameTaken, NAMED_SORT_COLUMNS, resourceTable } from "./resource-table.js";
import type { ScopeMemory } from "./scope-memory.js";
import { guard } from "./translate-error.js";
import { NAMED_FIELDS, snakeColumns } from "./snake-columns.js";
import type { ResourceFilter } from "../domain/hierarchy.js";
import type { RowWindow } from "./row-window.js";

/** Roles: built-in ones are rows without a parent; custom ones live in a group. */
export interface RoleStore {
  /** Inserts a custom role. ALREADY_EXISTS for a sibling's name; NOT_FOUND when its group is gone. */
  insert(role: RoleRecord): Promise<void>;
  /** The role, or undefined. */
  get(uid: string): Promise<RoleRecord | undefined>;
  /** The roles among uids that exist (for hydration). */
  getMany(uids: readonly string[]): Promise<RoleRecord[]>;
  /** Applies changes and sets updateTime; undefined when it does not exist. ALREADY_EXISTS for a sibling's name. */
  update(
    uid: string,
    changes: { name?: string; description?: string; capabilities?: string[] },
    updateTime: number,
  ): Promise<RoleRecord | undefined>;
  /**
   * The groups where the role is handed out: bound there, offered there by an invite, or the
   * default role of an identity provider there. Each once, in no order.
   */
  placesOf(uid: string): Promise<string[]>;
  /**
   * Deletes a custom role; false when it does not exist. FAILED_PRECONDITION (RESOURCE_IN_USE)
   * while a binding or an identity provider uses it, decided by the foreign keys.
   */
  delete(uid: string): Promise<boolean>;
  /**
   * Sets the names and descriptions of the built-in roles (their rows) to the code's, adding
   * any that are missing; run at start.
   */
  syncBuiltins(roles: readonly { uid: string; name: string; description: string }[], now: number): Promise<void>;
  /** The roles matching filter (fields: name, create_time, update_time, uid); built-in roles are always visible. */
  list(filter: ResourceFilter, window: RowWindow): Promise<RoleRecord[]>;
  /** How many roles match filter. */
  count(filter: ResourceFilter): Promise<number>;
}

/** Only custom roles may be changed or deleted. */
const CUSTOM = sql<SqlBool>`${sql.ref("parent_uid")} is not null`;

/** The role store over an executor. */
export function createRoleStore(db: Executor, engine: Engine, record: AuthorityRecorder, memory: ScopeMemory): RoleStore {
  // Built-in roles are everyone's.
  const builtIn = sql<SqlBool>`${sql.ref("parent_uid")} is null`;
  const matching = (filter: ResourceFilter) =>
    listConditions(filter, {
      uid: "uid",
      parent: "parent_uid",
      visible: (tops) => sql<SqlBool>`(${builtIn} or ${visibleUnder("uid", tops)})`,
    });
  const table = resourceTable(db, engine, {
    table: "roles",
    toRecord: toRole,
    matching,
    sortColumns: NAMED_SORT_COLUMNS,
  });

  /** BUILT_IN when a write that spared built-in roles missed because uid is one; else `missing`. */
  async function unlessBuiltIn<T>(uid: string, missing: T): Promise<T> {
    if ((await table.get(uid)) === undefined) return missing;
    throw builtinRoleUnchangeable(uid);
  }

  /** RESOURCE_IN_USE, naming which foreign key refused to let the role go. */
  async function inUse(uid: string): Promise<ApiError> {
    const bound = await hasRow(db, "role_bindings", "role_uid", uid);
    const why = bound ? "cannot delete a role that is bound" : "cannot delete a role that is the default role of an identity provider";
    return failedPrecondition("RESOURCE_IN_USE", uid, why);
  }

  return {
    insert: (role) =>
      table.insert(toRow(role), {
        violations: {
          unique: () => nameTaken("role", role.parentUid, role.name),
          foreignKey: () => notFound("group", role.parentUid ?? ""),
        },
      }),

    get: table.get,
    getMany: table.getMany,

    async update(uid, changes, updateTime) {
      // The capabilities it had, read under the row's lock: a concurrent change must not make
      // what this one adds look like what was there.
      const before = changes.capabilities === undefined ? undefined : await table.lock(uid, "update_time");
      const updated = await table.update(
        uid,
        {
          name: changes.name,
          description: changes.description,
          capabilities: changes.capabilities && JSON.stringify(changes.capabilities),
          update_time: updateTime,
        },
        { where: CUSTOM, violations: { unique: () => nameTaken("role", parentOf(uid) ?? null, changes.name ?? "") } },
      );
      if (updated && before) record({ kind: "role-capabilities", roleUid: uid, before: before.capabilities, after: updated.capabilities });
      return updated ?? unlessBuiltIn(uid, undefined);
    },

    async placesOf(uid) {
      const rows = await guard(() =>
        db
          .selectFrom("role_bindings")
          .select("group_uid")
          .where("role_uid", "=", uid)
          .union(db.selectFrom("group_invites").select("parent_uid as group_uid").where("role_uid", "=", uid))
          .union(db.selectFrom("identity_providers").select("parent_uid as group_uid").where("default_role", "=", uid))
          .execute(),
      );
      return rows.map((r) => r.group_uid);
    },

    async delete(uid) {
      const deleted = await table.delete(uid, { where: CUSTOM, violations: { foreignKey: () => inUse(uid) }, survivable: true });
      return deleted || unlessBuiltIn(uid, false);
    },

    async syncBuiltins(roles, now) {
      if (roles.length === 0) return;
      const rows = roles.map((r) => toRow({ ...r, parentUid: null, capabilities: [], createTime: now, updateTime: now }));
      await guard(() =>
        db
          .insertInto("roles")
          .values(rows)
          .onConflict((oc) =>
            oc
              .column("uid")
              .doUpdateSet((eb) => ({
                name: eb.ref("excluded.name"),
                description: eb.ref("excluded.description"),
                update_time: eb.ref("excluded.update_time"),
              }))
              // A role the code did not change keeps its update time.
              .where((eb) =>
                eb.or([eb("roles.name", "<>", eb.ref("excluded.name")), eb("roles.description", "<>", eb.ref("excluded.description"))]),
              ),
          )
          .execute(),
      );
    },

    ...ownUidLists<ResourceFilter, RoleRecord>(db, engine, memory, {
      name: "roles",
      list: table.list,
      count: table.count,
      fromRow: table.fromRow,
      matching,
      // role-rules.ts's roleSortValue, which this store cannot import: the store loads without
      // the capability enums (test/support/open-store.ts runs it with types stripped).
      sortValue: namedSortValue("roles"),
      narrower: () => false,
      everyones: { record: (role) => role.parentUid === null, condition: builtIn },
    }),
  };
}

const columns = snakeColumns<RoleRecord, Exclude<keyof RoleRecord, "capabilities">>(NAMED_FIELDS);

function toRow(r: RoleRecord): RolesTable {
  return { ...columns.toRow(r), capabilities: JSON.stringify(r.capabilities) };
}

function toRole(row: RolesTable): RoleRecord {
  return { ...columns.toRecord(row), capabilities: JSON.parse(row.capabilities) as string[] };
}
