/**
 * The v2beta1 role bindings service: an identity holds a role at a group and everything below it.
 * Responses are hydrated with the identity, group and role (spec, RoleBinding).
 */
import { create } from "@bufbuild/protobuf";
import { EmptySchema, type Empty } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
import { invalidArgument, notFound } from "../../domain/errors.js";
import { resolveUpdateMask } from "../../domain/field-mask.js";
import { hierarchyFilter } from "../../domain/hierarchy.js";
import { bindingSortable, bindingSortValue, bindingUpdatable } from "../../domain/role-binding-rules.js";
import { newChildUid, requireUid } from "../../domain/uid.js";
import {
  ListRoleBindingsResponseSchema,
  type CreateRoleBindingRequest,
  type DeleteRoleBindingRequest,
  type GetRoleBindingRequest,
  type ListRoleBindingsRequest,
  type ListRoleBindingsResponse,
  type RoleBinding,
  type UpdateRoleBindingRequest,
} from "../../gen/arbor/iam/v2beta1/role_bindings_pb.js";
import type { BindingFilter, BindingRecord } from "../../domain/role-bindings.js";
import type { CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { listing } from "../list-page.js";
import { hydrateBindings } from "./role-binding-hydration.js";
import { checkBindingTarget } from "./role-binding-target.js";

/** The list filters of a request, checked: each names a uid. */
function bindingQuery(req: ListRoleBindingsRequest): Omit<BindingFilter, "visibleUnder"> {
  const query: Omit<BindingFilter, "visibleUnder"> = { uidp: hierarchyFilter(req.uidp) };
  if (req.identity !== "") query.identity = requireUid("identity", req.identity);
  if (req.group !== "") query.group = requireUid("group", req.group);
  if (req.role !== "") query.role = requireUid("role", req.role);
  return query;
}

export function createRoleBindingsService(deps: ServiceDeps) {
  const { store, clock, ids, pageTokens } = deps;
  const bindingsListing = listing({
    resource: "roleBindings",
    sortable: bindingSortable,
    sortValue: bindingSortValue,
    source: () => store.bindings,
    tokens: pageTokens,
  });
  return {
    async listRoleBindings(req: ListRoleBindingsRequest, ctx: CallContext): Promise<ListRoleBindingsResponse> {
      const query = bindingQuery(req);
      // Anyone may see their own bindings (what `arbor auth status` shows), whatever else they may list.
      const own = query.identity !== undefined && query.identity === ctx.principal?.uid;
      const visibleUnder = own ? undefined : (await ctx.permissions()).scopes([Capability.CAP_IAM_ROLE_BINDINGS_LIST]);
      const { items, ...envelope } = await bindingsListing.page(req, query, visibleUnder);
      return create(ListRoleBindingsResponseSchema, { roleBindings: await hydrateBindings(store, items, ctx.principal?.uid), ...envelope });
    },

    async getRoleBinding(req: GetRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      const uid = requireUid("uid", req.uid);
      const binding = await store.bindings.get(uid);
      if (!binding) throw notFound("role binding", uid);
      return (await hydrateBindings(store, [binding], ctx.principal?.uid))[0] as RoleBinding;
    },

    async createRoleBinding(req: CreateRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      const groupUid = requireUid("parent", req.parent);
      const sent = req.roleBinding;
      const target = await checkBindingTarget(store, await ctx.permissions(), {
        groupUid,
        identityUid: sent?.identityUid,
        roleUid: sent?.roleUid,
      });
      const binding: BindingRecord = {
        uid: newChildUid(ids, groupUid),
        groupUid,
        identityUid: target.identityUid,
        roleUid: target.roleUid,
        createTime: clock.now(),
      };
      await store.bindings.insert(binding);
      return (await hydrateBindings(store, [binding], ctx.principal?.uid))[0] as RoleBinding;
    },

    async updateRoleBinding(req: UpdateRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      const sent = req.roleBinding;
      if (sent === undefined) throw invalidArgument("role_binding", "is required");
      const uid = requireUid("uid", sent.uid);
      const populated = [...(sent.identityUid !== undefined ? ["identity_uid"] : []), ...(sent.roleUid !== undefined ? ["role_uid"] : [])];
      const mask = resolveUpdateMask(req.updateMask?.paths, bindingUpdatable, populated);
      if (mask.size === 0) {
        const current = await store.bindings.get(uid);
        if (!current) throw notFound("role binding", uid);
        return (await hydrateBindings(store, [current], ctx.principal?.uid))[0] as RoleBinding;
      }
      // Permissions first: they are never read inside a transaction that changes bindings (Authorizer).
      const permissions = await ctx.permissions();
      // The binding is held from the read to the write, so a concurrent PATCH of the other field
      // waits and then builds on this one (no lost update), and the pair written is the pair checked.
      const done = await store.atomically(async (tx) => {
        const current = await tx.bindings.lock(uid);
        if (!current) return undefined;
        // The binding as it would be is checked whole: a new identity is granted the role as surely
        // as a new role is granted to the identity.
        const target = await checkBindingTarget(tx, permissions, {
          groupUid: current.groupUid,
          identityUid: mask.has("identity_uid") ? sent.identityUid : current.identityUid,
          roleUid: mask.has("role_uid") ? sent.roleUid : current.roleUid,
        });
        const updated = await tx.bindings.update(uid, { identityUid: target.identityUid, roleUid: target.roleUid });
        return updated && { updated, target };
      });
      if (!done) throw notFound("role binding", uid);
      return (await hydrateBindings(store, [done.updated], ctx.principal?.uid))[0] as RoleBinding;
    },

    async deleteRoleBinding(req: DeleteRoleBindingRequest): Promise<Empty> {
      // Idempotent (AIP-135): deleting a binding that is not there succeeds. The invoker has
      // already checked role_bindings.delete on the uid, so nothing is learned by probing.
      await store.bindings.delete(requireUid("uid", req.uid));
      return create(EmptySchema);
    },
  };
}
