/**
 * `arbor iam`: the IAM resources, each a table of columns and flags (resource/spec.ts) made into
 * list, get, create, update and delete commands.
 */
import type { Command } from "commander";
import type { CliIo } from "../output/io.js";
import { withExamples } from "../resource/help-text.js";
import { addResourceCommands } from "../resource/resource-commands.js";
import type { ResourceSpec } from "../resource/spec.js";
import { ACCOUNT_ASSOCIATIONS } from "./account-associations.js";
import { GROUPS } from "./groups.js";
import { addGroupsTreeCommand } from "./groups-tree.js";
import { addCapabilitiesCommand } from "./capabilities.js";
import { IDENTITIES } from "./identities.js";
import { addIdentityCheckCommands } from "./identity-checks.js";
import { addIdentityPresets } from "./identity-presets.js";
import { IDENTITY_PROVIDERS } from "./identity-providers.js";
import { INVITES } from "./invites.js";
import { ROLE_BINDINGS } from "./role-bindings.js";
import { ROLES } from "./roles.js";

/** The IAM resources, in the order `arbor iam --help` lists them. */
export const IAM_RESOURCES: readonly ResourceSpec[] = [
  GROUPS,
  IDENTITIES,
  ROLES,
  ROLE_BINDINGS,
  IDENTITY_PROVIDERS,
  ACCOUNT_ASSOCIATIONS,
  INVITES,
];

/** Adds `arbor iam` and its resources to program. */
export function addIamCommands(program: Command, io: CliIo): void {
  const iam = program.command("iam").description("groups, identities, roles, role bindings and more, through the API");
  withExamples(iam, [
    "arbor iam groups list",
    "arbor iam identities get ci-bot -o yaml",
    "arbor iam role-bindings create --parent engineering --identity ci-bot --role viewer",
  ]);
  for (const spec of IAM_RESOURCES) {
    const group = addResourceCommands(iam, spec, io);
    if (spec === GROUPS) addGroupsTreeCommand(group, io);
    if (spec === IDENTITIES) {
      addIdentityPresets(group, io);
      addIdentityCheckCommands(group, io);
    }
  }
  addCapabilitiesCommand(iam, io);
}
