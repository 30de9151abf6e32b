/**
 * Groups as names are looked up: every resource command needs them, for `--group`, `--parent`
 * and the hierarchy filters.
 */
import { GroupsService } from "../../gen/arbor/iam/v2beta1/groups_pb.js";
import { lookup } from "./spec.js";

/** How group names are found. */
export const GROUP_LOOKUP = lookup({
  noun: "groups",
  singular: "group",
  service: GroupsService,
  listRpc: "listGroups",
  items: "groups",
  named: true,
  scope: "subtree",
  hierarchical: true,
});
