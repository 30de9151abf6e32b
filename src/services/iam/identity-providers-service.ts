/**
 * The v2beta1 identity providers service: the OIDC providers people of an organization log in
 * through. The client secret is write-only: no response ever carries it.
 */
import { create } from "@bufbuild/protobuf";
import type { Empty } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
import { invalidArgument, notFound } from "../../domain/errors.js";
import {
  checkSecretFollowsIssuer,
  identityProviderSortable,
  identityProviderSortValue,
  identityProviderUpdatable,
  oidcChanges,
  populatedOidcPaths,
  type SentOidc,
} from "../../domain/identity-provider-rules.js";
import { namedChanges, validateDescription, validateName } from "../../domain/names.js";
import { OIDC_KEYS, validateOidc, type IssuerPolicy } from "../../domain/oidc-rules.js";
import type { IdentityProviderRecord, OidcSettings } from "../../domain/identity-providers.js";
import { checkRoleUsableIn } from "../../domain/role-placement.js";
import { newChildUid, requireUid } from "../../domain/uid.js";
import {
  IdentityProviderSchema,
  ListIdentityProvidersResponseSchema,
  type CreateIdentityProviderRequest,
  type DeleteIdentityProviderRequest,
  type GetIdentityProviderRequest,
  type IdentityProvider,
  type UpdateIdentityProviderRequest,
} from "../../gen/arbor/iam/v2beta1/identity_providers_pb.js";
import type { Stores } from "../../store/store.js";
import type { ServiceDeps } from "../deps.js";
import { deletedOrNotFound, found, namedFields, setFields, updateHead } from "../crud.js";
import { listRpc, namedQuery } from "../list-page.js";

const LIST = [Capability.CAP_IAM_IDENTITY_PROVIDERS_LIST];

/** The provider as the API shows it: everything but the client secret. */
export function identityProviderMessage(p: IdentityProviderRecord): IdentityProvider {
  const { issuer, clientId, additionalScopes, groupsClaim } = p.oidc;
  return create(IdentityProviderSchema, {
    ...namedFields(p),
    defaultRole: p.defaultRole,
    configuration: { case: "oidc", value: { issuer, clientId, additionalScopes: [...additionalScopes], groupsClaim } },
  });
}

/** The OIDC settings a request message carries; empty ones when it has none. */
function sentOidc(p: IdentityProvider | undefined): SentOidc {
  const o = p?.configuration.case === "oidc" ? p.configuration.value : undefined;
  return {
    issuer: o?.issuer ?? "",
    clientId: o?.clientId ?? "",
    clientSecret: o?.clientSecret,
    additionalScopes: [...(o?.additionalScopes ?? [])],
    groupsClaim: o?.groupsClaim ?? "",
  };
}

/**
 * Checks that roleUid names a role that exists and may be used in groupUid: INVALID_ARGUMENT
 * (`defaultRole`) for a malformed uid or a custom role defined outside the group's ancestry,
 * NOT_FOUND for a missing role.
 */
async function checkDefaultRole(store: Stores, groupUid: string, roleUid: string): Promise<void> {
  requireUid("defaultRole", roleUid);
  checkRoleUsableIn(groupUid, roleUid, "defaultRole");
  if (!(await store.roles.get(roleUid))) throw notFound("role", roleUid);
}

/** The update mask paths an update without a mask changes: the non-empty fields (gRPC). */
function populatedPaths(p: IdentityProvider): string[] {
  return [...setFields(IdentityProviderSchema, p, ["name", "description", "default_role"]), ...populatedOidcPaths(sentOidc(p))];
}

export function createIdentityProvidersService(deps: ServiceDeps) {
  const { store, clock, ids, pageTokens } = deps;
  const policy: IssuerPolicy = {
    allowHttpLoopback: deps.settings.allowHttpLoopbackIssuers,
    allowPrivate: deps.settings.allowPrivateIssuers,
  };
  return {
    listIdentityProviders: listRpc(pageTokens, {
      resource: "identityProviders",
      sortable: identityProviderSortable,
      sortValue: identityProviderSortValue,
      source: () => store.identityProviders,
      query: namedQuery,
      visibleWith: LIST,
      respond: (items, page) =>
        create(ListIdentityProvidersResponseSchema, { identityProviders: items.map(identityProviderMessage), ...page }),
    }),

    async getIdentityProvider(req: GetIdentityProviderRequest): Promise<IdentityProvider> {
      const uid = requireUid("uid", req.uid);
      return identityProviderMessage(found(await store.identityProviders.get(uid), "identity provider", uid));
    },

    async createIdentityProvider(req: CreateIdentityProviderRequest): Promise<IdentityProvider> {
      const parent = requireUid("parent", req.parent);
      const sent = req.identityProvider;
      validateName(sent?.name ?? "");
      validateDescription(sent?.description ?? "");
      requireUid("defaultRole", sent?.defaultRole ?? "");
      if (sent?.configuration.case !== "oidc") throw invalidArgument("oidc", "is required");
      const given = sentOidc(sent);
      const oidc: OidcSettings = { ...given, clientSecret: given.clientSecret ?? "" };
      validateOidc(oidc, policy);
      await checkDefaultRole(store, parent, sent.defaultRole);
      const now = clock.now();
      const provider: IdentityProviderRecord = {
        uid: newChildUid(ids, parent),
        parentUid: parent,
        name: sent.name,
        description: sent.description,
        defaultRole: sent.defaultRole,
        oidc,
        createTime: now,
        updateTime: now,
      };
      await store.identityProviders.insert(provider);
      return identityProviderMessage(provider);
    },

    async updateIdentityProvider(req: UpdateIdentityProviderRequest): Promise<IdentityProvider> {
      const { sent, uid, mask } = updateHead(
        "identity_provider",
        req.identityProvider,
        req.updateMask,
        identityProviderUpdatable,
        populatedPaths,
      );
      // The row is held from the read to the write: the OIDC settings are validated as a whole
      // (stored merged with sent), so a concurrent PATCH must not change what was validated.
      const updated = await store.atomically(async (tx) => {
        const stored = await tx.identityProviders.lock(uid);
        if (!stored || mask.size === 0) return stored;
        const changes: Parameters<Stores["identityProviders"]["update"]>[1] = namedChanges(mask, sent);
        if (mask.has("default_role")) {
          await checkDefaultRole(tx, stored.parentUid, sent.defaultRole);
          changes.defaultRole = sent.defaultRole;
        }
        const oidc = oidcChanges(mask, sentOidc(sent));
        const changed = OIDC_KEYS.filter((k) => k in oidc);
        if (changed.length > 0) {
          validateOidc({ ...stored.oidc, ...oidc }, policy, changed);
          checkSecretFollowsIssuer(stored.oidc, oidc);
          changes.oidc = oidc;
        }
        return tx.identityProviders.update(uid, changes, clock.now());
      });
      return identityProviderMessage(found(updated, "identity provider", uid));
    },

    async deleteIdentityProvider(req: DeleteIdentityProviderRequest): Promise<Empty> {
      const uid = requireUid("uid", req.uid);
      return deletedOrNotFound(await store.identityProviders.delete(uid), "identity provider", uid);
    },
  };
}
