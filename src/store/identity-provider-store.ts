/**
 * Identity providers in the `identity_providers` table. They go with their group (ON DELETE
 * CASCADE); their default role must exist (a foreign key), and is kept by them from deletion.
 */
import type { AuthorityRecorder } from "../domain/authority.js";
import { notFound } from "../domain/errors.js";
import { identityProviderSortValue } from "../domain/identity-provider-rules.js";
import type { SecretBox } from "../domain/secret-box.js";
import type { IdentityProviderRecord, OidcSettings } from "../domain/identity-providers.js";
import { parentOf } from "../domain/uid.js";
import type { Executor, IdentityProvidersTable } from "./tables.js";
import { resealColumn, sealingWith, type Sealing } from "./sealing.js";
import { NAMED_FIELDS, snakeColumns } from "./snake-columns.js";
import type { Engine } from "./dialect.js";
import { ownUidLists } from "./list-changes.js";
import type { ScopeMemory } from "./scope-memory.js";
import { listConditions } from "./resource-filter.js";
import { missingGroupOrRole, nameTaken, NAMED_SORT_COLUMNS, resourceTable } from "./resource-table.js";
import type { ResourceFilter } from "../domain/hierarchy.js";
import type { RowWindow } from "./row-window.js";

export interface IdentityProviderStore {
  /** Inserts a provider. ALREADY_EXISTS for a sibling's name; NOT_FOUND when its group or default role is gone. */
  insert(provider: IdentityProviderRecord): Promise<void>;
  /** The provider, or undefined. */
  get(uid: string): Promise<IdentityProviderRecord | undefined>;
  /** As get, the row held until the surrounding store.atomically ends: the read of a read-modify-write. */
  lock(uid: string): Promise<IdentityProviderRecord | undefined>;
  /** Applies changes and sets updateTime; undefined when it does not exist. */
  update(
    uid: string,
    changes: { name?: string; description?: string; defaultRole?: string; oidc?: Partial<OidcSettings> },
    updateTime: number,
  ): Promise<IdentityProviderRecord | undefined>;
  /** Deletes a provider; false when it does not exist. */
  delete(uid: string): Promise<boolean>;
  /** The providers matching filter (fields: name, create_time, update_time, uid). */
  list(filter: ResourceFilter, window: RowWindow): Promise<IdentityProviderRecord[]>;
  /** How many providers match filter. */
  count(filter: ResourceFilter): Promise<number>;
  /**
   * Whether issuer is an organization's login provider's: that of the oldest provider (by
   * create_time, then uid) in an organization's root group, the one its logins go through.
   */
  isLoginIssuer(issuer: string): Promise<boolean>;
  /**
   * Seals every client secret not sealed under the current key (plain text, or an older key); how
   * many. With checkOnly, only opens them all (throwing when one does not open) and counts.
   */
  resealSecrets(checkOnly?: boolean): Promise<number>;
}

/**
 * The identity provider store over an executor. Client secrets are sealed with secrets before
 * they are written and opened when read; without a box, a provider with a client secret can be
 * neither written nor read (never plain text at rest).
 */
export function createIdentityProviderStore(
  db: Executor,
  engine: Engine,
  secrets: SecretBox | undefined,
  record: AuthorityRecorder,
  memory: ScopeMemory,
): IdentityProviderStore {
  const sealing = sealingWith(secrets, "this identity provider's client secret");
  const toRow = (p: IdentityProviderRecord) => rowOf(p, sealing.seal);
  const matching = (filter: ResourceFilter) => listConditions(filter, { uid: "uid", parent: "parent_uid" });
  const table = resourceTable(db, engine, {
    table: "identity_providers",
    toRecord: (row: IdentityProvidersTable) => toProvider(row, sealing.open),
    matching,
    sortColumns: NAMED_SORT_COLUMNS,
  });

  return {
    async insert(p) {
      await table.insert(toRow(p), {
        violations: {
          unique: () => nameTaken("identity provider", p.parentUid, p.name),
          foreignKey: () => missingGroupOrRole(db, p.parentUid, p.defaultRole),
        },
        survivable: true,
      });
      record({ kind: "login-provider", groupUid: p.parentUid, defaultRoleUid: p.defaultRole });
    },

    get: table.get,
    lock: (uid) => table.lock(uid, "update_time"),

    async update(uid, changes, updateTime) {
      const updated = await table.update(
        uid,
        {
          name: changes.name,
          description: changes.description,
          default_role: changes.defaultRole,
          ...(changes.oidc && oidcColumns(changes.oidc, sealing.seal)),
          update_time: updateTime,
        },
        {
          violations: {
            unique: () => nameTaken("identity provider", parentOf(uid) ?? null, changes.name ?? ""),
            // The group never changes, so the default role is the only parent that can be missing.
            foreignKey: () => notFound("role", changes.defaultRole ?? ""),
          },
        },
      );
      // Its name and description decide nothing; any other change decides who logs in or what
      // they are given.
      if (updated && (changes.defaultRole !== undefined || changes.oidc !== undefined)) {
        record({ kind: "login-provider", groupUid: updated.parentUid, defaultRoleUid: updated.defaultRole });
      }
      return updated;
    },

    delete: (uid) => table.delete(uid),
    ...ownUidLists<ResourceFilter, IdentityProviderRecord>(db, engine, memory, {
      name: "identity_providers",
      list: table.list,
      count: table.count,
      fromRow: table.fromRow,
      matching,
      sortValue: identityProviderSortValue,
      narrower: () => false,
    }),

    async isLoginIssuer(issuer) {
      const found = await db
        .selectFrom("identity_providers as p")
        .select("p.uid")
        .where("p.issuer", "=", issuer)
        // An organization's root group: a root uid has no `/`.
        .where("p.parent_uid", "not like", "%/%")
        // No older sibling: the provider chooseProvider (auth/login-provider.ts) picks.
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("identity_providers as o")
                .select("o.uid")
                .whereRef("o.parent_uid", "=", "p.parent_uid")
                .where(({ or, and, eb }) =>
                  or([
                    eb("o.create_time", "<", eb.ref("p.create_time")),
                    and([eb("o.create_time", "=", eb.ref("p.create_time")), eb("o.uid", "<", eb.ref("p.uid"))]),
                  ]),
                ),
            ),
          ),
        )
        .limit(1)
        .executeTakeFirst();
      return found !== undefined;
    },

    resealSecrets: (checkOnly = false) =>
      resealColumn(db, sealing, { table: "identity_providers", key: "uid", value: "client_secret" }, checkOnly),
  };
}

type OidcColumns = Pick<IdentityProvidersTable, "issuer" | "client_id" | "client_secret" | "additional_scopes" | "groups_claim">;

/** The columns of the OIDC settings given; those not given stay undefined (unchanged). */
function oidcColumns(o: OidcSettings, seal: Sealing["seal"]): OidcColumns;
function oidcColumns(o: Partial<OidcSettings>, seal: Sealing["seal"]): Partial<OidcColumns>;
function oidcColumns(o: Partial<OidcSettings>, seal: Sealing["seal"]): Partial<OidcColumns> {
  return {
    issuer: o.issuer,
    client_id: o.clientId,
    client_secret: o.clientSecret === undefined ? undefined : seal(o.clientSecret),
    additional_scopes: o.additionalScopes && JSON.stringify(o.additionalScopes),
    groups_claim: o.groupsClaim,
  };
}

const columns = snakeColumns<IdentityProviderRecord, Exclude<keyof IdentityProviderRecord, "oidc">>({ ...NAMED_FIELDS, defaultRole: true });

function rowOf(p: IdentityProviderRecord, seal: Sealing["seal"]): IdentityProvidersTable {
  return { ...columns.toRow(p), ...oidcColumns(p.oidc, seal) };
}

function toProvider(row: IdentityProvidersTable, open: Sealing["open"]): IdentityProviderRecord {
  const oidc = {
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: open(row.client_secret),
    additionalScopes: JSON.parse(row.additional_scopes) as string[],
    groupsClaim: row.groups_claim,
  };
  return { ...columns.toRecord(row), oidc };
}
