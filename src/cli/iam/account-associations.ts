/**
 * `arbor iam account-associations`: the cloud accounts that belong to a group
 * (AccountAssociationsService). A group has at most one; its uid is the group's.
 */
import type { JsonObject } from "@bufbuild/protobuf";
import { AccountAssociationsService } from "../../gen/arbor/iam/v2beta1/account_associations_pb.js";
import { UsageError } from "../usage-error.js";
import { fieldColumn, uidColumn, timeColumn, type Item } from "../output/cells.js";
import { resourceSpec } from "../resource/spec.js";
import { DESCRIPTION_FLAG } from "./common-flags.js";

const PROVIDERS = ["amazon", "google", "azure", "github"] as const;

/** A GitHub installation: `ID` or `ID=NAME`. */
function installation(text: string): JsonObject {
  const m = /^(\d+)(?:=(.*))?$/.exec(text);
  if (m === null) throw new UsageError(`--github-installation: "${text}" is not ID or ID=NAME`);
  return { installationId: m[1] as string, name: m[2] ?? "" };
}

/** Account associations as commands see them. */
export const ACCOUNT_ASSOCIATIONS = resourceSpec({
  noun: "account-associations",
  singular: "account association",
  service: AccountAssociationsService,
  listRpc: "listAccountAssociations",
  items: "accountAssociations",
  named: true,
  scope: "subtree",
  hierarchical: true,
  description: "account associations: the AWS, Google Cloud, Azure and GitHub accounts of a group",
  rpcs: {
    get: "getAccountAssociation",
    create: "createAccountAssociation",
    update: "updateAccountAssociation",
    delete: "deleteAccountAssociation",
  },
  body: "accountAssociation",
  columns: [
    fieldColumn("NAME", "name"),
    uidColumn(),
    { header: "PROVIDERS", value: (item: Item) => PROVIDERS.filter((p) => item[p] !== undefined).join(",") },
    timeColumn("CREATED", "createTime"),
  ],
  fields: [
    DESCRIPTION_FLAG,
    { flags: "--amazon-account <id>", path: "amazon.account", help: "the AWS account id" },
    { flags: "--google-project-id <id>", path: "google.projectId", help: "the Google Cloud project id" },
    { flags: "--google-project-number <n>", path: "google.projectNumber", help: "the Google Cloud project number" },
    { flags: "--azure-tenant-id <id>", path: "azure.tenantId", help: "the Azure tenant id" },
    { flags: "--azure-client-id <name=id>", path: "azure.clientIds", help: "an Azure client id by name", shape: "map" },
    {
      flags: "--github-installation <id[=name]>",
      path: "github.installations",
      help: "a GitHub App installation",
      shape: "list",
      parse: installation,
    },
  ],
  defaultScoped: false,
  createsNamed: true,
  notes: {
    list: "The association of a group has the group's uid, so `get` takes a group's uid; the default group\ndoes not narrow the list.",
    update: "A provider flag changes that member alone; the list and map flags replace the whole list or map.",
  },
  examples: {
    list: ["arbor iam account-associations list"],
    get: ["arbor iam account-associations get acme-accounts"],
    create: ["arbor iam account-associations create acme-accounts --parent acme --amazon-account 123456789012"],
    update: ["arbor iam account-associations update acme-accounts --github-installation 4242=acme-org"],
    delete: ["arbor iam account-associations delete acme-accounts"],
  },
});
