/**
 * The v2beta1 groups service: request to domain call to response. No SQL, no HTTP.
 */
import { create } from "@bufbuild/protobuf";
import { EmptySchema, timestampFromMs, type Empty } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
import { invalidArgument, notFound } from "../../domain/errors.js";
import { resolveUpdateMask } from "../../domain/field-mask.js";
import { groupSortable, groupSortValue, groupUpdatable, type GroupRecord } from "../../domain/groups.js";
import { namedChanges } from "../../domain/names.js";
import { requireUid } from "../../domain/uid.js";
import {
  GroupSchema,
  ListGroupsResponseSchema,
  type CreateGroupRequest,
  type DeleteGroupRequest,
  type GetGroupRequest,
  type Group,
  type ListGroupsRequest,
  type ListGroupsResponse,
  type UpdateGroupRequest,
} from "../../gen/arbor/iam/v2beta1/groups_pb.js";
import { callerOf, type CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { createChildGroup, createOrganization, updateGroup } from "./groups-store-ops.js";
import { listing, namedQuery } from "../list-page.js";

/** The group resource as the API shows it. */
export function groupMessage(g: GroupRecord): Group {
  return create(GroupSchema, {
    uid: g.uid,
    name: g.name,
    description: g.description,
    resourceLimits: {},
    verified: false,
    createTime: timestampFromMs(g.createTime),
    updateTime: timestampFromMs(g.updateTime),
  });
}

export function createGroupsService(deps: ServiceDeps) {
  const { store, pageTokens } = deps;
  const groupsListing = listing({
    resource: "groups",
    sortable: groupSortable,
    sortValue: groupSortValue,
    source: () => store.groups,
    tokens: pageTokens,
  });
  return {
    async listGroups(req: ListGroupsRequest, ctx: CallContext): Promise<ListGroupsResponse> {
      const query = namedQuery(req);
      const visibleUnder = (await ctx.permissions()).scopes([Capability.CAP_IAM_GROUPS_LIST]);
      const { items, ...envelope } = await groupsListing.page(req, query, visibleUnder);
      return create(ListGroupsResponseSchema, { groups: items.map(groupMessage), ...envelope });
    },

    async getGroup(req: GetGroupRequest): Promise<Group> {
      const uid = requireUid("uid", req.uid);
      const group = await store.groups.get(uid);
      if (!group) throw notFound("group", uid);
      return groupMessage(group);
    },

    async createGroup(req: CreateGroupRequest, ctx: CallContext): Promise<Group> {
      const fields = { name: req.group?.name ?? "", description: req.group?.description ?? "" };
      if (req.parent === "") {
        const creator = callerOf(ctx).uid;
        return groupMessage(await createOrganization(deps, fields, () => creator));
      }
      const parent = requireUid("parent", req.parent);
      return groupMessage(await createChildGroup(deps, parent, fields));
    },

    async updateGroup(req: UpdateGroupRequest): Promise<Group> {
      if (req.group === undefined) throw invalidArgument("group", "is required");
      const uid = requireUid("uid", req.group.uid);
      const populated = (["name", "description"] as const).filter((f) => req.group?.[f] !== "");
      const mask = resolveUpdateMask(req.updateMask?.paths, groupUpdatable, populated);
      const changes = namedChanges(mask, req.group);
      const updated = mask.size === 0 ? await store.groups.get(uid) : await updateGroup(deps, uid, changes);
      if (!updated) throw notFound("group", uid);
      return groupMessage(updated);
    },

    async deleteGroup(req: DeleteGroupRequest): Promise<Empty> {
      const uid = requireUid("uid", req.uid);
      if (!(await store.groups.delete(uid))) throw notFound("group", uid);
      return create(EmptySchema);
    },
  };
}
