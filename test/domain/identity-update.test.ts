import { describe, expect, it } from "vitest";
import { Code, isApiError } from "../../src/domain/errors.js";
import { resolveUpdateMask } from "../../src/domain/field-mask.js";
import type { Relationship } from "../../src/domain/identities.js";
import { identityUpdatable, type RelationshipInput } from "../../src/domain/identity-rules.js";
import { masksRelationship, updatedRelationship } from "../../src/domain/identity-update.js";

const current: Relationship = {
  kind: "claimMatch",
  issuer: "https://issuer.example",
  subject: "repo:acme/app",
  audience: "arbor",
  claims: { owner: "acme" },
  claimPatterns: {},
};
const keys: Relationship = { kind: "staticKeys", issuer: "https://k.example", subject: "s", issuerKeys: '{"keys":[]}', expirationTime: 5 };
const claims = (m: Partial<Extract<RelationshipInput, { kind: "claimMatch" }>>): RelationshipInput => ({
  kind: "claimMatch",
  claims: {},
  claimPatterns: {},
  ...m,
});

const mask = (...paths: string[]) => resolveUpdateMask(paths, identityUpdatable, []);

describe("identity updates", () => {
  it.each<[string, Relationship, RelationshipInput | undefined, string[], RelationshipInput | undefined]>([
    [
      "replaces a claim match whole",
      current,
      claims({ issuer: "https://b", subject: "t" }),
      ["claim_match"],
      claims({ issuer: "https://b", subject: "t" }),
    ],
    [
      "changes one member, keeping the others",
      current,
      claims({ subject: "repo:acme/other" }),
      ["claimMatch.subject"],
      { ...current, subject: "repo:acme/other" },
    ],
    [
      "switches a member to its pattern",
      current,
      claims({ subjectPattern: "repo:acme/.*" }),
      ["claim_match.subject_pattern"],
      {
        kind: "claimMatch",
        issuer: "https://issuer.example",
        subjectPattern: "repo:acme/.*",
        audience: "arbor",
        claims: { owner: "acme" },
        claimPatterns: {},
      },
    ],
    [
      "clears a member the request leaves out",
      current,
      claims({}),
      ["claim_match.audience"],
      { kind: "claimMatch", issuer: "https://issuer.example", subject: "repo:acme/app", claims: { owner: "acme" }, claimPatterns: {} },
    ],
    ["replaces the claims map", current, claims({ claims: { team: "x" } }), ["claim_match.claims"], { ...current, claims: { team: "x" } }],
    ["clears the claims map", current, undefined, ["claim_match.claims"], { ...current, claims: {} }],
    [
      "switches to static keys when they are masked",
      current,
      { kind: "staticKeys", issuer: "https://k", subject: "s", issuerKeys: "{}" },
      ["static_keys"],
      { kind: "staticKeys", issuer: "https://k", subject: "s", issuerKeys: "{}" },
    ],
    ["clears the relationship when the masked kind is absent", current, undefined, ["claim_match"], undefined],
    ["ignores a member of the other kind that the request lacks", current, undefined, ["static_keys.issuer"], current],
    [
      "starts the other kind from empty for a member path",
      current,
      { kind: "staticKeys", issuer: "https://k", subject: "", issuerKeys: "" },
      ["static_keys.issuer"],
      { kind: "staticKeys", issuer: "https://k", subject: "", issuerKeys: "" },
    ],
    [
      "rotates static keys alone",
      keys,
      { kind: "staticKeys", issuer: "", subject: "", issuerKeys: "new" },
      ["static_keys.issuer_keys"],
      { ...keys, issuerKeys: "new" },
    ],
    [
      "drops an expiration the request leaves out, for the default",
      keys,
      { kind: "staticKeys", issuer: "", subject: "", issuerKeys: "" },
      ["static_keys.expiration_time"],
      { kind: "staticKeys", issuer: "https://k.example", subject: "s", issuerKeys: '{"keys":[]}' },
    ],
    [
      "applies * as every member",
      current,
      claims({ issuer: "https://b", subject: "t" }),
      ["*"],
      claims({ issuer: "https://b", subject: "t" }),
    ],
    [
      "treats a person as no relationship",
      { kind: "user", issuer: "https://i", subject: "p" },
      undefined,
      ["claim_match.subject"],
      undefined,
    ],
  ])("%s", (_, from, requested, paths, want) => {
    expect(updatedRelationship(from, requested, mask(...paths))).toEqual(want);
  });

  it("tells whether a mask touches the relationship", () => {
    expect(masksRelationship(mask("name", "description"))).toBe(false);
    expect(masksRelationship(mask("claim_match.subject"))).toBe(true);
    expect(masksRelationship(mask("staticKeys"))).toBe(true);
  });

  it.each(["uid", "lastSeenTime", "create_time", "update_time", "claim_match.colour", "static_keys.audiences", "relationship"])(
    "%s in a mask is INVALID_ARGUMENT naming update_mask",
    (path) => {
      try {
        mask(path);
        expect.unreachable();
      } catch (e) {
        expect(isApiError(e) && e.code).toBe(Code.INVALID_ARGUMENT);
        expect(isApiError(e) && e.details.fieldViolations?.[0]?.field).toBe("update_mask");
      }
    },
  );
});
