/**
 * Identity providers: what may be sorted and updated, and how an update changes the OIDC
 * settings without ever losing the client secret by accident.
 */
import { invalidArgument } from "./errors.js";
import type { Updatable } from "./field-mask.js";
import { groupSortable } from "./groups.js";
import type { Sortable } from "./list.js";
import { namedSortValue } from "./named-sort-value.js";
import type { OidcSettings } from "./identity-providers.js";

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

/** OIDC settings as a request sends them: the secret is undefined when it was not sent. */
export type SentOidc = Omit<OidcSettings, "clientSecret"> & { clientSecret: string | undefined };

/** The update mask paths of the OIDC settings set in sent (non-empty, or a secret sent at all), for an update without a mask. */
export function populatedOidcPaths(sent: SentOidc): string[] {
  return Object.entries(OIDC_PATHS)
    .filter(([, key]) => {
      const value = sent[key];
      if (key === "clientSecret") return value !== undefined;
      return Array.isArray(value) ? value.length > 0 : value !== "";
    })
    .map(([path]) => path);
}

/**
 * The OIDC settings an update changes: `oidc` replaces all of them, `oidc.<field>` paths change
 * those fields. The secret is never shown, so a provider sent back as it was read carries none,
 * and an `oidc` replacement without one keeps the stored secret; a secret that is sent (even
 * empty) replaces it, and `oidc.client_secret` named in a mask without one clears it.
 */
export function oidcChanges(mask: ReadonlySet<string>, sent: SentOidc): Partial<OidcSettings> {
  const whole = mask.has("oidc");
  const out: Partial<OidcSettings> = {};
  for (const [path, key] of Object.entries(OIDC_PATHS)) {
    if (key !== "clientSecret" && (whole || mask.has(path))) Object.assign(out, { [key]: sent[key] });
  }
  if (mask.has("oidc.client_secret")) out.clientSecret = sent.clientSecret ?? "";
  else if (whole && sent.clientSecret !== undefined) out.clientSecret = sent.clientSecret;
  return out;
}

/**
 * Throws INVALID_ARGUMENT (`oidc.clientSecret`) when an update moves a provider that has a client
 * secret to another issuer without sending a secret (or clearing it): the next login would send
 * the stored secret to the new issuer's token endpoint, so whoever may change the issuer could
 * read the write-only secret there. A public client (no secret) moves freely.
 */
export function checkSecretFollowsIssuer(stored: OidcSettings, changes: Partial<OidcSettings>): void {
  if (changes.issuer === undefined || changes.issuer === stored.issuer) return;
  if (stored.clientSecret === "" || changes.clientSecret !== undefined) return;
  throw invalidArgument("oidc.clientSecret", "the client secret must be sent again when the issuer changes");
}
