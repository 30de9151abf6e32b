import { describe, expect, it } from "vitest";
import {
  accountAssociationSortable,
  accountAssociationUpdatable,
  providerChanges,
  requireAnyProvider,
  validateAmazon,
  validateAzure,
  validateGitHub,
  validateGoogle,
  validateProviders,
  type Providers,
} from "../../src/domain/account-association-rules.js";
import { Code } from "../../src/domain/errors.js";
import { resolveUpdateMask } from "../../src/domain/field-mask.js";
import { parseOrderBy } from "../../src/domain/list.js";
import { violationOf } from "../server/rest/violation.js";

const TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const CLIENT = "0b2c6a1e-5d43-4f3a-9f7e-2b1c0d9e8f7a";
const inst = (installationId: string, name = "") => ({ installationId, name });

describe("provider settings", () => {
  it.each([
    ["an AWS account of 12 digits", () => validateAmazon({ account: "123456789012" })],
    ["a project number alone", () => validateGoogle({ projectId: "", projectNumber: "1" })],
    ["a project number of 20 digits and an id of 6", () => validateGoogle({ projectId: "my-pro", projectNumber: "9".repeat(20) })],
    ["a project id of 30 characters", () => validateGoogle({ projectId: `a${"b".repeat(28)}1`, projectNumber: "42" })],
    ["a tenant without client ids", () => validateAzure({ tenantId: TENANT, clientIds: {} })],
    ["upper-case UUIDs", () => validateAzure({ tenantId: TENANT.toUpperCase(), clientIds: { web: CLIENT.toUpperCase() } })],
    [
      "32 client ids",
      () => validateAzure({ tenantId: TENANT, clientIds: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, CLIENT])) }),
    ],
    ["100 installations", () => validateGitHub({ installations: Array.from({ length: 100 }, (_, i) => inst(String(i + 1))) })],
    ["the largest int64 installation id", () => validateGitHub({ installations: [inst("9223372036854775807", "acme")] })],
  ])("accepts %s", (_name, fn) => {
    expect(fn).not.toThrow();
  });

  it.each([
    ["an empty AWS account", () => validateAmazon({ account: "" }), "amazon.account"],
    ["an AWS account of 11 digits", () => validateAmazon({ account: "12345678901" }), "amazon.account"],
    ["an AWS account of 13 digits", () => validateAmazon({ account: "1234567890123" }), "amazon.account"],
    ["an AWS account with a letter", () => validateAmazon({ account: "12345678901a" }), "amazon.account"],
    ["an AWS account with dashes", () => validateAmazon({ account: "1234-5678-9012" }), "amazon.account"],
    ["no project number", () => validateGoogle({ projectId: "my-project", projectNumber: "" }), "google.projectNumber"],
    ["a project number of 21 digits", () => validateGoogle({ projectId: "", projectNumber: "1".repeat(21) }), "google.projectNumber"],
    ["a negative project number", () => validateGoogle({ projectId: "", projectNumber: "-1" }), "google.projectNumber"],
    ["a project id of 5 characters", () => validateGoogle({ projectId: "abcde", projectNumber: "1" }), "google.projectId"],
    ["a project id of 31 characters", () => validateGoogle({ projectId: `a${"b".repeat(29)}1`, projectNumber: "1" }), "google.projectId"],
    ["a project id starting with a digit", () => validateGoogle({ projectId: "1project", projectNumber: "1" }), "google.projectId"],
    ["a project id ending with a dash", () => validateGoogle({ projectId: "project-", projectNumber: "1" }), "google.projectId"],
    ["an upper-case project id", () => validateGoogle({ projectId: "My-Project", projectNumber: "1" }), "google.projectId"],
    ["no tenant", () => validateAzure({ tenantId: "", clientIds: {} }), "azure.tenantId"],
    ["a tenant that is not a UUID", () => validateAzure({ tenantId: "contoso.onmicrosoft.com", clientIds: {} }), "azure.tenantId"],
    ["a client id that is not a UUID", () => validateAzure({ tenantId: TENANT, clientIds: { web: "nope" } }), 'azure.clientIds["web"]'],
    ["an empty client id key", () => validateAzure({ tenantId: TENANT, clientIds: { "": CLIENT } }), "azure.clientIds"],
    [
      "33 client ids",
      () => validateAzure({ tenantId: TENANT, clientIds: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, CLIENT])) }),
      "azure.clientIds",
    ],
    ["no installations", () => validateGitHub({ installations: [] }), "github.installations"],
    [
      "101 installations",
      () => validateGitHub({ installations: Array.from({ length: 101 }, (_, i) => inst(String(i + 1))) }),
      "github.installations",
    ],
    ["installation id 0", () => validateGitHub({ installations: [inst("1"), inst("0")] }), "github.installations[1].installationId"],
    ["a negative installation id", () => validateGitHub({ installations: [inst("-7")] }), "github.installations[0].installationId"],
    [
      "an installation id beyond int64",
      () => validateGitHub({ installations: [inst("9223372036854775808")] }),
      "github.installations[0].installationId",
    ],
    [
      "an installation listed twice",
      () => validateGitHub({ installations: [inst("5"), inst("5")] }),
      "github.installations[1].installationId",
    ],
    [
      "an installation name over 256 characters",
      () => validateGitHub({ installations: [inst("5", "n".repeat(257))] }),
      "github.installations[0].name",
    ],
  ])("refuses %s", (_name, fn, field) => {
    expect(violationOf(fn)).toEqual({ code: Code.INVALID_ARGUMENT, field });
  });

  it("validates each provider present, and needs at least one", () => {
    expect(violationOf(() => validateProviders({ amazon: { account: "1" }, google: null }))).toEqual({
      code: Code.INVALID_ARGUMENT,
      field: "amazon.account",
    });
    expect(() => validateProviders({ amazon: null, github: undefined })).not.toThrow();
    expect(violationOf(() => requireAnyProvider({}))).toEqual({ code: Code.INVALID_ARGUMENT, field: "providers" });
    expect(violationOf(() => requireAnyProvider({ amazon: null }))).toEqual({ code: Code.INVALID_ARGUMENT, field: "providers" });
    expect(() => requireAnyProvider({ azure: { tenantId: TENANT, clientIds: {} } })).not.toThrow();
  });
});

describe("the providers an update changes", () => {
  const stored: Providers = {
    amazon: { account: "123456789012" },
    google: { projectId: "old-project", projectNumber: "11" },
  };
  const sent: Providers = {
    google: { projectId: "", projectNumber: "22" },
    azure: { tenantId: TENANT, clientIds: { web: CLIENT } },
  };

  it.each<[string, string[], object]>([
    ["a provider named and sent replaces it", ["google"], { google: { projectId: "", projectNumber: "22" } }],
    ["a provider named and not sent is removed", ["amazon"], { amazon: null }],
    ["a provider not stored is added", ["azure"], { azure: { tenantId: TENANT, clientIds: { web: CLIENT } } }],
    [
      "a field path changes that field of the stored settings",
      ["google.project_number"],
      { google: { projectId: "old-project", projectNumber: "22" } },
    ],
    [
      "a field path of a provider not stored starts from empty settings",
      ["azure.tenant_id"],
      { azure: { tenantId: TENANT, clientIds: {} } },
    ],
    ["a field path of a provider not sent takes the empty value", ["amazon.account"], { amazon: { account: "" } }],
    ["no provider path changes none", ["name", "description"], {}],
  ])("%s", (_name, mask, want) => {
    expect(providerChanges(new Set(mask), sent, stored)).toEqual(want);
  });

  it.each([
    "amazon",
    "amazon.account",
    "google.projectId",
    "google.project_number",
    "azure.clientIds",
    "github",
    "github.installations",
    "name",
  ])("takes %s in a mask", (path) => {
    expect(resolveUpdateMask([path], accountAssociationUpdatable, []).size).toBe(1);
  });

  it.each(["uid", "createTime", "update_time", "chainguard", "amazon.colour"])("refuses %s in a mask", (path) => {
    expect(violationOf(() => resolveUpdateMask([path], accountAssociationUpdatable, []))).toEqual({
      code: Code.INVALID_ARGUMENT,
      field: "update_mask",
    });
  });

  it("orders by name by default and takes group as the uid", () => {
    expect(parseOrderBy("", accountAssociationSortable)).toEqual([
      { field: "name", desc: false },
      { field: "uid", desc: false },
    ]);
    expect(parseOrderBy("group desc", accountAssociationSortable)).toEqual([{ field: "uid", desc: true }]);
  });
});
