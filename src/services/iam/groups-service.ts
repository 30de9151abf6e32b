/**
 * The v2beta1 groups service: request to domain call to response. No SQL, no HTTP.
 */
import { create } from "@bufbuild/protobuf";
import type { Empty } from "@bufbuild/protobuf/wkt";
import { Capability } from "../../domain/capabilities.js";
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
  type UpdateGroupRequest,
} from "../../gen/arbor/iam/v2beta1/groups_pb.js";
import { callerOf, type CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";
import { createChildGroup, createOrganization, updateGroup } from "./groups-store-ops.js";
import { deletedOrNotFound, found, namedFields, setFields, updateHead } from "../crud.js";
import { listRpc, namedQuery } from "../list-page.js";

/** The group resource as the API shows it. */
export function groupMessage(g: GroupRecord): Group {
  return create(GroupSchema, {
    ...namedFields(g),
    resourceLimits: {},
    verified: false,
  });
}

export function createGroupsService(deps: ServiceDeps) {
  const { store, pageTokens } = deps;
  return {
    listGroups: listRpc(pageTokens, {
      resource: "groups",
      sortable: groupSortable,
      sortValue: groupSortValue,
      source: () => store.groups,
      query: namedQuery,
      visibleWith: [Capability.CAP_IAM_GROUPS_LIST],
      respond: (items, page) => create(ListGroupsResponseSchema, { groups: items.map(groupMessage), ...page }),
    }),

    async getGroup(req: GetGroupRequest): Promise<Group> {
      const uid = requireUid("uid", req.uid);
      return groupMessage(found(await store.groups.get(uid), "group", uid));
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
      const { sent, uid, mask } = updateHead("group", req.group, req.updateMask, groupUpdatable, (g) =>
        setFields(GroupSchema, g, ["name", "description"]),
      );
      const updated = mask.size === 0 ? await store.groups.get(uid) : await updateGroup(deps, uid, namedChanges(mask, sent));
      return groupMessage(found(updated, "group", uid));
    },

    async deleteGroup(req: DeleteGroupRequest): Promise<Empty> {
      const uid = requireUid("uid", req.uid);
      return deletedOrNotFound(await store.groups.delete(uid), "group", uid);
    },
  };
}
