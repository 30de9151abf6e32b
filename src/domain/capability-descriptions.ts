/**
 * What each capability lets its holder do, in a sentence: the catalogue (docs/capabilities.md) and
 * `arbor iam capabilities list` show it. The type makes the table complete: a capability added to
 * the proto enum without a description does not compile.
 */
import { Capability } from "./capabilities.js";

type Described = Exclude<Capability, Capability.CAPABILITY_UNSPECIFIED>;

const DESCRIPTIONS: Record<Described, string> = {
  [Capability.CAP_IAM_GROUPS_CREATE]: "create groups below the group (and organizations, at the root)",
  [Capability.CAP_IAM_GROUPS_UPDATE]: "rename groups and change their descriptions",
  [Capability.CAP_IAM_GROUPS_LIST]: "list and read groups",
  [Capability.CAP_IAM_GROUPS_DELETE]: "delete groups, with everything in them",
  [Capability.CAP_IAM_GROUP_INVITES_CREATE]: "create invite codes that grant a role at the group",
  [Capability.CAP_IAM_GROUP_INVITES_LIST]: "list and read invites (never their codes)",
  [Capability.CAP_IAM_GROUP_INVITES_DELETE]: "delete invites, so their codes stop working",
  [Capability.CAP_IAM_ROLES_CREATE]: "create custom roles",
  [Capability.CAP_IAM_ROLES_UPDATE]: "change custom roles' capabilities, names and descriptions",
  [Capability.CAP_IAM_ROLES_LIST]: "list and read roles, built-in and custom",
  [Capability.CAP_IAM_ROLES_DELETE]: "delete custom roles",
  [Capability.CAP_IAM_ROLE_BINDINGS_CREATE]: "grant roles to identities at the group",
  [Capability.CAP_IAM_ROLE_BINDINGS_UPDATE]: "change the role of role bindings",
  [Capability.CAP_IAM_ROLE_BINDINGS_LIST]: "list and read role bindings",
  [Capability.CAP_IAM_ROLE_BINDINGS_DELETE]: "delete role bindings",
  [Capability.CAP_IAM_ACCOUNT_ASSOCIATIONS_CREATE]:
    "associate cloud accounts (AWS, Google Cloud, Azure, GitHub installations) with a group",
  [Capability.CAP_IAM_ACCOUNT_ASSOCIATIONS_UPDATE]: "change account associations",
  [Capability.CAP_IAM_ACCOUNT_ASSOCIATIONS_LIST]: "list and read account associations",
  [Capability.CAP_IAM_ACCOUNT_ASSOCIATIONS_DELETE]: "delete account associations",
  [Capability.CAP_IAM_IDENTITY_CREATE]: "create identities: workloads recognised by their OIDC tokens",
  [Capability.CAP_IAM_IDENTITY_UPDATE]: "change identities' claim matches and keys, and explain their token exchanges",
  [Capability.CAP_IAM_IDENTITY_LIST]: "list and read identities",
  [Capability.CAP_IAM_IDENTITY_DELETE]: "delete identities and their role bindings",
  [Capability.CAP_IAM_IDENTITY_PROVIDERS_CREATE]: "add OIDC identity providers people log in through",
  [Capability.CAP_IAM_IDENTITY_PROVIDERS_UPDATE]: "change identity providers",
  [Capability.CAP_IAM_IDENTITY_PROVIDERS_LIST]: "list and read identity providers (never their client secrets)",
  [Capability.CAP_IAM_IDENTITY_PROVIDERS_DELETE]: "delete identity providers",
  [Capability.CAP_EVENTS_SUBSCRIPTIONS_CREATE]: "subscribe HTTP sinks to the group's events",
  [Capability.CAP_EVENTS_SUBSCRIPTIONS_UPDATE]: "change event subscriptions' sinks, types and reach",
  [Capability.CAP_EVENTS_SUBSCRIPTIONS_LIST]: "list and read event subscriptions",
  [Capability.CAP_EVENTS_SUBSCRIPTIONS_DELETE]: "delete event subscriptions",
  [Capability.CAP_REGISTRY_PULL]: "pull images from the registry's repositories",
  [Capability.CAP_REGISTRY_PUSH]: "push images to the registry's repositories",
  [Capability.CAP_REPO_CREATE]: "create registry repositories",
  [Capability.CAP_REPO_UPDATE]: "change registry repositories",
  [Capability.CAP_REPO_LIST]: "list and read registry repositories",
  [Capability.CAP_REPO_DELETE]: "delete registry repositories",
  [Capability.CAP_TAG_LIST]: "list and read the tags of registry repositories",
  [Capability.CAP_ADVISORIES_LIST]: "list and read security advisories",
  [Capability.CAP_AUDIT_READ]: "read the audit log of changes made in the group's subtree",
};

/** What cap lets its holder do. */
export function capabilityDescription(cap: Capability): string {
  const text = (DESCRIPTIONS as Partial<Record<Capability, string>>)[cap];
  if (text === undefined) throw new RangeError(`unknown capability ${cap}`);
  return text;
}
