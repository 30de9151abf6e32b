/**
 * Identities in the `identities` table. One in a group keeps the group from being deleted (ON
 * DELETE RESTRICT); a root-level one (a person) belongs to no group and is seen through its
 * role bindings.
 */
import { sql, type SqlBool } from "kysely";
import type { AuthorityRecorder } from "../domain/authority.js";
import { alreadyExists, notFound, type ApiError } from "../domain/errors.js";
import { exactIssuerSubject, type IdentityRecord, type Relationship } from "../domain/identities.js";
import { identitySortValue } from "../domain/identity-rules.js";
import { parentOf } from "../domain/uid.js";
import { type Executor, type IdentitiesTable } from "./tables.js";
import { inTransaction } from "./nested-transactions.js";
import type { Engine } from "./dialect.js";
import { visibleUnder } from "./hierarchy-filter.js";
import { ownUidLists } from "./list-changes.js";
import { listConditions } from "./resource-filter.js";
import { nameTaken, NAMED_SORT_COLUMNS, resourceTable } from "./resource-table.js";
import type { ScopeMemory } from "./scope-memory.js";
import { guard } from "./translate-error.js";
import { NAMED_FIELDS, snakeColumns } from "./snake-columns.js";
import type { ResourceFilter } from "../domain/hierarchy.js";
import type { RowWindow } from "./row-window.js";

export interface IdentityStore {
  /** Inserts an identity. ALREADY_EXISTS for a sibling's name; NOT_FOUND when its group is gone. */
  insert(identity: IdentityRecord): Promise<void>;
  /** The identity, or undefined. */
  get(uid: string): Promise<IdentityRecord | undefined>;
  /** As get, the row held until the surrounding store.atomically ends: the read of a read-modify-write. */
  lock(uid: string): Promise<IdentityRecord | undefined>;
  /** The identities among uids that exist (for hydrating bindings). */
  getMany(uids: readonly string[]): Promise<IdentityRecord[]>;
  /** Applies changes and sets updateTime; undefined when it does not exist. ALREADY_EXISTS for a sibling's name. */
  update(
    uid: string,
    changes: { name?: string; description?: string; relationship?: Relationship },
    updateTime: number,
  ): Promise<IdentityRecord | undefined>;
  /** Deletes the identity and every binding that names it; false when it does not exist. */
  delete(uid: string): Promise<boolean>;
  /** Records that a token just became this identity; false when it does not exist. */
  touch(uid: string, lastSeenTime: number): Promise<boolean>;
  /** Records that a person joined an organization by their own act; joining twice changes nothing. */
  join(organizationUid: string, personUid: string, joinTime: number): Promise<void>;
  /** The organizations these people have joined. */
  memberships(personUids: readonly string[]): Promise<{ organizationUid: string; personUid: string }[]>;
  /**
   * The identities matching filter (fields: name, create_time, update_time, uid). visibleUnder
   * reaches identities in those subtrees, and root-level identities (people) bound to a role
   * anywhere in them.
   */
  list(filter: ResourceFilter, window: RowWindow): Promise<IdentityRecord[]>;
  /** How many identities match filter. */
  count(filter: ResourceFilter): Promise<number>;
}

/** The identity store over an executor. */
export function createIdentityStore(db: Executor, engine: Engine, record: AuthorityRecorder, memory: ScopeMemory): IdentityStore {
  const table = identitiesTable(db, engine);
  const lists = ownUidLists<ResourceFilter, IdentityRecord>(db, engine, memory, {
    name: "identities",
    list: table.list,
    count: table.count,
    fromRow: table.fromRow,
    matching,
    sortValue: identitySortValue,
    // People are seen through their bindings, which the change log does not follow; below a
    // group there are none, so only a list below one is read from it.
    narrower: (filter) => filter.uidp.descendantsOf === undefined,
    // Below or in a group there are no people: what a caller sees there is where the rows lie.
    testable: (filter) => filter.uidp.descendantsOf !== undefined || filter.uidp.childrenOf !== undefined,
  });
  return {
    async insert(identity) {
      await table.insert(toRow(identity), {
        violations: {
          unique: () => taken(identity.uid, identity.parentUid, identity.name),
          foreignKey: () => notFound("group", identity.parentUid ?? ""),
        },
      });
      // A person's bindings may precede their identity: whoever sets how it authenticates
      // answers for them too.
      record({ kind: "authentication", identityUid: identity.uid });
    },

    get: table.get,
    lock: (uid) => table.lock(uid, "update_time"),
    getMany: table.getMany,

    async update(uid, changes, updateTime) {
      const updated = await table.update(
        uid,
        {
          name: changes.name,
          description: changes.description,
          ...(changes.relationship !== undefined && relationshipColumns(changes.relationship)),
          update_time: updateTime,
        },
        { violations: { unique: () => taken(uid, parentOf(uid) ?? null, changes.name ?? "") } },
      );
      if (updated && changes.relationship !== undefined) record({ kind: "authentication", identityUid: uid });
      return updated;
    },

    delete: (uid) =>
      guard(() =>
        inTransaction(db, async (tx) => {
          // A person's bindings may precede their identity: they stay when there is none to delete.
          if (!(await identitiesTable(tx, engine).delete(uid))) return false;
          await tx.deleteFrom("role_bindings").where("identity_uid", "=", uid).execute();
          return true;
        }),
      ),

    async touch(uid, lastSeenTime) {
      const { numUpdatedRows } = await guard(() =>
        db.updateTable("identities").set({ last_seen_time: lastSeenTime }).where("uid", "=", uid).executeTakeFirstOrThrow(),
      );
      return numUpdatedRows > 0n;
    },

    async join(organizationUid, personUid, joinTime) {
      await guard(() =>
        db
          .insertInto("organization_members")
          .values({ organization_uid: organizationUid, person_uid: personUid, join_time: joinTime })
          .onConflict((oc) => oc.columns(["organization_uid", "person_uid"]).doNothing())
          .execute(),
      );
    },

    async memberships(personUids) {
      if (personUids.length === 0) return [];
      const rows = await guard(() =>
        db
          .selectFrom("organization_members")
          .select(["organization_uid", "person_uid"])
          .where("person_uid", "in", [...personUids])
          .execute(),
      );
      return rows.map((r) => ({ organizationUid: r.organization_uid, personUid: r.person_uid }));
    },

    list: lists.list,
    count: lists.count,
  };
}

function matching(filter: ResourceFilter) {
  return listConditions(filter, { uid: "uid", parent: "parent_uid", visible });
}

function identitiesTable(db: Executor, engine: Engine) {
  return resourceTable(db, engine, { table: "identities", toRecord: toIdentity, matching, sortColumns: NAMED_SORT_COLUMNS });
}

/**
 * Identities in the subtrees of tops, and people bound to a role at a group in them, in an
 * organization they have joined (a person's profile is theirs to show, migration 0010).
 */
function visible(tops: readonly string[]) {
  return sql<SqlBool>`(${visibleUnder("uid", tops)} or (${sql.ref("parent_uid")} is null and exists (
    select 1 from role_bindings as b
    join organization_members as m on m.person_uid = b.identity_uid and m.organization_uid = substr(b.group_uid, 1, 40)
    where b.identity_uid = ${sql.ref("identities.uid")} and ${visibleUnder("b.group_uid", tops)}
  )))`;
}

/** ALREADY_EXISTS for a clash: a sibling's name in a group; only the uid can clash at the root. */
function taken(uid: string, parentUid: string | null, name: string): ApiError {
  return parentUid === null ? alreadyExists(`identity ${uid}`) : nameTaken("identity", parentUid, name);
}

function relationshipColumns(r: Relationship): Pick<IdentitiesTable, "relationship" | "issuer" | "subject"> {
  return { relationship: JSON.stringify(r), ...exactIssuerSubject(r) };
}

const columns = snakeColumns<IdentityRecord, Exclude<keyof IdentityRecord, "relationship">>({ ...NAMED_FIELDS, lastSeenTime: true });

function toRow(i: IdentityRecord): IdentitiesTable {
  return { ...columns.toRow(i), ...relationshipColumns(i.relationship) };
}

function toIdentity(row: IdentitiesTable): IdentityRecord {
  return { ...columns.toRecord(row), relationship: JSON.parse(row.relationship) as Relationship };
}
