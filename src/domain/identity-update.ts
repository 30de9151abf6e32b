/**
 * How an update mask changes an identity's relationship (DESIGN 1.5). `claim_match` or
 * `static_keys` replace the relationship with the request's (or clear it, when the request holds
 * the other kind); a member path (`claim_match.subject_pattern`) changes that member alone, the
 * other member of its pair (`subject`) giving way. Masking the other kind switches the
 * relationship; the result is validated as a whole afterwards.
 */
import type { ClaimMatch } from "./claim-match-rules.js";
import type { Relationship } from "./identities.js";
import type { RelationshipInput } from "./identity-rules.js";
import type { StaticKeysInput } from "./static-keys-rules.js";

type ClaimKey = Exclude<keyof ClaimMatch, "kind">;
type StaticKey = Exclude<keyof StaticKeysInput, "kind">;

const CLAIM_MEMBERS: Readonly<Record<string, ClaimKey>> = {
  issuer: "issuer",
  issuer_pattern: "issuerPattern",
  subject: "subject",
  subject_pattern: "subjectPattern",
  audience: "audience",
  audience_pattern: "audiencePattern",
  claims: "claims",
  claim_patterns: "claimPatterns",
};

/** The other member of each exact/pattern pair: setting one clears the other. */
const PARTNER: Readonly<Partial<Record<ClaimKey, ClaimKey>>> = {
  issuer: "issuerPattern",
  issuerPattern: "issuer",
  subject: "subjectPattern",
  subjectPattern: "subject",
  audience: "audiencePattern",
  audiencePattern: "audience",
};

const STATIC_MEMBERS: Readonly<Record<string, StaticKey>> = {
  issuer: "issuer",
  subject: "subject",
  issuer_keys: "issuerKeys",
  expiration_time: "expirationTime",
};

/** Tells whether a mask touches the relationship. */
export function masksRelationship(mask: ReadonlySet<string>): boolean {
  return [...mask].some((p) => p === "claim_match" || p === "static_keys" || p.startsWith("claim_match.") || p.startsWith("static_keys."));
}

/**
 * The relationship after an update: current, with the masked parts taken from requested. A
 * person's relationship (kind `user`) counts as neither kind.
 */
export function updatedRelationship(
  current: Relationship,
  requested: RelationshipInput | undefined,
  mask: ReadonlySet<string>,
): RelationshipInput | undefined {
  let out: RelationshipInput | undefined = current.kind === "user" ? undefined : current;
  for (const [path, kind] of [
    ["claim_match", "claimMatch"],
    ["static_keys", "staticKeys"],
  ] as const) {
    if (!mask.has(path)) continue;
    if (requested?.kind === kind) out = requested;
    else if (out?.kind === kind) out = undefined;
  }
  for (const path of mask) {
    const [head, member] = path.split(".") as [string, string | undefined];
    if (member === undefined) continue;
    if (head === "claim_match") out = withClaimMember(out, requested, CLAIM_MEMBERS[member]);
    else if (head === "static_keys") out = withStaticMember(out, requested, STATIC_MEMBERS[member]);
  }
  return out;
}

function withClaimMember(out: RelationshipInput | undefined, requested: RelationshipInput | undefined, key: ClaimKey | undefined) {
  if (key === undefined) throw new RangeError("unknown claim match member");
  const from = requested?.kind === "claimMatch" ? requested : undefined;
  // Clearing a member of a relationship of the other kind changes nothing.
  if (out?.kind !== "claimMatch" && from === undefined) return out;
  const next: ClaimMatch = out?.kind === "claimMatch" ? { ...out } : { kind: "claimMatch", claims: {}, claimPatterns: {} };
  if (key === "claims" || key === "claimPatterns") {
    next[key] = from?.[key] ?? {};
    return next;
  }
  const value = from?.[key];
  if (value === undefined) {
    delete next[key];
  } else {
    next[key] = value;
    const partner = PARTNER[key];
    if (partner !== undefined) delete next[partner];
  }
  return next;
}

function withStaticMember(out: RelationshipInput | undefined, requested: RelationshipInput | undefined, key: StaticKey | undefined) {
  if (key === undefined) throw new RangeError("unknown static keys member");
  const from = requested?.kind === "staticKeys" ? requested : undefined;
  if (out?.kind !== "staticKeys" && from === undefined) return out;
  const next: StaticKeysInput = out?.kind === "staticKeys" ? { ...out } : { kind: "staticKeys", issuer: "", subject: "", issuerKeys: "" };
  if (key === "expirationTime") {
    // Without one, the default: a year from the update.
    if (from?.expirationTime === undefined) delete next.expirationTime;
    else next.expirationTime = from.expirationTime;
  } else {
    next[key] = from?.[key] ?? "";
  }
  return next;
}
