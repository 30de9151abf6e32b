/**
 * Identities: what may be sorted and updated, and the rule every relationship obeys: exactly one
 * of a claim match or static keys, each valid as a whole.
 */
import { namedSortable, namedSortValue } from "./named-sort-value.js";
import { validateClaimMatch, type ClaimMatch, type IssuerRules } from "./claim-match-rules.js";
import { invalidArgument } from "./errors.js";
import type { Updatable } from "./field-mask.js";
import type { IdentityRecord, Relationship } from "./identities.js";
import type { Sortable } from "./list.js";
import { validateStaticKeys, type StaticKeysInput } from "./static-keys-rules.js";

/** A relationship as a request gives it: static keys may leave their expiration to the default. */
export type RelationshipInput = ClaimMatch | StaticKeysInput;

/** What the relationship rules need besides the relationship. */
export interface RelationshipRules extends IssuerRules {
  /** Milliseconds since the epoch: static keys expire after it, by default a year after it. */
  now: number;
}

/**
 * The relationship to store: input checked as a whole, defaults filled in. Throws
 * INVALID_ARGUMENT naming the field (`claimMatch.subjectPattern`, `staticKeys.issuerKeys`, ...).
 * People's relationships (kind `user`) are never made through the API.
 */
export function validateRelationship(input: RelationshipInput | undefined, rules: RelationshipRules): Relationship {
  switch (input?.kind) {
    case "claimMatch":
      validateClaimMatch(input, rules);
      return input;
    case "staticKeys":
      return validateStaticKeys(input, rules.now);
    case undefined:
      throw invalidArgument("claimMatch", "an identity needs claimMatch or staticKeys");
  }
}

/** Sortable fields of identities; default order name ascending (DESIGN 1.4). */
export const identitySortable: Sortable = namedSortable;

/** The members of a claim match an update mask may name, by snake_case path. */
export const CLAIM_MATCH_PATHS = [
  "issuer",
  "issuer_pattern",
  "subject",
  "subject_pattern",
  "audience",
  "audience_pattern",
  "claims",
  "claim_patterns",
] as const;
/** The members of static keys an update mask may name, by snake_case path. */
export const STATIC_KEYS_PATHS = ["issuer", "subject", "issuer_keys", "expiration_time"] as const;

/**
 * What an update may change on an identity. A relationship may be replaced whole
 * (`claim_match`) or member by member (`claim_match.subject_pattern`), as a PATCH body without a
 * mask implies.
 */
export const identityUpdatable: Updatable = {
  mutable: [
    "name",
    "description",
    "claim_match",
    "static_keys",
    ...CLAIM_MATCH_PATHS.map((p) => `claim_match.${p}`),
    ...STATIC_KEYS_PATHS.map((p) => `static_keys.${p}`),
  ],
  outputOnly: ["uid", "last_seen_time", "create_time", "update_time"],
};

/** The value of an identitie's sort field. */
export const identitySortValue: (record: IdentityRecord, field: string) => string | number = namedSortValue("identities");
