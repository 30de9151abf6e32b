/**
 * Identity providers in the `identity_providers` table. They go with their group (ON DELETE
 * CASCADE); their default role must exist (a foreign key), and is kept by them from deletion.
 */
import { notFound } from "../domain/errors.js";
import type { IdentityProviderRecord, OidcSettings } from "../domain/records.js";
import { parentOf } from "../domain/uid.js";
import type { Executor, IdentityProvidersTable } from "./database.js";
import { listConditions } from "./resource-filter.js";
import { missingGroupOrRole, nameTaken, NAMED_SORT_COLUMNS, resourceTable } from "./resource-table.js";
import type { IdentityProviderStore, ResourceFilter } from "./types.js";

/** The identity provider store over an executor. */
export function createIdentityProviderStore(db: Executor): IdentityProviderStore {
  const table = resourceTable(db, {
    table: "identity_providers",
    toRecord: toProvider,
    matching: (filter: ResourceFilter) => listConditions(filter, { uid: "uid", parent: "parent_uid" }),
    sortColumns: NAMED_SORT_COLUMNS,
  });

  return {
    insert: (p) =>
      table.insert(toRow(p), {
        violations: {
          unique: () => nameTaken("identity provider", p.parentUid, p.name),
          foreignKey: () => missingGroupOrRole(db, p.parentUid, p.defaultRole),
        },
        looksUp: true,
      }),

    get: table.get,

    update: (uid, changes, updateTime) =>
      table.update(
        uid,
        {
          name: changes.name,
          description: changes.description,
          default_role: changes.defaultRole,
          ...(changes.oidc && oidcColumns(changes.oidc)),
          update_time: updateTime,
        },
        {
          violations: {
            unique: () => nameTaken("identity provider", parentOf(uid) ?? null, changes.name ?? ""),
            // The group never changes, so the default role is the only parent that can be missing.
            foreignKey: () => notFound("role", changes.defaultRole ?? ""),
          },
        },
      ),

    delete: (uid) => table.delete(uid),
    list: table.list,
    count: table.count,
  };
}

type OidcColumns = Pick<IdentityProvidersTable, "issuer" | "client_id" | "client_secret" | "additional_scopes" | "groups_claim">;

/** The columns of the OIDC settings given; those not given stay undefined (unchanged). */
function oidcColumns(o: OidcSettings): OidcColumns;
function oidcColumns(o: Partial<OidcSettings>): Partial<OidcColumns>;
function oidcColumns(o: Partial<OidcSettings>): Partial<OidcColumns> {
  return {
    issuer: o.issuer,
    client_id: o.clientId,
    client_secret: o.clientSecret,
    additional_scopes: o.additionalScopes && JSON.stringify(o.additionalScopes),
    groups_claim: o.groupsClaim,
  };
}

function toRow(p: IdentityProviderRecord): IdentityProvidersTable {
  return {
    uid: p.uid,
    parent_uid: p.parentUid,
    name: p.name,
    description: p.description,
    default_role: p.defaultRole,
    ...oidcColumns(p.oidc),
    create_time: p.createTime,
    update_time: p.updateTime,
  };
}

function toProvider(row: IdentityProvidersTable): IdentityProviderRecord {
  return {
    uid: row.uid,
    parentUid: row.parent_uid,
    name: row.name,
    description: row.description,
    defaultRole: row.default_role,
    oidc: {
      issuer: row.issuer,
      clientId: row.client_id,
      clientSecret: row.client_secret,
      additionalScopes: JSON.parse(row.additional_scopes) as string[],
      groupsClaim: row.groups_claim,
    },
    createTime: row.create_time,
    updateTime: row.update_time,
  };
}
