/**
 * The v2beta1 group invites service. An invite's code is shown once, in the create response;
 * only its SHA-256 is stored. No one may invite to a role that grants more than they hold.
 */
import { create } from "@bufbuild/protobuf";
import { timestampFromMs, type Empty } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
import { invalidArgument, notFound } from "../../domain/errors.js";
import { resolveUpdateMask, toSnake } from "../../domain/field-mask.js";
import {
  groupInviteSortable,
  groupInviteSortValue,
  groupInviteUpdatable,
  inviteTtlMs,
  validateInviteEmail,
  validateKeyIdFilter,
} from "../../domain/group-invite-rules.js";
import { hierarchyFilter } from "../../domain/hierarchy.js";
import { newInviteCode } from "../../domain/invite-code.js";
import type { GroupInviteRecord } from "../../domain/group-invites.js";
import type { RoleRecord } from "../../domain/roles.js";
import { checkRoleUsableIn } from "../../domain/role-placement.js";
import { roleCapabilities } from "../../domain/role-rules.js";
import { newChildUid, requireUid } from "../../domain/uid.js";
import {
  GroupInviteRoleSchema,
  GroupInviteSchema,
  ListGroupInvitesResponseSchema,
  type CreateGroupInviteRequest,
  type DeleteGroupInviteRequest,
  type GetGroupInviteRequest,
  type GroupInvite,
  type GroupInviteRole,
  type ListGroupInvitesRequest,
  type UpdateGroupInviteRequest,
} from "../../gen/arbor/iam/v2beta1/group_invites_pb.js";
import type { CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { requireGrantable } from "./escalation-guard.js";
import { deletedOrNotFound, found, setFields } from "../crud.js";
import { listRpc } from "../list-page.js";

const LIST = [Capability.CAP_IAM_GROUP_INVITES_LIST];

/** The invite's role as invites show it, with its capabilities; undefined when the role is gone. */
function inviteRole(role: RoleRecord | undefined): GroupInviteRole | undefined {
  if (!role) return undefined;
  const capabilities = [...roleCapabilities(role.uid, role.capabilities)];
  return create(GroupInviteRoleSchema, { uid: role.uid, name: role.name, description: role.description, capabilities });
}

/** The invite as the API shows it; code only when given (the create response). */
export function groupInviteMessage(i: GroupInviteRecord, role: RoleRecord | undefined, code?: string): GroupInvite {
  const hydrated = inviteRole(role);
  return create(GroupInviteSchema, {
    uid: i.uid,
    roleUid: i.roleUid,
    ...(hydrated && { role: hydrated }),
    email: i.email,
    expirationTime: timestampFromMs(i.expirationTime),
    singleUse: i.singleUse,
    ...(code !== undefined && { code }),
    keyId: i.keyId,
    createTime: timestampFromMs(i.createTime),
  });
}

/**
 * The update's mask paths without role_uid, which cannot change: naming it is accepted only with
 * the invite's own role (a client sending back what it read), else INVALID_ARGUMENT (`roleUid`).
 */
function withoutRoleUid(paths: readonly string[], sent: GroupInvite, stored: GroupInviteRecord): string[] {
  const rest = paths.filter((p) => toSnake(p.trim()) !== "role_uid");
  if (rest.length < paths.length && sent.roleUid !== stored.roleUid) {
    throw invalidArgument("roleUid", "an invite's role cannot be changed; create a new invite");
  }
  return rest;
}

/** The list filters of a request, checked. */
function inviteQuery(req: ListGroupInvitesRequest) {
  if (req.keyId !== "") validateKeyIdFilter(req.keyId);
  return { uidp: hierarchyFilter(req.uidp), ...(req.keyId !== "" && { keyId: req.keyId }) };
}

export function createGroupInvitesService(deps: ServiceDeps) {
  const { store, clock, ids, pageTokens } = deps;
  const roleOf = (uid: string) => store.roles.get(uid);
  return {
    listGroupInvites: listRpc(pageTokens, {
      resource: "groupInvites",
      sortable: groupInviteSortable,
      sortValue: groupInviteSortValue,
      source: () => store.groupInvites,
      query: inviteQuery,
      visibleWith: LIST,
      respond: async (items, page) => {
        const roles = new Map((await store.roles.getMany([...new Set(items.map((i) => i.roleUid))])).map((r) => [r.uid, r]));
        const groupInvites = items.map((i) => groupInviteMessage(i, roles.get(i.roleUid)));
        return create(ListGroupInvitesResponseSchema, { groupInvites, ...page });
      },
    }),

    async getGroupInvite(req: GetGroupInviteRequest): Promise<GroupInvite> {
      const uid = requireUid("uid", req.uid);
      const invite = found(await store.groupInvites.get(uid), "group invite", uid);
      return groupInviteMessage(invite, await roleOf(invite.roleUid));
    },

    async createGroupInvite(req: CreateGroupInviteRequest, ctx: CallContext): Promise<GroupInvite> {
      const parent = requireUid("parent", req.parent);
      const sent = req.groupInvite;
      const roleUid = requireUid("roleUid", sent?.roleUid ?? "");
      checkRoleUsableIn(parent, roleUid, "roleUid");
      const ttlMs = inviteTtlMs(sent?.ttl);
      validateInviteEmail(sent?.email ?? "");
      const role = await roleOf(roleUid);
      if (!role) throw notFound("role", roleUid);
      requireGrantable(await ctx.permissions(), role, parent, "invite");
      const now = clock.now();
      const { code, codeHash, keyId } = newInviteCode(ids);
      const invite: GroupInviteRecord = {
        uid: newChildUid(ids, parent),
        parentUid: parent,
        roleUid,
        email: sent?.email ?? "",
        singleUse: sent?.singleUse ?? false,
        codeHash,
        keyId,
        expirationTime: now + ttlMs,
        createTime: now,
        redeemTime: null,
      };
      await store.groupInvites.insert(invite);
      return groupInviteMessage(invite, role, code);
    },

    async updateGroupInvite(req: UpdateGroupInviteRequest, ctx: CallContext): Promise<GroupInvite> {
      const sent = req.groupInvite;
      if (sent === undefined) throw invalidArgument("group_invite", "is required");
      const uid = requireUid("uid", sent.uid);
      const stored = found(await store.groupInvites.get(uid), "group invite", uid);
      const paths = req.updateMask?.paths ?? [];
      const named = withoutRoleUid(paths, sent, stored);
      const populated = setFields(GroupInviteSchema, sent, ["email", "single_use", "ttl"]);
      // A mask that named only role_uid changes nothing (rather than falling back to the populated fields).
      const mask = paths.length > 0 && named.length === 0 ? new Set<string>() : resolveUpdateMask(named, groupInviteUpdatable, populated);
      const role = await roleOf(stored.roleUid);
      if (mask.size === 0) return groupInviteMessage(stored, role);
      const changes: { email?: string; singleUse?: boolean; expirationTime?: number } = {};
      if (mask.has("email")) {
        validateInviteEmail(sent.email);
        changes.email = sent.email;
      }
      if (mask.has("single_use")) changes.singleUse = sent.singleUse;
      if (mask.has("ttl")) changes.expirationTime = clock.now() + inviteTtlMs(sent.ttl);
      // Changing an invite is as good as issuing it: the same rule as on create. A role that is
      // gone makes the invite worthless, so there is nothing to guard.
      if (role) requireGrantable(await ctx.permissions(), role, stored.parentUid, "invite");
      return groupInviteMessage(found(await store.groupInvites.update(uid, changes), "group invite", uid), role);
    },

    async deleteGroupInvite(req: DeleteGroupInviteRequest): Promise<Empty> {
      const uid = requireUid("uid", req.uid);
      return deletedOrNotFound(await store.groupInvites.delete(uid), "group invite", uid);
    },
  };
}
