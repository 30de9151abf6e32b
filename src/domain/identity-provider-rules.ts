/**
 * Identity providers: what may be sorted and updated, and how an update changes the OIDC
 * settings without ever losing the client secret by accident.
 */
import type { Updatable } from "./field-mask.js";
import { groupSortable } from "./groups.js";
import type { Sortable } from "./list.js";
import { namedSortValue } from "./named-sort-value.js";
import type { OidcSettings } from "./records.js";

/** The record key of each `oidc.*` update mask path. */
const OIDC_PATHS: Readonly<Record<string, keyof OidcSettings>> = {
  "oidc.issuer": "issuer",
  "oidc.client_id": "clientId",
  "oidc.client_secret": "clientSecret",
  "oidc.additional_scopes": "additionalScopes",
  "oidc.groups_claim": "groupsClaim",
};

/** Sortable fields of identity providers (name, create_time, update_time, uid); default name. */
export const identityProviderSortable: Sortable = groupSortable;

/** What an update may change on an identity provider: `oidc` as a whole or field by field. */
export const identityProviderUpdatable: Updatable = {
  mutable: ["name", "description", "default_role", "oidc", ...Object.keys(OIDC_PATHS)],
  outputOnly: ["uid", "create_time", "update_time"],
};

/** The value of a provider's sort field. */
export const identityProviderSortValue = namedSortValue("identity providers");

/** The update mask paths of the OIDC settings that are set (non-empty) in sent, for an update without a mask. */
export function populatedOidcPaths(sent: OidcSettings): string[] {
  return Object.entries(OIDC_PATHS)
    .filter(([, key]) => (Array.isArray(sent[key]) ? sent[key].length > 0 : sent[key] !== ""))
    .map(([path]) => path);
}

/**
 * The OIDC settings an update changes: `oidc` replaces all of them, `oidc.<field>` paths change
 * those fields. The secret is never shown, so a client that sends back what it read sends it
 * empty: an empty secret keeps the stored one, unless `oidc.client_secret` is the only OIDC path
 * of the mask, which clears it.
 */
export function oidcChanges(mask: ReadonlySet<string>, sent: OidcSettings): Partial<OidcSettings> {
  const whole = mask.has("oidc");
  const named = Object.entries(OIDC_PATHS).filter(([path]) => whole || mask.has(path));
  const out: Partial<OidcSettings> = {};
  for (const [, key] of named) Object.assign(out, { [key]: sent[key] });
  if (sent.clientSecret === "" && (whole || named.length > 1)) delete out.clientSecret;
  return out;
}
