/**
 * docs/capabilities.md, rendered from the code: the Capability enum (its dotted names and enum
 * names) and what each built-in role grants. A test compares the committed file with this, so the
 * catalogue cannot drift from what the server enforces.
 */
import { ALL_CAPABILITIES, capabilityEnumName as enumName, capabilityName } from "../domain/capabilities.js";
import { capabilityDescription } from "../domain/capability-descriptions.js";
import { BUILTIN_ROLES } from "../domain/roles.js";

/** Where the catalogue lives, relative to the package root. */
export const CATALOGUE_PATH = "docs/capabilities.md";

/** The Markdown of the capability catalogue. */
export function renderCapabilityCatalogue(): string {
  const roles = [...BUILTIN_ROLES.values()];
  const lines = [
    "# Capabilities and built-in roles",
    "",
    "<!-- Generated from the code by `npm run docs` (src/docs/capability-catalogue.ts). Do not edit:",
    "     a test fails when this file differs from what the code generates. -->",
    "",
    "A role is a named set of capabilities. A role binding at a group grants its role's capabilities",
    "on that group and on everything below it. Each API method requires the capabilities declared on",
    "it in `proto/` (the `arbor.api.v1.authz` option); [api.md](api.md) lists them per resource.",
    "",
    "People, the command line and this page spell a capability by its dotted name (`groups.list`);",
    'v2 JSON spells it by its enum name (`"capabilities": ["CAP_IAM_GROUPS_LIST"]`) and gRPC by its',
    "number. Custom roles may hold any of these. `arbor iam capabilities list` prints this list.",
    "",
    "## Built-in roles",
    "",
    "Their uids are the same on every installation (derived from the name), so scripts can",
    "hard-code them. Built-in roles cannot be changed or deleted.",
    "",
    "| role | uid | description | capabilities |",
    "|---|---|---|---|",
    ...roles.map((r) => `| \`${r.name}\` | \`${r.uid}\` | ${r.description} | ${r.capabilities.size} of ${ALL_CAPABILITIES.length} |`),
    "",
    "## Capabilities",
    "",
    `| capability | description | enum name | number | ${roles.map((r) => r.name).join(" | ")} |`,
    `|---|---|---|---|${roles.map(() => "---|").join("")}`,
    ...ALL_CAPABILITIES.map(
      (c) =>
        `| \`${capabilityName(c)}\` | ${capabilityDescription(c)} | \`${enumName(c)}\` | ${c} | ` +
        `${roles.map((r) => (r.capabilities.has(c) ? "yes" : "")).join(" | ")} |`,
    ),
    "",
  ];
  return lines.join("\n");
}
