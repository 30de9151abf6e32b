import { describe, expect, it } from "vitest";
import { Code } from "../../src/domain/errors.js";
import { resolveUpdateMask } from "../../src/domain/field-mask.js";
import { accountAssociationSortValue } from "../../src/domain/account-association-rules.js";
import {
  identityProviderSortValue,
  identityProviderUpdatable,
  oidcChanges,
  populatedOidcPaths,
  type SentOidc,
} from "../../src/domain/identity-provider-rules.js";
import type { OidcSettings } from "../../src/domain/identity-providers.js";
import { checkRoleUsableIn } from "../../src/domain/role-placement.js";
import { violationOf } from "../server/rest/violation.js";

/** A provider as a client sends it back after reading it: no secret (it is never shown). */
const sent: SentOidc = {
  issuer: "https://new.example.com",
  clientId: "new-client",
  clientSecret: undefined,
  additionalScopes: ["groups"],
  groupsClaim: "roles",
};
const rest = { issuer: sent.issuer, clientId: sent.clientId, additionalScopes: ["groups"], groupsClaim: "roles" };

describe("the OIDC settings an update changes", () => {
  it.each<[string, string[], Partial<SentOidc>, Partial<OidcSettings>]>([
    ["oidc as a whole without a secret keeps it", ["oidc"], {}, rest],
    ["oidc as a whole with an empty secret clears it", ["oidc"], { clientSecret: "" }, { ...rest, clientSecret: "" }],
    ["oidc as a whole with a secret sets it", ["oidc"], { clientSecret: "s3" }, { ...rest, clientSecret: "s3" }],
    ["oidc.client_secret alone without a secret clears it", ["oidc.client_secret"], {}, { clientSecret: "" }],
    ["oidc.client_secret alone with a secret sets it", ["oidc.client_secret"], { clientSecret: "s3" }, { clientSecret: "s3" }],
    ["oidc.client_secret and name without a secret clears it", ["oidc.client_secret", "name"], {}, { clientSecret: "" }],
    [
      "every oidc path but the secret (what a GET gives back) keeps it",
      ["oidc.issuer", "oidc.client_id", "oidc.additional_scopes", "oidc.groups_claim"],
      {},
      rest,
    ],
    [
      "another oidc path and a secret set both",
      ["oidc.issuer", "oidc.client_secret"],
      { clientSecret: "s3" },
      { issuer: sent.issuer, clientSecret: "s3" },
    ],
    ["a single field", ["oidc.groups_claim"], {}, { groupsClaim: "roles" }],
    ["no oidc path", ["name"], {}, {}],
  ])("%s", (_name, mask, override, want) => {
    expect(oidcChanges(new Set(mask), { ...sent, ...override })).toEqual(want);
  });

  it("* replaces oidc as a whole and so keeps the secret when none is sent", () => {
    const mask = resolveUpdateMask(["*"], identityProviderUpdatable, []);
    expect(oidcChanges(mask, sent)).not.toHaveProperty("clientSecret");
    expect(oidcChanges(mask, { ...sent, clientSecret: "s3" })).toHaveProperty("clientSecret", "s3");
  });

  it("an update without a mask changes the non-empty settings, and the secret only when it is sent", () => {
    expect(populatedOidcPaths(sent)).toEqual(["oidc.issuer", "oidc.client_id", "oidc.additional_scopes", "oidc.groups_claim"]);
    const none = { issuer: "", clientId: "", additionalScopes: [], groupsClaim: "" };
    expect(populatedOidcPaths({ ...none, clientSecret: "x" })).toEqual(["oidc.client_secret"]);
    expect(populatedOidcPaths({ ...none, clientSecret: "" })).toEqual(["oidc.client_secret"]);
  });

  it.each(["oidc.clientSecret", "oidc.client_secret", "defaultRole", "oidc", "oidc.additionalScopes"])("takes %s in a mask", (path) => {
    expect(resolveUpdateMask([path], identityProviderUpdatable, []).size).toBe(1);
  });

  it.each(["uid", "createTime", "update_time", "oidc.colour", "scim", "configuration"])("refuses %s in a mask", (path) => {
    expect(violationOf(() => resolveUpdateMask([path], identityProviderUpdatable, []))).toEqual({
      code: Code.INVALID_ARGUMENT,
      field: "update_mask",
    });
  });
});

describe("where a role may be used", () => {
  const org = "a".repeat(40);
  const team = `${org}/0000000000000001`;
  const sub = `${team}/0000000000000002`;
  const other = `${org}/0000000000000003`;
  const builtin = "b".repeat(40);

  it.each([
    ["a built-in role anywhere", sub, builtin],
    ["a custom role of the group itself", team, `${team}/00000000000000aa`],
    ["a custom role of an ancestor", sub, `${org}/00000000000000aa`],
  ])("allows %s", (_name, group, role) => {
    expect(() => checkRoleUsableIn(group, role, "defaultRole")).not.toThrow();
  });

  it.each([
    ["a custom role of a sibling group", team, `${other}/00000000000000aa`],
    ["a custom role of a descendant", team, `${sub}/00000000000000aa`],
    ["a custom role of another organization", team, `${"c".repeat(40)}/00000000000000aa`],
  ])("refuses %s, naming the field given", (_name, group, role) => {
    expect(violationOf(() => checkRoleUsableIn(group, role, "defaultRole"))).toEqual({ code: Code.INVALID_ARGUMENT, field: "defaultRole" });
    expect(violationOf(() => checkRoleUsableIn(group, role, "roleUid"))).toEqual({ code: Code.INVALID_ARGUMENT, field: "roleUid" });
  });
});

describe("sort values of named records", () => {
  const r = { uid: "u", name: "n", createTime: 1, updateTime: 2 };

  it.each([
    ["name", "n"],
    ["uid", "u"],
    ["create_time", 1],
    ["update_time", 2],
  ])("%s reads %s", (field, want) => {
    expect(identityProviderSortValue(r, field)).toBe(want);
    expect(accountAssociationSortValue(r, field)).toBe(want);
  });

  it("refuses a field no list sorts by", () => {
    expect(() => identityProviderSortValue(r, "issuer")).toThrow(RangeError);
  });
});
