/**
 * Account associations in the `account_associations` table: at most one per group, keyed by the
 * group's uid, gone with the group (ON DELETE CASCADE). Each cloud provider's settings are a JSON
 * column, null when the association has none.
 */
import { sql } from "kysely";
import { alreadyExists, notFound } from "../domain/errors.js";
import type { AccountAssociationRecord } from "../domain/account-associations.js";
import type { Engine } from "./dialect.js";
import type { AccountAssociationsTable, Executor } from "./tables.js";
import { listConditions } from "./resource-filter.js";
import { NAMED_SORT_COLUMNS, resourceTable } from "./resource-table.js";
import type { ResourceFilter } from "../domain/hierarchy.js";
import type { RowWindow } from "./row-window.js";

/** Account associations, one per group at most, keyed by the group's uid. */
export interface AccountAssociationStore {
  /** Inserts an association. ALREADY_EXISTS when the group has one; NOT_FOUND when the group is gone. */
  insert(association: AccountAssociationRecord): Promise<void>;
  /** The association, or undefined. */
  get(uid: string): Promise<AccountAssociationRecord | undefined>;
  /** As get, the row held until the surrounding store.atomically ends: the read of a read-modify-write. */
  lock(uid: string): Promise<AccountAssociationRecord | undefined>;
  /** Replaces the fields given (a provider set to null is removed) and sets updateTime; undefined when none exists. */
  update(
    uid: string,
    changes: Partial<Omit<AccountAssociationRecord, "uid" | "createTime" | "updateTime" | "amazon" | "google" | "azure" | "github">> & {
      amazon?: AccountAssociationRecord["amazon"] | null;
      google?: AccountAssociationRecord["google"] | null;
      azure?: AccountAssociationRecord["azure"] | null;
      github?: AccountAssociationRecord["github"] | null;
    },
    updateTime: number,
  ): Promise<AccountAssociationRecord | undefined>;
  /** Deletes an association; false when there was none. */
  delete(uid: string): Promise<boolean>;
  /**
   * The associations matching filter (fields: name, create_time, update_time, uid). Hierarchy
   * filters apply to the uid as to a group's (the parent is the group's parent).
   */
  list(filter: ResourceFilter, window: RowWindow): Promise<AccountAssociationRecord[]>;
  /** How many associations match filter. */
  count(filter: ResourceFilter): Promise<number>;
}

const PROVIDERS = ["amazon", "google", "azure", "github"] as const;
type Provider = (typeof PROVIDERS)[number];
type Providers = { [P in Provider]?: AccountAssociationRecord[P] | null };

/**
 * The table has no parent column: an association's parent is its group's parent, read from
 * groups by the uid (the foreign key keeps that row there). A lookup by primary key rather than
 * arithmetic on the uid, so it holds whatever a uid looks like.
 */
const PARENT = sql<string | null>`(select g.parent_uid from groups as g where g.uid = ${sql.ref("account_associations.uid")})`;

/** The account association store over an executor. */
export function createAccountAssociationStore(db: Executor, engine: Engine): AccountAssociationStore {
  const table = resourceTable(db, engine, {
    table: "account_associations",
    toRecord: toAssociation,
    matching: (filter: ResourceFilter) => listConditions(filter, { uid: "uid", parent: PARENT }),
    sortColumns: NAMED_SORT_COLUMNS,
  });

  return {
    insert: (a) =>
      table.insert(toRow(a), {
        violations: {
          unique: () => alreadyExists(`an account association for group ${a.uid}`),
          foreignKey: () => notFound("group", a.uid),
        },
      }),

    get: table.get,
    lock: (uid) => table.lock(uid, "update_time"),

    update: (uid, changes, updateTime) =>
      table.update(uid, { name: changes.name, description: changes.description, ...providerColumns(changes), update_time: updateTime }),

    delete: (uid) => table.delete(uid),
    list: table.list,
    count: table.count,
  };
}

type ProviderColumns = Pick<AccountAssociationsTable, Provider>;

/**
 * Each provider's column: JSON of its settings, null for null, and `missing` (undefined: leave
 * the column alone) for a provider not given.
 */
function providerColumns(providers: Providers, missing: null): ProviderColumns;
function providerColumns(providers: Providers): Partial<ProviderColumns>;
function providerColumns(providers: Providers, missing?: null): Partial<ProviderColumns> {
  return Object.fromEntries(
    PROVIDERS.map((p) => {
      const value = providers[p];
      return [p, value === undefined ? missing : value === null ? null : JSON.stringify(value)];
    }),
  );
}

function toRow(a: AccountAssociationRecord): AccountAssociationsTable {
  return {
    uid: a.uid,
    name: a.name,
    description: a.description,
    ...providerColumns(a, null),
    create_time: a.createTime,
    update_time: a.updateTime,
  };
}

function toAssociation(row: AccountAssociationsTable): AccountAssociationRecord {
  const record: AccountAssociationRecord = {
    uid: row.uid,
    name: row.name,
    description: row.description,
    createTime: row.create_time,
    updateTime: row.update_time,
  };
  for (const p of PROVIDERS) {
    const json = row[p];
    if (json !== null) Object.assign(record, { [p]: JSON.parse(json) });
  }
  return record;
}
