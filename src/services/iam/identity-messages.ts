/**
 * Identities between the API's messages and the store's records.
 */
import { create } from "@bufbuild/protobuf";
import { timestampDate, timestampFromMs } from "@bufbuild/protobuf/wkt";
import type { IdentityRecord, Relationship } from "../../domain/identities.js";
import type { RelationshipInput } from "../../domain/identity-rules.js";
import { toSnake } from "../../domain/field-mask.js";
import {
  ClaimMatchSchema,
  IdentitySchema,
  StaticKeysSchema,
  type ClaimMatch,
  type Identity,
} from "../../gen/arbor/iam/v2beta1/identities_pb.js";
import { namedFields } from "../crud.js";

/**
 * The identity resource as the API shows it. A person (kind `user`) shows as the claim match
 * their tokens meet: their issuer and subject, exactly.
 */
export function identityMessage(r: IdentityRecord): Identity {
  return create(IdentitySchema, {
    ...namedFields(r),
    relationship: relationshipMessage(r.relationship),
    ...(r.lastSeenTime !== null && { lastSeenTime: timestampFromMs(r.lastSeenTime) }),
  });
}

function relationshipMessage(r: Relationship): Identity["relationship"] {
  switch (r.kind) {
    case "claimMatch":
      return {
        case: "claimMatch",
        value: create(ClaimMatchSchema, {
          iss: oneof(["issuer", r.issuer], ["issuerPattern", r.issuerPattern]),
          sub: oneof(["subject", r.subject], ["subjectPattern", r.subjectPattern]),
          aud: oneof(["audience", r.audience], ["audiencePattern", r.audiencePattern]),
          claims: r.claims,
          claimPatterns: r.claimPatterns,
        }),
      };
    case "staticKeys":
      return {
        case: "staticKeys",
        value: create(StaticKeysSchema, {
          issuer: r.issuer,
          subject: r.subject,
          issuerKeys: r.issuerKeys,
          expirationTime: timestampFromMs(r.expirationTime),
        }),
      };
    case "user":
      return {
        case: "claimMatch",
        value: create(ClaimMatchSchema, { iss: { case: "issuer", value: r.issuer }, sub: { case: "subject", value: r.subject } }),
      };
  }
}

/** A oneof of two string members: the first one given, or unset. */
function oneof<A extends string, B extends string>(
  a: [A, string | undefined],
  b: [B, string | undefined],
): { case: A; value: string } | { case: B; value: string } | { case: undefined } {
  if (a[1] !== undefined) return { case: a[0], value: a[1] };
  if (b[1] !== undefined) return { case: b[0], value: b[1] };
  return { case: undefined };
}

/** The relationship a request's identity gives, unchecked; undefined when it gives none. */
export function relationshipInput(identity: Identity | undefined): RelationshipInput | undefined {
  const r = identity?.relationship;
  switch (r?.case) {
    case "claimMatch": {
      const m = r.value;
      return {
        kind: "claimMatch",
        ...(m.iss.case !== undefined && { [m.iss.case]: m.iss.value }),
        ...(m.sub.case !== undefined && { [m.sub.case]: m.sub.value }),
        ...(m.aud.case !== undefined && { [m.aud.case]: m.aud.value }),
        claims: { ...m.claims },
        claimPatterns: { ...m.claimPatterns },
      };
    }
    case "staticKeys": {
      const k = r.value;
      return {
        kind: "staticKeys",
        issuer: k.issuer,
        subject: k.subject,
        issuerKeys: k.issuerKeys,
        ...(k.expirationTime !== undefined && { expirationTime: timestampDate(k.expirationTime).getTime() }),
      };
    }
    case undefined:
      return undefined;
  }
}

/**
 * The fields a request populated, as update mask paths, for an update without a mask (over
 * gRPC). A relationship's members count one by one, as a REST body's keys do; a relationship
 * sent with no member set counts as a whole.
 */
export function populatedPaths(identity: Identity): string[] {
  const paths: string[] = (["name", "description"] as const).filter((f) => identity[f] !== "");
  const r = identity.relationship;
  if (r.case === "claimMatch") {
    paths.push(...prefixed("claim_match", claimMatchMembers(r.value)));
  } else if (r.case === "staticKeys") {
    const k = r.value;
    const members = (["issuer", "subject", "issuerKeys"] as const).filter((f) => k[f] !== "").map(toSnake);
    if (k.expirationTime !== undefined) members.push("expiration_time");
    paths.push(...prefixed("static_keys", members));
  }
  return paths;
}

function claimMatchMembers(m: ClaimMatch): string[] {
  const members = [m.iss.case, m.sub.case, m.aud.case].filter((c) => c !== undefined).map(toSnake);
  if (Object.keys(m.claims).length > 0) members.push("claims");
  if (Object.keys(m.claimPatterns).length > 0) members.push("claim_patterns");
  return members;
}

function prefixed(head: string, members: string[]): string[] {
  return members.length === 0 ? [head] : members.map((m) => `${head}.${m}`);
}
