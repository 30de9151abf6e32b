/**
 * Account associations: what each cloud provider's settings must look like, what may be sorted
 * and updated, and how an update changes the providers. Field paths are JSON names relative to
 * the association (`amazon.account`).
 */
import { invalidArgument } from "./errors.js";
import type { Updatable } from "./field-mask.js";
import { groupSortable } from "./groups.js";
import type { Sortable } from "./list.js";
import { namedSortValue } from "./named-sort-value.js";
import type { AccountAssociationRecord } from "./account-associations.js";

/** The providers an association may name. */
export const PROVIDERS = ["amazon", "google", "azure", "github"] as const;
/** One of them. */
export type Provider = (typeof PROVIDERS)[number];
/** The providers of an association; an absent one is not associated. */
export type Providers = Pick<AccountAssociationRecord, Provider>;
/** What an update does to the providers: a provider set to null is removed. */
export type ProviderChanges = { [P in Provider]?: NonNullable<Providers[P]> | null };

/** The most client ids an Azure tenant may list. */
export const MAX_AZURE_CLIENT_IDS = 32;
/** The longest key of an Azure client id. */
export const MAX_AZURE_CLIENT_ID_KEY_LENGTH = 128;
/** The most GitHub installations an association may list. */
export const MAX_GITHUB_INSTALLATIONS = 100;
/** The longest name of a GitHub installation. */
export const MAX_INSTALLATION_NAME_LENGTH = 256;
/** Google's rule for project ids. */
export const GCP_PROJECT_ID_PATTERN = "^[a-z][a-z0-9-]{4,28}[a-z0-9]$";

const AWS_ACCOUNT = /^\d{12}$/;
const GCP_PROJECT_NUMBER = /^\d{1,20}$/;
const GCP_PROJECT_ID = new RegExp(GCP_PROJECT_ID_PATTERN);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INT64_MAX = 2n ** 63n - 1n;

/** The empty settings of each provider: what `<provider>.<field>` paths start from when none is stored. */
const EMPTY: { [P in Provider]: NonNullable<Providers[P]> } = {
  amazon: { account: "" },
  google: { projectId: "", projectNumber: "" },
  azure: { tenantId: "", clientIds: {} },
  github: { installations: [] },
};

/** The record key of each `<provider>.<field>` update mask path. */
const FIELD_PATHS: { [P in Provider]: Readonly<Record<string, keyof NonNullable<Providers[P]>>> } = {
  amazon: { "amazon.account": "account" },
  google: { "google.project_id": "projectId", "google.project_number": "projectNumber" },
  azure: { "azure.tenant_id": "tenantId", "azure.client_ids": "clientIds" },
  github: { "github.installations": "installations" },
};

/** Throws INVALID_ARGUMENT unless the AWS account is 12 digits. */
export function validateAmazon(a: NonNullable<Providers["amazon"]>): void {
  if (a.account === "") throw invalidArgument("amazon.account", "is required");
  if (!AWS_ACCOUNT.test(a.account)) throw invalidArgument("amazon.account", "must be exactly 12 digits");
}

/** Throws INVALID_ARGUMENT unless the project number is 1 to 20 digits and the project id, when given, is Google's form. */
export function validateGoogle(g: NonNullable<Providers["google"]>): void {
  if (g.projectNumber === "") throw invalidArgument("google.projectNumber", "is required");
  if (!GCP_PROJECT_NUMBER.test(g.projectNumber)) throw invalidArgument("google.projectNumber", "must be 1 to 20 digits");
  if (g.projectId !== "" && !GCP_PROJECT_ID.test(g.projectId)) {
    throw invalidArgument("google.projectId", `must match "${GCP_PROJECT_ID_PATTERN}"`);
  }
}

/** Throws INVALID_ARGUMENT unless the tenant id and every client id are UUIDs under non-empty keys. */
export function validateAzure(z: NonNullable<Providers["azure"]>): void {
  if (z.tenantId === "") throw invalidArgument("azure.tenantId", "is required");
  if (!UUID.test(z.tenantId)) throw invalidArgument("azure.tenantId", "must be a UUID");
  const entries = Object.entries(z.clientIds);
  if (entries.length > MAX_AZURE_CLIENT_IDS)
    throw invalidArgument("azure.clientIds", `at most ${MAX_AZURE_CLIENT_IDS} client ids may be given`);
  for (const [key, value] of entries) {
    if (key === "") throw invalidArgument("azure.clientIds", "keys must not be empty");
    if (key.length > MAX_AZURE_CLIENT_ID_KEY_LENGTH) {
      throw invalidArgument("azure.clientIds", `keys must be at most ${MAX_AZURE_CLIENT_ID_KEY_LENGTH} characters`);
    }
    if (!UUID.test(value)) throw invalidArgument(`azure.clientIds[${JSON.stringify(key)}]`, "must be a UUID");
  }
}

/** Throws INVALID_ARGUMENT unless there are 1 to 100 installations, each with its own positive int64 id. */
export function validateGitHub(h: NonNullable<Providers["github"]>): void {
  if (h.installations.length === 0) throw invalidArgument("github.installations", "at least one installation is required");
  if (h.installations.length > MAX_GITHUB_INSTALLATIONS) {
    throw invalidArgument("github.installations", `at most ${MAX_GITHUB_INSTALLATIONS} installations may be given`);
  }
  const seen = new Set<string>();
  h.installations.forEach((inst, i) => {
    const field = `github.installations[${i}]`;
    if (!/^\d{1,19}$/.test(inst.installationId) || BigInt(inst.installationId) <= 0n || BigInt(inst.installationId) > INT64_MAX) {
      throw invalidArgument(`${field}.installationId`, "must be a positive integer");
    }
    if (seen.has(inst.installationId))
      throw invalidArgument(`${field}.installationId`, `installation ${inst.installationId} is listed more than once`);
    seen.add(inst.installationId);
    if (inst.name.length > MAX_INSTALLATION_NAME_LENGTH) {
      throw invalidArgument(`${field}.name`, `must be at most ${MAX_INSTALLATION_NAME_LENGTH} characters`);
    }
  });
}

const VALIDATORS: { [P in Provider]: (settings: NonNullable<Providers[P]>) => void } = {
  amazon: validateAmazon,
  google: validateGoogle,
  azure: validateAzure,
  github: validateGitHub,
};

/** Validates every provider present (not null or undefined) in p, in a fixed order. */
export function validateProviders(p: ProviderChanges): void {
  for (const name of PROVIDERS) {
    const settings = p[name];
    if (settings != null) (VALIDATORS[name] as (s: unknown) => void)(settings);
  }
}

/** Throws INVALID_ARGUMENT (`providers`) unless p names at least one provider. */
export function requireAnyProvider(p: ProviderChanges): void {
  if (PROVIDERS.some((name) => p[name] != null)) return;
  throw invalidArgument("providers", "at least one of amazon, google, azure or github is required");
}

/**
 * What an update does to the providers. `<provider>` replaces it with the one sent, or removes it
 * when none was sent; `<provider>.<field>` paths change those fields of the stored settings (or of
 * empty ones when the provider was not associated).
 */
export function providerChanges(mask: ReadonlySet<string>, sent: Providers, stored: Providers): ProviderChanges {
  const out: ProviderChanges = {};
  for (const name of PROVIDERS) {
    if (mask.has(name)) {
      Object.assign(out, { [name]: sent[name] ?? null });
      continue;
    }
    const fields = Object.entries(FIELD_PATHS[name]).filter(([path]) => mask.has(path));
    if (fields.length === 0) continue;
    const from: Record<string, unknown> = { ...(sent[name] ?? EMPTY[name]) };
    const next: Record<string, unknown> = { ...(stored[name] ?? EMPTY[name]) };
    for (const [, key] of fields) next[key as string] = from[key as string];
    Object.assign(out, { [name]: next });
  }
  return out;
}

/** Sortable fields of account associations: those of groups and `group` for the uid; default name. */
export const accountAssociationSortable: Sortable = {
  fields: { ...groupSortable.fields, group: "uid" },
  defaultOrder: [{ field: "name", desc: false }],
};

/** What an update may change on an account association: each provider as a whole or field by field. */
export const accountAssociationUpdatable: Updatable = {
  mutable: ["name", "description", ...PROVIDERS.flatMap((p) => [p, ...Object.keys(FIELD_PATHS[p])])],
  outputOnly: ["uid", "create_time", "update_time"],
};

/** The value of an association's sort field. */
export const accountAssociationSortValue = namedSortValue("account associations");
