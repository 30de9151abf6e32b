/**
 * The v2beta1 account associations service: which cloud accounts belong to a group. At most one
 * association per group, with the group's uid as its own.
 */
import { create } from "@bufbuild/protobuf";
import { EmptySchema, type Empty } from "@bufbuild/protobuf/wkt";
import {
  accountAssociationSortable,
  accountAssociationSortValue,
  accountAssociationUpdatable,
  PROVIDERS,
  providerChanges,
  requireAnyProvider,
  validateProviders,
  type Providers,
} from "../../domain/account-association-rules.js";
import { Capability } from "../../domain/capabilities.js";
import { namedChanges, validateDescription, validateName } from "../../domain/names.js";
import type { AccountAssociationRecord } from "../../domain/account-associations.js";
import { requireUid } from "../../domain/uid.js";
import {
  AccountAssociationSchema,
  ListAccountAssociationsResponseSchema,
  type AccountAssociation,
  type CreateAccountAssociationRequest,
  type DeleteAccountAssociationRequest,
  type GetAccountAssociationRequest,
  type UpdateAccountAssociationRequest,
} from "../../gen/arbor/iam/v2beta1/account_associations_pb.js";
import type { ServiceDeps } from "../deps.js";
import { found, namedFields, setFields, updateHead } from "../crud.js";
import { listRpc, namedQuery } from "../list-page.js";

const LIST = [Capability.CAP_IAM_ACCOUNT_ASSOCIATIONS_LIST];

/** The association as the API shows it; a provider that is not associated is absent. */
export function accountAssociationMessage(a: AccountAssociationRecord): AccountAssociation {
  return create(AccountAssociationSchema, {
    ...namedFields(a),
    ...(a.amazon && { amazon: { ...a.amazon } }),
    ...(a.google && { google: { ...a.google } }),
    ...(a.azure && { azure: { tenantId: a.azure.tenantId, clientIds: { ...a.azure.clientIds } } }),
    ...(a.github && {
      github: { installations: a.github.installations.map((i) => ({ installationId: BigInt(i.installationId), name: i.name })) },
    }),
  });
}

/** The providers a request message carries, as the record keeps them (not yet validated). */
function sentProviders(a: AccountAssociation | undefined): Providers {
  return {
    ...(a?.amazon && { amazon: { account: a.amazon.account } }),
    ...(a?.google && { google: { projectId: a.google.projectId, projectNumber: a.google.projectNumber } }),
    ...(a?.azure && { azure: { tenantId: a.azure.tenantId, clientIds: { ...a.azure.clientIds } } }),
    ...(a?.github && {
      github: { installations: a.github.installations.map((i) => ({ installationId: i.installationId.toString(), name: i.name })) },
    }),
  };
}

export function createAccountAssociationsService(deps: ServiceDeps) {
  const { store, clock, pageTokens } = deps;
  return {
    listAccountAssociations: listRpc(pageTokens, {
      resource: "accountAssociations",
      sortable: accountAssociationSortable,
      sortValue: accountAssociationSortValue,
      source: () => store.accountAssociations,
      query: namedQuery,
      visibleWith: LIST,
      respond: (items, page) =>
        create(ListAccountAssociationsResponseSchema, { accountAssociations: items.map(accountAssociationMessage), ...page }),
    }),

    async getAccountAssociation(req: GetAccountAssociationRequest): Promise<AccountAssociation> {
      const uid = requireUid("uid", req.uid);
      return accountAssociationMessage(found(await store.accountAssociations.get(uid), "account association", uid));
    },

    async createAccountAssociation(req: CreateAccountAssociationRequest): Promise<AccountAssociation> {
      const uid = requireUid("parent", req.parent);
      const sent = req.accountAssociation;
      validateName(sent?.name ?? "");
      validateDescription(sent?.description ?? "");
      const providers = sentProviders(sent);
      requireAnyProvider(providers);
      validateProviders(providers);
      const now = clock.now();
      const association: AccountAssociationRecord = {
        uid,
        name: sent?.name ?? "",
        description: sent?.description ?? "",
        ...providers,
        createTime: now,
        updateTime: now,
      };
      await store.accountAssociations.insert(association);
      return accountAssociationMessage(association);
    },

    async updateAccountAssociation(req: UpdateAccountAssociationRequest): Promise<AccountAssociation> {
      const { sent, uid, mask } = updateHead(
        "account_association",
        req.accountAssociation,
        req.updateMask,
        accountAssociationUpdatable,
        (a) => setFields(AccountAssociationSchema, a, ["name", "description", ...PROVIDERS]),
      );
      // The row is held from the read to the write: "at least one provider" is checked against
      // what is stored, so two PATCHes removing different providers must not both pass on one read.
      const updated = await store.atomically(async (tx) => {
        const stored = await tx.accountAssociations.lock(uid);
        if (!stored || mask.size === 0) return stored;
        const changes: Parameters<typeof store.accountAssociations.update>[1] = namedChanges(mask, sent);
        const providers = providerChanges(mask, sentProviders(sent), stored);
        validateProviders(providers);
        requireAnyProvider({ ...stored, ...providers });
        Object.assign(changes, providers);
        return tx.accountAssociations.update(uid, changes, clock.now());
      });
      return accountAssociationMessage(found(updated, "account association", uid));
    },

    async deleteAccountAssociation(req: DeleteAccountAssociationRequest): Promise<Empty> {
      // Idempotent: deleting an association that does not exist succeeds.
      await store.accountAssociations.delete(requireUid("uid", req.uid));
      return create(EmptySchema);
    },
  };
}
