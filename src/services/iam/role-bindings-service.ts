/**
 * The v2beta1 role bindings service: an identity holds a role at a group and everything below it.
 * Responses are hydrated with the identity, group and role (spec, RoleBinding).
 */
import { create } from "@bufbuild/protobuf";
import { EmptySchema, type Empty } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
import { hierarchyFilter } from "../../domain/hierarchy.js";
import { bindingSortable, bindingSortValue, bindingUpdatable } from "../../domain/role-binding-rules.js";
import { newChildUid, requireUid } from "../../domain/uid.js";
import {
  ListRoleBindingsResponseSchema,
  RoleBindingSchema,
  type CreateRoleBindingRequest,
  type DeleteRoleBindingRequest,
  type GetRoleBindingRequest,
  type ListRoleBindingsRequest,
  type RoleBinding,
  type UpdateRoleBindingRequest,
} from "../../gen/arbor/iam/v2beta1/role_bindings_pb.js";
import type { BindingFilter, BindingRecord } from "../../domain/role-bindings.js";
import type { CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { found, setFields, updateHead } from "../crud.js";
import { listRpc } from "../list-page.js";
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
  const hydrated = async (binding: BindingRecord, ctx: CallContext) =>
    (await hydrateBindings(store, [binding], ctx.principal?.uid))[0] as RoleBinding;
  return {
    listRoleBindings: listRpc(pageTokens, {
      resource: "roleBindings",
      sortable: bindingSortable,
      sortValue: bindingSortValue,
      source: () => store.bindings,
      query: bindingQuery,
      // Anyone may see their own bindings (what `arbor auth status` shows), whatever else they may list.
      visibleWith: async (query, ctx) =>
        query.identity !== undefined && query.identity === ctx.principal?.uid
          ? undefined
          : (await ctx.permissions()).scopes([Capability.CAP_IAM_ROLE_BINDINGS_LIST]),
      respond: async (items, page, ctx) =>
        create(ListRoleBindingsResponseSchema, { roleBindings: await hydrateBindings(store, items, ctx.principal?.uid), ...page }),
    }),

    async getRoleBinding(req: GetRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      const uid = requireUid("uid", req.uid);
      return hydrated(found(await store.bindings.get(uid), "role binding", uid), ctx);
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
      return hydrated(binding, ctx);
    },

    async updateRoleBinding(req: UpdateRoleBindingRequest, ctx: CallContext): Promise<RoleBinding> {
      const { sent, uid, mask } = updateHead("role_binding", req.roleBinding, req.updateMask, bindingUpdatable, (b) =>
        setFields(RoleBindingSchema, b, ["identity_uid", "role_uid"]),
      );
      if (mask.size === 0) return hydrated(found(await store.bindings.get(uid), "role binding", uid), ctx);
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
      return hydrated(found(done, "role binding", uid).updated, ctx);
    },

    async deleteRoleBinding(req: DeleteRoleBindingRequest): Promise<Empty> {
      // Idempotent (AIP-135): deleting a binding that is not there succeeds. The invoker has
      // already checked role_bindings.delete on the uid, so nothing is learned by probing.
      await store.bindings.delete(requireUid("uid", req.uid));
      return create(EmptySchema);
    },
  };
}
