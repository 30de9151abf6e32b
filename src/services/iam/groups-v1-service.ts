/**
 * The v1 groups list: every matching group the caller may list, in one response, in the v1
 * shape (`items`, `id`).
 */
import { create } from "@bufbuild/protobuf";
import { Capability } from "../../domain/capabilities.js";
import type { GroupFilter, GroupRecord } from "../../domain/groups.js";
import { hierarchyFilter, type HierarchyFilter, type UidpInput } from "../../domain/hierarchy.js";
import { parseOrderBy } from "../../domain/list.js";
import { groupSortable } from "../../domain/groups.js";
import { requireUid } from "../../domain/uid.js";
import {
  GroupSchema,
  ListGroupsResponseSchema,
  type ListGroupsRequest,
  type ListGroupsResponse,
} from "../../gen/arbor/iam/v1/groups_pb.js";
import type { CallContext } from "../context.js";
import type { ServiceDeps } from "../deps.js";

/** The most groups one v1 list returns; v1 has no pages, so this bounds the response. */
export const V1_LIST_LIMIT = 10_000;

/** The uidp filter of a v1 list, narrowed to its `id` when it names one. */
export function v1Uidp(req: { uidp?: UidpInput; id: string }): HierarchyFilter {
  const uidp = hierarchyFilter(req.uidp);
  if (req.id !== "") {
    const id = requireUid("id", req.id);
    uidp.ids = uidp.ids === undefined ? [id] : uidp.ids.filter((u) => u === id);
  }
  return uidp;
}

function v1Group(g: GroupRecord) {
  return create(GroupSchema, { id: g.uid, name: g.name, description: g.description, resourceLimits: {}, verified: false });
}

export function createGroupsV1Service(deps: ServiceDeps) {
  return {
    async listGroups(req: ListGroupsRequest, ctx: CallContext): Promise<ListGroupsResponse> {
      const uidp = v1Uidp(req);
      const perms = await ctx.permissions();
      const filter: GroupFilter = {
        uidp,
        ...(req.name !== "" && { name: req.name }),
        visibleUnder: perms.scopes([Capability.CAP_IAM_GROUPS_LIST]),
      };
      const rows = await deps.store.groups.list(filter, { order: parseOrderBy("", groupSortable), offset: 0, limit: V1_LIST_LIMIT });
      return create(ListGroupsResponseSchema, { items: rows.map(v1Group) });
    },
  };
}
