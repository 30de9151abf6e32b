/**
 * `arbor iam identities`: workloads and people, recognised by the claims of upstream OIDC tokens
 * (IdentitiesService).
 */
import { fieldColumn, uidColumn, textAt, timeColumn, type Item } from "../output/cells.js";
import { resourceSpec, type FieldFlag } from "../resource/spec.js";
import { DESCRIPTION_FLAG } from "./common-flags.js";
import { ROLE_STEP } from "./identity-role.js";
import { IDENTITY_LOOKUP } from "./lookups.js";
import { fileText, timestamp } from "../resource/parsers.js";

const claim = (flags: string, path: string, help: string): FieldFlag => ({ flags, path: `claimMatch.${path}`, help });

/** The issuer an identity matches, whichever way it matches it. */
function issuerOf(item: Item): string {
  return textAt(item, "claimMatch.issuer") || textAt(item, "claimMatch.issuerPattern") || textAt(item, "staticKeys.issuer");
}

/** The subject an identity matches, whichever way it matches it. */
function subjectOf(item: Item): string {
  return textAt(item, "claimMatch.subject") || textAt(item, "claimMatch.subjectPattern") || textAt(item, "staticKeys.subject");
}

/** Identities as commands see them. */
export const IDENTITIES = resourceSpec({
  ...IDENTITY_LOOKUP,
  description: "identities: workloads (and people) recognised by their OIDC tokens' claims",
  rpcs: { get: "getIdentity", create: "createIdentity", update: "updateIdentity", delete: "deleteIdentity" },
  body: "identity",
  columns: [
    fieldColumn("NAME", "name"),
    uidColumn(),
    { header: "ISSUER", value: issuerOf },
    { header: "SUBJECT", value: subjectOf, priority: 1 },
    timeColumn("LAST SEEN", "lastSeenTime"),
  ],
  fields: [
    DESCRIPTION_FLAG,
    claim("--identity-issuer <url>", "issuer", "claim match: the token's issuer, exactly"),
    claim("--issuer-pattern <regex>", "issuerPattern", "claim match: a pattern the issuer matches"),
    claim("--subject <sub>", "subject", "claim match: the token's subject, exactly"),
    claim("--subject-pattern <regex>", "subjectPattern", "claim match: a pattern the subject matches"),
    claim("--audience <aud>", "audience", "claim match: the audience (default: Arbor's issuer URL)"),
    claim("--audience-pattern <regex>", "audiencePattern", "claim match: a pattern an audience matches"),
    { ...claim("--claim <key=value>", "claims", "claim match: a custom claim that must equal value"), shape: "map" },
    { ...claim("--claim-pattern <key=regex>", "claimPatterns", "claim match: a custom claim that must match regex"), shape: "map" },
    {
      flags: "--static-issuer <url>",
      path: "staticKeys.issuer",
      help: "static keys: the issuer, exactly (for issuers Arbor cannot reach)",
    },
    { flags: "--static-subject <sub>", path: "staticKeys.subject", help: "static keys: the subject, exactly" },
    {
      flags: "--issuer-keys <file>",
      path: "staticKeys.issuerKeys",
      help: "static keys: a JWKS JSON file of the issuer's public keys",
      parse: fileText("--issuer-keys"),
    },
    {
      flags: "--keys-expiration <time>",
      path: "staticKeys.expirationTime",
      help: "static keys: when they stop being trusted (RFC 3339; default and at most 365 days)",
      parse: timestamp("--keys-expiration"),
    },
  ],
  defaultScoped: true,
  createStep: ROLE_STEP,
  createsNamed: true,
  notes: {
    create:
      "Give a claim match (--identity-issuer or --issuer-pattern, and --subject or --subject-pattern)\n" +
      "or static keys (--static-issuer, --static-subject, --issuer-keys). Presets make the claim match of\n" +
      "a platform: create github, create gitlab, create kubernetes (each has --help).",
    update:
      "A claim-match flag changes that member alone; an exact value and its pattern replace each\n" +
      "other (--subject clears --subject-pattern).",
  },
  examples: {
    list: ["arbor iam identities list", "arbor iam identities list --name ci-bot -o json"],
    get: ["arbor iam identities get ci-bot", "arbor iam identities get ci-bot --group engineering -o yaml"],
    create: [
      "arbor iam identities create ci-bot --parent engineering \\\n" +
        "      --identity-issuer https://token.actions.githubusercontent.com --subject-pattern 'repo:acme/.*'",
      "arbor iam identities create github ci-bot --github-repo acme/app --github-ref refs/heads/main --role registry.push",
      "arbor iam identities create deployer --static-issuer https://k8s.internal " +
        "--static-subject system:serviceaccount:ci:deployer --issuer-keys jwks.json",
    ],
    update: [
      'arbor iam identities update ci-bot --description "GitHub Actions of acme"',
      "arbor iam identities update ci-bot --subject repo:acme/app:ref:refs/heads/main",
    ],
    delete: ["arbor iam identities delete ci-bot"],
  },
});
