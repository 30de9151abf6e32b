/**
 * Role bindings in the `role_bindings` table. They live and die with their group (ON DELETE
 * CASCADE); their role must exist (a foreign key), their identity need not.
 */
import type { AuthorityRecorder } from "../domain/authority.js";
import { alreadyExists, notFound } from "../domain/errors.js";
import { bindingSortValue } from "../domain/role-binding-rules.js";
import type { Executor, RoleBindingsTable } from "./tables.js";
import type { Engine } from "./dialect.js";
import { visibleUnder } from "./hierarchy-filter.js";
import { manyScopeList } from "./list-changes.js";
import { listConditions } from "./resource-filter.js";
import { missingGroupOrRole, resourceTable } from "./resource-table.js";
import { compiledOnce } from "./compiled-query.js";
import type { ScopeMemory } from "./scope-memory.js";
import { guard } from "./translate-error.js";
import { snakeColumns } from "./snake-columns.js";
import type { BindingFilter, BindingRecord } from "../domain/role-bindings.js";
import type { Grant } from "../domain/role-bindings.js";
import type { RowWindow } from "./row-window.js";

/**
 * Role bindings. The role must exist (a foreign key); the identity need not (a person can be
 * bound before their first login).
 */
export interface BindingStore {
  /** Inserts a binding. NOT_FOUND when the group or the role is gone; ALREADY_EXISTS for a duplicate. */
  insert(binding: BindingRecord): Promise<void>;
  /** The binding with this uid, or undefined. */
  get(uid: string): Promise<BindingRecord | undefined>;
  /** As get, the row held until the surrounding store.atomically ends: the read of a read-modify-write. */
  lock(uid: string): Promise<BindingRecord | undefined>;
  /** The binding of identity to role at group, if there is one. */
  find(groupUid: string, identityUid: string, roleUid: string): Promise<BindingRecord | undefined>;
  /** Every binding an identity holds. */
  forIdentity(identityUid: string): Promise<BindingRecord[]>;
  /** Every role an identity holds, with the stored capabilities of custom roles: one query. */
  grantsOf(identityUid: string): Promise<Grant[]>;
  /**
   * The authorization generation of an identity: a value that changes whenever one of its
   * bindings, any role, or any identity's existence does (by triggers, whoever writes; migrations
   * 0007, 0012, 0013). Its permissions computed after reading it stay right while it holds.
   */
  authzGeneration(identityUid: string): Promise<string>;
  /**
   * Holds the global authorization generation's row until the surrounding transaction ends,
   * without moving it. Every write of a role holds it too (its trigger), and so does every API
   * call that changes authority (the escalation guard), so a transaction holding it reads roles,
   * bindings, invites and providers that no concurrent such call can change before it commits.
   */
  holdGeneration(): Promise<void>;
  /** Changes a binding's identity or role; undefined when it does not exist. Same errors as insert. */
  update(uid: string, changes: { identityUid?: string; roleUid?: string }): Promise<BindingRecord | undefined>;
  /** Deletes a binding; false when there was none. */
  delete(uid: string): Promise<boolean>;
  /** The bindings matching filter, in the window's order (fields: create_time, uid). */
  list(filter: BindingFilter, window: RowWindow): Promise<BindingRecord[]>;
  /** How many bindings match filter. */
  count(filter: BindingFilter): Promise<number>;
}

/**
 * The binding store over an executor; memory keeps what is derived from many-scope callers'
 * scopes (src/store/list-changes.ts).
 */
export function createBindingStore(db: Executor, engine: Engine, record: AuthorityRecorder, memory: ScopeMemory): BindingStore {
  // A binding's parent is its group, so the caller sees the bindings held at groups it sees.
  const visible = (tops: readonly string[]) => visibleUnder("group_uid", tops);
  const matching = (filter: BindingFilter) =>
    listConditions(
      filter,
      { uid: "uid", parent: "group_uid", visible },
      { identity_uid: filter.identity, group_uid: filter.group, role_uid: filter.role },
    );
  const table = resourceTable(db, engine, {
    table: "role_bindings",
    toRecord: toBinding,
    matching,
    sortColumns: { create_time: "create_time", uid: "uid" },
  });
  const many = manyScopeList<BindingFilter, BindingRecord>(db, engine, memory, {
    name: "role_bindings",
    plain(filter: BindingFilter) {
      const { descendantsOf, childrenOf, inRoot, ids } = filter.uidp;
      const more = [filter.identity, filter.group, filter.role, childrenOf, inRoot, ids];
      return more.some((x) => x !== undefined) ? undefined : { scopes: filter.visibleUnder, under: descendantsOf };
    },
    narrow: (filter) => ({ scopes: filter.visibleUnder, within: filter.uidp.descendantsOf ?? filter.uidp.childrenOf }),
    seen: (b, reaches) => reaches(b.groupUid),
    scopeColumn: "group_uid",
    fromRow: table.fromRow,
    sortValue: bindingSortValue,
    list: table.list,
    everything: (filter) => ({ ...filter, visibleUnder: undefined }),
    conditions: matching,
    visible,
  });
  const bindingsOf = (identityUid: string) =>
    db
      .selectFrom("role_bindings")
      .where("role_bindings.identity_uid", "=", identityUid)
      .orderBy("role_bindings.create_time")
      .orderBy("role_bindings.uid");

  // Both run on every authenticated request; permissions need no order. A caller holds one binding
  // or ten thousand, so the grants are planned for each (unprepared on PostgreSQL).
  const grants = compiledOnce(
    db,
    () =>
      db
        .selectFrom("role_bindings")
        .innerJoin("roles", "roles.uid", "role_bindings.role_uid")
        .select(["role_bindings.group_uid", "role_bindings.role_uid", "roles.capabilities"])
        .where("role_bindings.identity_uid", "=", ""),
    { prepared: false },
  );
  // The global generation and the identity's own, in one round trip; no row of its own is 0.
  const generation = compiledOnce(db, () =>
    db.selectNoFrom((eb) => [
      eb.selectFrom("authz_generation").select("value").where("id", "=", 1).as("global"),
      eb.selectFrom("authz_identity_generations").select("value").where("identity_uid", "=", "").as("own"),
    ]),
  );

  return {
    async insert(b) {
      await table.insert(toRow(b), {
        violations: {
          unique: () => taken(b),
          foreignKey: () => missingGroupOrRole(db, b.groupUid, b.roleUid),
        },
        survivable: true,
      });
      record({ kind: "binding", groupUid: b.groupUid, identityUid: b.identityUid, roleUid: b.roleUid });
    },

    get: table.get,
    lock: (uid) => table.lock(uid, "create_time"),

    async find(groupUid, identityUid, roleUid) {
      const row = await guard(() =>
        db
          .selectFrom("role_bindings")
          .selectAll()
          .where("group_uid", "=", groupUid)
          .where("identity_uid", "=", identityUid)
          .where("role_uid", "=", roleUid)
          .executeTakeFirst(),
      );
      return row && toBinding(row);
    },

    async forIdentity(identityUid) {
      const rows = await guard(() => bindingsOf(identityUid).selectAll().execute());
      return rows.map(toBinding);
    },

    async grantsOf(identityUid) {
      const rows = await guard(() => grants(identityUid));
      return rows.map((r) => ({ groupUid: r.group_uid, roleUid: r.role_uid, capabilities: JSON.parse(r.capabilities) as string[] }));
    },

    async authzGeneration(identityUid) {
      const [row] = await guard(() => generation(1, identityUid));
      if (row?.global == null) throw new Error("authz_generation has no row (migration 0007 makes it)");
      return `${Number(row.global)}.${Number(row.own ?? 0)}`;
    },

    async holdGeneration() {
      // A write of the value it has: PostgreSQL locks the row; SQLite's IMMEDIATE transaction
      // already holds the database.
      await guard(() =>
        db
          .updateTable("authz_generation")
          .set((eb) => ({ value: eb.ref("value") }))
          .where("id", "=", 1)
          .execute(),
      );
    },

    async update(uid, changes) {
      // Read first: a clash is then named without a lookup after the failed statement.
      const before = await table.get(uid);
      if (before === undefined) return undefined;
      const updated = await table.update(
        uid,
        { identity_uid: changes.identityUid, role_uid: changes.roleUid },
        {
          violations: {
            unique: () =>
              taken({ ...before, identityUid: changes.identityUid ?? before.identityUid, roleUid: changes.roleUid ?? before.roleUid }),
            // The group never changes, so the role is the only parent that can be missing.
            foreignKey: () => notFound("role", changes.roleUid ?? before.roleUid),
          },
        },
      );
      if (updated) record({ kind: "binding", groupUid: updated.groupUid, identityUid: updated.identityUid, roleUid: updated.roleUid });
      return updated;
    },

    delete: (uid) => table.delete(uid),
    list: async (filter, window) => (await many.list(filter, window)) ?? table.list(filter, window),
    count: async (filter) => (await many.count(filter)) ?? table.count(filter),
  };
}

function taken(b: Pick<BindingRecord, "identityUid" | "roleUid" | "groupUid">) {
  return alreadyExists(`role binding of ${b.identityUid} to role ${b.roleUid} in group ${b.groupUid}`);
}

const columns = snakeColumns<BindingRecord>({ uid: true, groupUid: true, identityUid: true, roleUid: true, createTime: true });
const toRow: (b: BindingRecord) => RoleBindingsTable = columns.toRow;
const toBinding: (row: RoleBindingsTable) => BindingRecord = columns.toRecord;
