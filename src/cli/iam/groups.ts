/**
 * `arbor iam groups`: the group tree (GroupsService).
 */
import { GroupsService } from "../../gen/arbor/iam/v2beta1/groups_pb.js";
import { fieldColumn, uidColumn, timeColumn } from "../output/cells.js";
import { GROUP_LOOKUP } from "../resource/group-lookup.js";
import { resourceSpec } from "../resource/spec.js";
import { DESCRIPTION_FLAG } from "./common-flags.js";

/** Groups as commands see them. */
export const GROUPS = resourceSpec({
  ...GROUP_LOOKUP,
  service: GroupsService,
  description: "groups: organizations and the groups below them",
  rpcs: { get: "getGroup", create: "createGroup", update: "updateGroup", delete: "deleteGroup" },
  body: "group",
  columns: [fieldColumn("NAME", "name"), uidColumn(), fieldColumn("DESCRIPTION", "description", 3), timeColumn("CREATED", "createTime")],
  fields: [DESCRIPTION_FLAG],
  defaultScoped: true,
  createsRoots: true,
  createsNamed: true,
  notes: {
    list: "With a default group (--group, ARBOR_GROUP or the settings file) and no hierarchy flag, lists\nthe groups below it.",
    delete:
      "A group that still holds groups, identities or repos cannot be deleted (code 9,\n" +
      "RESOURCE_NOT_EMPTY); its role bindings, invites and identity providers go with it.",
  },
  examples: {
    list: [
      "arbor iam groups list",
      "arbor iam groups list -o wide",
      'arbor iam groups list --parent acme/engineering --order-by "name desc"',
      "arbor iam groups list --all -o id",
    ],
    get: [
      "arbor iam groups get engineering",
      "arbor iam groups get acme/engineering/web",
      "arbor iam groups get 0123456789abcdef0123456789abcdef01234567 -o yaml",
    ],
    create: ["arbor iam groups create acme", 'arbor iam groups create engineering --parent acme --description "the engineers"'],
    update: ['arbor iam groups update engineering --description "builds things"', "arbor iam groups update engineering --name eng"],
    delete: ["arbor iam groups delete engineering", "arbor iam groups delete --quiet $(arbor iam groups list --parent old -o id)"],
  },
});
