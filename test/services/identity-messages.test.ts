import { create } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import type { IdentityRecord } from "../../src/domain/identities.js";
import { ClaimMatchSchema, IdentitySchema, StaticKeysSchema } from "../../src/gen/arbor/iam/v2beta1/identities_pb.js";
import { identityMessage, populatedPaths, relationshipInput } from "../../src/services/iam/identity-messages.js";

const record = (r: Partial<IdentityRecord>): IdentityRecord => ({
  uid: "0".repeat(40) + "/0000000000000001",
  parentUid: "0".repeat(40),
  name: "ci",
  description: "",
  relationship: {
    kind: "claimMatch",
    issuer: "https://i",
    subjectPattern: "repo:.*x",
    audience: "a",
    claims: { k: "v" },
    claimPatterns: {},
  },
  lastSeenTime: null,
  createTime: 1_700_000_000_000,
  updateTime: 1_700_000_000_500,
  ...r,
});

describe("identity messages", () => {
  it("round-trips a claim match through the message", () => {
    const r = record({});
    const m = identityMessage(r);
    expect(m.relationship.case).toBe("claimMatch");
    expect(m.lastSeenTime).toBeUndefined();
    expect(relationshipInput(m)).toEqual(r.relationship);
  });

  it("round-trips static keys, with the expiration in milliseconds", () => {
    const relationship = {
      kind: "staticKeys",
      issuer: "https://k",
      subject: "s",
      issuerKeys: "{}",
      expirationTime: 1_800_000_000_123,
    } as const;
    const m = identityMessage(record({ relationship, lastSeenTime: 1_700_000_000_001 }));
    expect(m.lastSeenTime).toEqual(timestampFromMs(1_700_000_000_001));
    expect(relationshipInput(m)).toEqual(relationship);
  });

  it("shows a person as the claim match of their issuer and subject", () => {
    const m = identityMessage(record({ parentUid: null, relationship: { kind: "user", issuer: "arbor:admin", subject: "o" } }));
    expect(relationshipInput(m)).toEqual({ kind: "claimMatch", issuer: "arbor:admin", subject: "o", claims: {}, claimPatterns: {} });
  });

  it("gives no relationship for an identity without one", () => {
    expect(relationshipInput(create(IdentitySchema, {}))).toBeUndefined();
    expect(relationshipInput(undefined)).toBeUndefined();
  });

  it.each([
    ["nothing", create(IdentitySchema, { uid: "u" }), []],
    ["name and description", create(IdentitySchema, { name: "n", description: "d" }), ["name", "description"]],
    [
      "claim match members",
      create(IdentitySchema, {
        relationship: {
          case: "claimMatch",
          value: create(ClaimMatchSchema, {
            sub: { case: "subjectPattern", value: "x" },
            aud: { case: "audience", value: "a" },
            claimPatterns: { k: "v" },
          }),
        },
      }),
      ["claim_match.subject_pattern", "claim_match.audience", "claim_match.claim_patterns"],
    ],
    [
      "an empty claim match",
      create(IdentitySchema, { relationship: { case: "claimMatch", value: create(ClaimMatchSchema) } }),
      ["claim_match"],
    ],
    [
      "static keys members",
      create(IdentitySchema, {
        relationship: { case: "staticKeys", value: create(StaticKeysSchema, { issuerKeys: "{}", expirationTime: timestampFromMs(5) }) },
      }),
      ["static_keys.issuer_keys", "static_keys.expiration_time"],
    ],
  ])("populates %s", (_, identity, want) => {
    expect(populatedPaths(identity)).toEqual(want);
  });
});
