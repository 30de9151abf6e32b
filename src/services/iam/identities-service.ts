/**
 * The v2beta1 identities service: request to domain call to response. No SQL, no HTTP.
 *
 * Identities in groups are authorized at their uid by the invoker, except GetIdentity, which is
 * checked here so that people (root-level identities, on whom nobody holds a binding) can be
 * read too: by themselves, and by whoever may list identities in a group where they are bound.
 * Update and Delete of a person stay refused by the invoker's scope check: people are managed
 * through login.
 */
import { create } from "@bufbuild/protobuf";
import type { Empty } from "@bufbuild/protobuf/wkt";
import { Capability, capabilityName } from "../../domain/capabilities.js";
import { permissionDenied } from "../../domain/errors.js";
import type { IdentityRecord, Relationship } from "../../domain/identities.js";
import { identitySortable, identitySortValue, identityUpdatable, validateRelationship } from "../../domain/identity-rules.js";
import { masksRelationship, updatedRelationship } from "../../domain/identity-update.js";
import { namedChanges, validateDescription, validateName } from "../../domain/names.js";
import { isRoot, newChildUid, requireUid } from "../../domain/uid.js";
import {
  ListIdentitiesResponseSchema,
  type CreateIdentityRequest,
  type DeleteIdentityRequest,
  type ExplainExchangeRequest,
  type ExplainExchangeResponse,
  type GetIdentityRequest,
  type Identity,
  type ExchangeTokenRequest,
  type ExchangeTokenResponse,
  type LookupIdentityRequest,
  type LookupIdentityResponse,
  type UpdateIdentityRequest,
} from "../../gen/arbor/iam/v2beta1/identities_pb.js";
import { callerOf, type CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { exchangeToken, explainExchange, lookupIdentity } from "./identity-exchange.js";
import { identityMessage, populatedPaths, relationshipInput } from "./identity-messages.js";
import { deletedOrNotFound, found, updateHead } from "../crud.js";
import { listRpc, namedQuery } from "../list-page.js";

const LIST = [Capability.CAP_IAM_IDENTITY_LIST];

export function createIdentitiesService(deps: ServiceDeps) {
  const { store, clock, ids, pageTokens, settings } = deps;
  const rules = (now: number) => ({
    now,
    allowHttpLoopbackIssuers: settings.allowHttpLoopbackIssuers,
    allowPrivateIssuers: settings.allowPrivateIssuers,
  });

  /** The identity at uid if the caller may read it; permission is decided before existence. */
  async function readable(uid: string, ctx: CallContext): Promise<IdentityRecord | undefined> {
    const permissions = await ctx.permissions();
    if (!isRoot(uid)) {
      if (!permissions.allows(LIST, uid)) throw denied(uid);
      return store.identities.get(uid);
    }
    if (uid === callerOf(ctx).uid) return store.identities.get(uid);
    // A person is visible where they are bound: the list's visibility rule says where that is.
    const visibleUnder = permissions.scopes(LIST);
    const window = { order: [{ field: "uid", desc: false }], offset: 0, limit: 1 };
    const [person] = visibleUnder.length === 0 ? [] : await store.identities.list({ uidp: { ids: [uid] }, visibleUnder }, window);
    if (person === undefined) throw denied(uid);
    return person;
  }

  return {
    listIdentities: listRpc(pageTokens, {
      resource: "identities",
      sortable: identitySortable,
      sortValue: identitySortValue,
      source: () => store.identities,
      query: namedQuery,
      visibleWith: LIST,
      respond: (items, page) => create(ListIdentitiesResponseSchema, { identities: items.map(identityMessage), ...page }),
    }),

    async getIdentity(req: GetIdentityRequest, ctx: CallContext): Promise<Identity> {
      const uid = requireUid("uid", req.uid);
      return identityMessage(found(await readable(uid, ctx), "identity", uid));
    },

    async createIdentity(req: CreateIdentityRequest): Promise<Identity> {
      const parent = requireUid("parent", req.parent);
      const name = req.identity?.name ?? "";
      const description = req.identity?.description ?? "";
      validateName(name);
      validateDescription(description);
      const now = clock.now();
      const relationship = validateRelationship(relationshipInput(req.identity), rules(now));
      const identity: IdentityRecord = {
        uid: newChildUid(ids, parent),
        parentUid: parent,
        name,
        description,
        relationship,
        lastSeenTime: null,
        createTime: now,
        updateTime: now,
      };
      // The store answers NOT_FOUND (group <parent>) when the parent is not a group.
      await store.identities.insert(identity);
      return identityMessage(identity);
    },

    async updateIdentity(req: UpdateIdentityRequest): Promise<Identity> {
      const head = updateHead("identity", req.identity, req.updateMask, identityUpdatable, populatedPaths);
      const { uid, mask } = head;
      const changes: { name?: string; description?: string; relationship?: Relationship } = namedChanges(mask, head.sent);
      const now = clock.now();
      const sent = relationshipInput(head.sent);
      // A member-level change merges into the stored relationship: the read, the merge and the
      // write share one transaction holding the row, so a concurrent PATCH of another member waits
      // for this one instead of writing back a relationship read before it (a lost update).
      const updated = masksRelationship(mask)
        ? await store.atomically(async (tx) => {
            const current = await tx.identities.lock(uid);
            if (!current) return undefined;
            const relationship = validateRelationship(updatedRelationship(current.relationship, sent, mask), rules(now));
            return tx.identities.update(uid, { ...changes, relationship }, now);
          })
        : Object.keys(changes).length === 0
          ? await store.identities.get(uid)
          : await store.identities.update(uid, changes, now);
      return identityMessage(found(updated, "identity", uid));
    },

    async deleteIdentity(req: DeleteIdentityRequest): Promise<Empty> {
      const uid = requireUid("uid", req.uid);
      // The store deletes the role bindings that name it, in the same transaction.
      return deletedOrNotFound(await store.identities.delete(uid), "identity", uid);
    },

    async lookupIdentity(req: LookupIdentityRequest): Promise<LookupIdentityResponse> {
      return lookupIdentity(req);
    },

    async explainExchange(req: ExplainExchangeRequest): Promise<ExplainExchangeResponse> {
      return explainExchange(deps, req);
    },

    async exchangeToken(req: ExchangeTokenRequest): Promise<ExchangeTokenResponse> {
      return exchangeToken(deps, req);
    },
  };
}

function denied(uid: string) {
  return permissionDenied(`the caller lacks ${LIST.map(capabilityName).join(", ")} on ${uid}`);
}
