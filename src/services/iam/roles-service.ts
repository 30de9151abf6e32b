/**
 * The v2beta1 roles service: the built-in roles, readable by every caller, and custom roles in
 * groups. Built-in roles never change through the API.
 */
import { builtinRoleUnchangeable } from "../../domain/role-refusals.js";
import { create } from "@bufbuild/protobuf";
import type { Empty } from "@bufbuild/protobuf/wkt";
import { Capability, capabilityName } from "../../domain/capabilities.js";
import { invalidArgument, permissionDenied } from "../../domain/errors.js";
import { namedChanges, validateDescription, validateName } from "../../domain/names.js";
import type { RoleRecord } from "../../domain/roles.js";
import {
  customRoleCapabilities,
  isBuiltinRole,
  roleCapabilities,
  roleSortable,
  roleSortValue,
  roleUpdatable,
} from "../../domain/role-rules.js";
import { newChildUid, requireUid } from "../../domain/uid.js";
import {
  ListRolesResponseSchema,
  RoleSchema,
  type CreateRoleRequest,
  type DeleteRoleRequest,
  type GetRoleRequest,
  type Role,
  type UpdateRoleRequest,
} from "../../gen/arbor/iam/v2beta1/roles_pb.js";
import type { CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { deletedOrNotFound, found, namedFields, setFields, updateHead } from "../crud.js";
import { listRpc, namedQuery } from "../list-page.js";

const LIST = [Capability.CAP_IAM_ROLES_LIST];

/** The role resource as the API shows it; capabilities in catalogue order. */
export function roleMessage(r: RoleRecord): Role {
  return create(RoleSchema, {
    ...namedFields(r),
    capabilities: [...roleCapabilities(r.uid, r.capabilities)],
  });
}

export function createRolesService(deps: ServiceDeps) {
  const { store, clock, ids, pageTokens } = deps;
  return {
    listRoles: listRpc(pageTokens, {
      resource: "roles",
      sortable: roleSortable,
      sortValue: roleSortValue,
      source: () => store.roles,
      query: namedQuery,
      // Built-in roles are always visible (the store's rule); custom ones where roles.list is held.
      visibleWith: LIST,
      respond: (items, page) => create(ListRolesResponseSchema, { roles: items.map(roleMessage), ...page }),
    }),

    async getRole(req: GetRoleRequest, ctx: CallContext): Promise<Role> {
      const uid = requireUid("uid", req.uid);
      // Declared unscoped so that built-in roles, which sit at no group, are readable by anyone;
      // a custom role needs roles.list on it, checked before whether it exists.
      if (!isBuiltinRole(uid) && !(await ctx.permissions()).allows(LIST, uid)) {
        throw permissionDenied(`the caller lacks ${LIST.map(capabilityName).join(", ")} on ${uid}`);
      }
      return roleMessage(found(await store.roles.get(uid), "role", uid));
    },

    async createRole(req: CreateRoleRequest): Promise<Role> {
      const parent = requireUid("parent", req.parent);
      if (req.role === undefined) throw invalidArgument("role", "is required");
      validateName(req.role.name);
      validateDescription(req.role.description);
      const capabilities = customRoleCapabilities(req.role.capabilities);
      const now = clock.now();
      const role: RoleRecord = {
        uid: newChildUid(ids, parent),
        parentUid: parent,
        name: req.role.name,
        description: req.role.description,
        capabilities,
        createTime: now,
        updateTime: now,
      };
      await store.roles.insert(role);
      return roleMessage(role);
    },

    async updateRole(req: UpdateRoleRequest): Promise<Role> {
      const { sent, uid, mask } = updateHead("role", req.role, req.updateMask, roleUpdatable, (r) =>
        setFields(RoleSchema, r, ["name", "description", "capabilities"]),
      );
      const changes: { name?: string; description?: string; capabilities?: string[] } = namedChanges(mask, sent);
      if (mask.has("capabilities")) changes.capabilities = customRoleCapabilities(sent.capabilities);
      if (mask.size > 0 && isBuiltinRole(uid)) throw builtinRoleUnchangeable(uid);
      const updated = mask.size === 0 ? await store.roles.get(uid) : await store.roles.update(uid, changes, clock.now());
      return roleMessage(found(updated, "role", uid));
    },

    async deleteRole(req: DeleteRoleRequest): Promise<Empty> {
      const uid = requireUid("uid", req.uid);
      if (isBuiltinRole(uid)) throw builtinRoleUnchangeable(uid);
      return deletedOrNotFound(await store.roles.delete(uid), "role", uid);
    },
  };
}
