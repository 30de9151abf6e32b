/**
 * `arbor iam roles`: the built-in roles and custom roles (RolesService). Tables show capabilities
 * by their dotted names (`groups.list`), the catalogue's (docs/capabilities.md); JSON and YAML are
 * the API's JSON, which spells them by enum name (`CAP_IAM_GROUPS_LIST`). `--capabilities` takes
 * either spelling, so a name copied from any output can be given back.
 */
import { UsageError } from "../usage-error.js";
import { capabilityByName, capabilityName } from "../../domain/capabilities.js";
import { CapabilitySchema } from "../../gen/arbor/api/v1/authz_pb.js";
import { fieldColumn, uidColumn, type Item } from "../output/cells.js";
import { resourceSpec } from "../resource/spec.js";
import { DESCRIPTION_FLAG } from "./common-flags.js";
import { ROLE_LOOKUP } from "./lookups.js";

/** The enum value name the API's JSON uses for a capability given by dotted name (`groups.list`) or enum name. */
function capabilityJson(given: string): string {
  const cap = capabilityByName(given);
  const value = CapabilitySchema.values.find((v) => (cap === undefined ? v.name === given && v.number !== 0 : v.number === cap));
  if (value === undefined) throw new UsageError(`--capabilities: unknown capability "${given}" (see arbor iam capabilities list)`);
  return value.name;
}

/** How many capabilities a role grants. */
function capabilityCount(item: Item): string {
  return String(Array.isArray(item.capabilities) ? item.capabilities.length : 0);
}

/** The role with its capabilities by dotted name, as people read them. */
function dottedView(item: Item): Item {
  const names = Array.isArray(item.capabilities) ? (item.capabilities as string[]) : [];
  const dotted = names.map((n) => {
    const value = CapabilitySchema.values.find((v) => v.name === n);
    return value === undefined ? n : capabilityName(value.number);
  });
  return { ...item, capabilities: dotted };
}

/** Roles as commands see them. */
export const ROLES = resourceSpec({
  ...ROLE_LOOKUP,
  description: "roles: named sets of capabilities, built-in (owner, editor, viewer, ...) or custom",
  rpcs: { get: "getRole", create: "createRole", update: "updateRole", delete: "deleteRole" },
  body: "role",
  // The table counts capabilities (the owner role has dozens); get shows them by name.
  columns: [
    fieldColumn("NAME", "name"),
    uidColumn(),
    { header: "CAPABILITIES", value: capabilityCount },
    fieldColumn("DESCRIPTION", "description", 3),
  ],
  tableView: dottedView,
  fields: [
    DESCRIPTION_FLAG,
    {
      flags: "--capabilities <names>",
      path: "capabilities",
      help: "what the role grants, by dotted name (groups.list,identity.create) or enum name (CAP_IAM_GROUPS_LIST)",
      shape: "list",
      parse: capabilityJson,
    },
  ],
  defaultScoped: false,
  createsNamed: true,
  notes: {
    list:
      "Lists every role the caller may see, built-in ones included: the default group does not narrow\n" +
      "the list (built-in roles are root-level); give --descendants-of for a group's custom roles.",
    update: "Built-in roles cannot change. --capabilities replaces the whole set.",
  },
  examples: {
    list: ["arbor iam roles list", "arbor iam roles list --descendants-of acme"],
    get: ["arbor iam roles get viewer", "arbor iam roles get viewer -o json | jq -r '.capabilities[]'"],
    create: ["arbor iam roles create auditor --parent acme --capabilities groups.list,identity.list,role_bindings.list"],
    update: [
      "arbor iam roles update auditor --capabilities groups.list,identity.list",
      'arbor iam roles update auditor --description "reads the tree"',
    ],
    delete: ["arbor iam roles delete auditor"],
  },
});
