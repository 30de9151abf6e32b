/**
 * `arbor iam role-bindings`: roles granted to identities at groups (RoleBindingsService). The
 * bindings have no names; identities, roles and groups are given by name or uid.
 */
import { RoleBindingsService } from "../../gen/arbor/iam/v2beta1/role_bindings_pb.js";
import { fieldColumn, uidColumn, timeColumn } from "../output/cells.js";
import { resourceSpec } from "../resource/spec.js";
import { groupUid, IDENTITY_LOOKUP, ROLE_LOOKUP, uidOf } from "./lookups.js";

/** Role bindings as commands see them. */
export const ROLE_BINDINGS = resourceSpec({
  noun: "role-bindings",
  singular: "role binding",
  service: RoleBindingsService,
  listRpc: "listRoleBindings",
  items: "roleBindings",
  named: false,
  scope: "subtree",
  hierarchical: true,
  description: "role bindings: a role granted to an identity at a group, and everywhere below it",
  rpcs: { get: "getRoleBinding", create: "createRoleBinding", update: "updateRoleBinding", delete: "deleteRoleBinding" },
  body: "roleBinding",
  columns: [
    uidColumn(),
    fieldColumn("ROLE", "role.name"),
    fieldColumn("IDENTITY", "identity.name"),
    fieldColumn("GROUP", "group.name", 1),
    timeColumn("CREATED", "createTime"),
  ],
  filters: [
    {
      flags: "--identity <identity>",
      path: "identity",
      help: "only bindings of this identity (name or uid)",
      parse: uidOf(IDENTITY_LOOKUP),
    },
    { flags: "--role <role>", path: "role", help: "only bindings of this role (name or uid)", parse: uidOf(ROLE_LOOKUP) },
    { flags: "--at <group>", path: "group", help: "only bindings at exactly this group (name, path or uid)", parse: groupUid },
  ],
  fields: [
    {
      flags: "--identity <identity>",
      path: "identityUid",
      help: "the identity that gets the role (name or uid)",
      parse: uidOf(IDENTITY_LOOKUP),
      required: true,
    },
    { flags: "--role <role>", path: "roleUid", help: "the role (name or uid)", parse: uidOf(ROLE_LOOKUP), required: true },
  ],
  defaultScoped: true,
  createsNamed: false,
  notes: {
    create: "The binding is made at --parent (default: the default group) and grants the role there and\nin every group below.",
    delete: "Deleting a binding that does not exist succeeds.",
  },
  examples: {
    list: ["arbor iam role-bindings list", "arbor iam role-bindings list --identity ci-bot --role viewer"],
    get: ["arbor iam role-bindings get 0123456789abcdef0123456789abcdef01234567/0123456789abcdef"],
    create: ["arbor iam role-bindings create --parent engineering --identity ci-bot --role viewer"],
    update: ["arbor iam role-bindings update 0123456789abcdef0123456789abcdef01234567/0123456789abcdef --role editor"],
    delete: ["arbor iam role-bindings delete $(arbor iam role-bindings list --identity ci-bot -o id)"],
  },
});
