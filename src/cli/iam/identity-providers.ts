/**
 * `arbor iam identity-providers`: an organization's OIDC login providers
 * (IdentityProvidersService).
 */
import { IdentityProvidersService } from "../../gen/arbor/iam/v2beta1/identity_providers_pb.js";
import { fieldColumn, uidColumn, timeColumn } from "../output/cells.js";
import { resourceSpec } from "../resource/spec.js";
import { DESCRIPTION_FLAG } from "./common-flags.js";
import { ROLE_LOOKUP, uidOf } from "./lookups.js";
import { fileText } from "../resource/parsers.js";

/** Identity providers as commands see them. */
export const IDENTITY_PROVIDERS = resourceSpec({
  noun: "identity-providers",
  singular: "identity provider",
  service: IdentityProvidersService,
  listRpc: "listIdentityProviders",
  items: "identityProviders",
  named: true,
  scope: "subtree",
  hierarchical: true,
  description: "identity providers: the OIDC providers people of an organization log in through",
  rpcs: {
    get: "getIdentityProvider",
    create: "createIdentityProvider",
    update: "updateIdentityProvider",
    delete: "deleteIdentityProvider",
  },
  body: "identityProvider",
  columns: [
    fieldColumn("NAME", "name"),
    uidColumn(),
    fieldColumn("ISSUER", "oidc.issuer"),
    fieldColumn("CLIENT ID", "oidc.clientId", 1),
    timeColumn("CREATED", "createTime"),
  ],
  fields: [
    DESCRIPTION_FLAG,
    {
      flags: "--default-role <role>",
      path: "defaultRole",
      help: "the role people get in the organization at their first login (name or uid)",
      parse: uidOf(ROLE_LOOKUP),
      required: true,
    },
    { flags: "--oidc-issuer <url>", path: "oidc.issuer", help: "the provider's issuer URL", required: true },
    { flags: "--client-id <id>", path: "oidc.clientId", help: "the client id Arbor is registered under", required: true },
    {
      flags: "--client-secret-file <file>",
      path: "oidc.clientSecret",
      help: "a file holding the client secret (never shown again)",
      parse: fileText("--client-secret-file"),
    },
    {
      flags: "--additional-scopes <scopes>",
      path: "oidc.additionalScopes",
      help: "scopes to ask for beyond openid, email and profile",
      shape: "list",
    },
    { flags: "--groups-claim <claim>", path: "oidc.groupsClaim", help: "the ID token claim listing the person's groups" },
  ],
  defaultScoped: true,
  createsNamed: true,
  notes: { update: "--additional-scopes replaces the whole list; an empty --client-secret-file clears the secret." },
  examples: {
    list: ["arbor iam identity-providers list"],
    get: ["arbor iam identity-providers get okta"],
    create: [
      "arbor iam identity-providers create okta --parent acme --default-role viewer \\\n" +
        "      --oidc-issuer https://acme.okta.com --client-id 0oa1b2c3 --client-secret-file okta-secret.txt",
    ],
    update: ["arbor iam identity-providers update okta --default-role editor"],
    delete: ["arbor iam identity-providers delete okta"],
  },
});
