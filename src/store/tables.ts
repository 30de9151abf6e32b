/**
 * The tables as Kysely sees them (the shape migrations leave behind) and the executor every
 * repository takes, so the same code runs on the pool or inside a transaction.
 */
import type { Generated, Kysely } from "kysely";

/** A row of `groups`. Times are milliseconds since the epoch. */
export interface GroupsTable {
  uid: string;
  parent_uid: string | null;
  name: string;
  description: string;
  create_time: number;
  update_time: number;
}

/** A row of `role_bindings`. */
export interface RoleBindingsTable {
  uid: string;
  group_uid: string;
  identity_uid: string;
  role_uid: string;
  create_time: number;
}

/** A row of `roles`: built-in roles have no parent. */
export interface RolesTable {
  uid: string;
  parent_uid: string | null;
  name: string;
  description: string;
  /** JSON array of dotted capability names. */
  capabilities: string;
  create_time: number;
  update_time: number;
}

/** A row of `identities`: root-level identities (people) have no parent. */
export interface IdentitiesTable {
  uid: string;
  parent_uid: string | null;
  name: string;
  description: string;
  /** JSON of the Relationship. */
  relationship: string;
  /** The relationship's exact issuer and subject, where it has them. */
  issuer: string | null;
  subject: string | null;
  last_seen_time: number | null;
  create_time: number;
  update_time: number;
}

/** A row of `identity_providers`. */
export interface IdentityProvidersTable {
  uid: string;
  parent_uid: string;
  name: string;
  description: string;
  default_role: string;
  issuer: string;
  client_id: string;
  client_secret: string;
  /** JSON array of scope names. */
  additional_scopes: string;
  groups_claim: string;
  create_time: number;
  update_time: number;
}

/** A row of `account_associations`; the uid is the group's. Providers are JSON, or null when absent. */
export interface AccountAssociationsTable {
  uid: string;
  name: string;
  description: string;
  amazon: string | null;
  google: string | null;
  azure: string | null;
  github: string | null;
  create_time: number;
  update_time: number;
}

/** A row of `group_invites`. */
export interface GroupInvitesTable {
  uid: string;
  parent_uid: string;
  role_uid: string;
  email: string;
  /** 1 for a single-use invite, 0 otherwise. */
  single_use: number;
  code_hash: string;
  key_id: string;
  expiration_time: number;
  create_time: number;
  redeem_time: number | null;
}

/** A row of `signing_keys`. */
export interface SigningKeysTable {
  kid: string;
  private_jwk: string;
  public_jwk: string;
  create_time: number;
  rotate_time: number;
  retire_time: number;
}

/** A row of `settings`. */
export interface SettingsTable {
  name: string;
  value: string;
}

/** A row of `login_attempts`: a login between the redirect to the upstream provider and its callback. */
export interface LoginAttemptsTable {
  state_hash: string;
  provider_uid: string | null;
  issuer: string;
  client_id: string;
  code_verifier: string;
  nonce: string;
  redirect_uri: string;
  code_challenge: string;
  client_state: string;
  invite_code_hash: string | null;
  create_time: number;
  expire_time: number;
  address_hash: string;
  organization_uid: string;
  /** The device authorization this login finishes (0020); null for a browser login. */
  device_code_hash: string | null;
}

/** A row of `device_authorizations` (0020): a headless login, RFC 8628. */
export interface DeviceAuthorizationsTable {
  device_code_hash: string;
  user_code_hash: string;
  provider_uid: string | null;
  issuer: string;
  client_id: string;
  invite_code_hash: string | null;
  address_hash: string;
  organization_uid: string;
  interval_ms: number;
  last_poll_time: number | null;
  state: "pending" | "approved" | "denied";
  identity_uid: string | null;
  /** JSON of the upstream actor, once approved. */
  actor: string | null;
  denial: string | null;
  create_time: number;
  expire_time: number;
}

/** A row of `login_codes`: Arbor's one-time authorization code for the CLI. */
export interface LoginCodesTable {
  code_hash: string;
  identity_uid: string;
  /** JSON of the upstream actor. */
  actor: string;
  redirect_uri: string;
  code_challenge: string;
  create_time: number;
  expire_time: number;
}

/** A row of `refresh_families`: one login's chain of refresh tokens. */
export interface RefreshFamiliesTable {
  uid: string;
  identity_uid: string;
  /** JSON of the upstream actor. */
  actor: string;
  create_time: number;
  expire_time: number;
}

/** A row of `refresh_tokens`. */
export interface RefreshTokensTable {
  token_hash: string;
  family_uid: string;
  create_time: number;
  used_time: number | null;
}

/** A row of `advisories`: an OSV document, its id being the uid. */
export interface AdvisoriesTable {
  uid: string;
  modified_time: number;
  /** The published time, or the modified time when the document has none. */
  published_time: number;
  /** When Arbor first stored the advisory (migration 0016); a newer version keeps it. */
  create_time: number;
  /** The lowercased id, aliases, package names and summary, for the substring query. */
  search: string;
  /** JSON of the OSV document. */
  document: string;
  /** A hash of the document's bytes as imported (migration 0022); null when not known. */
  content_hash?: string | null;
}

/** A row of `advisory_aliases`. */
export interface AdvisoryAliasesTable {
  advisory_uid: string;
  alias: string;
}

/** A row of `advisory_packages`: a package an advisory affects. */
export interface AdvisoryPackagesTable {
  advisory_uid: string;
  ecosystem: string;
  ecosystem_base: string;
  name: string;
  /** What a check of the package reads of the advisory, as JSON (CheckedPackage; migration 0024). */
  checked: string | null;
}

/** A row of `advisory_feed_cursors`: where the feed sync stands on one feed (migration 0019). */
export interface AdvisoryFeedCursorsTable {
  feed: string;
  modified: string;
  boundary_ids: string;
  sync_time: number;
}

/**
 * A row of `advisory_deferred_schema`: an index or trigger a first bulk import of advisories
 * dropped, to be built again from its definition (migration 0026, advisory-deferred.ts).
 */
export interface AdvisoryDeferredSchemaTable {
  name: string;
  kind: "index" | "constraint" | "counts" | "texts" | "search";
  definition: string;
}

/** A row of `audit_events`: one change made through the API. */
export interface AuditEventsTable {
  uid: string;
  group_uid: string;
  create_time: number;
  actor_uid: string;
  actor: string;
  method: string;
  action: string;
  resource_type: string;
  resource_uid: string;
  /** Generated by the database (0014): the first 40 characters of group_uid; never written. */
  root_uid?: string;
  before: string | null;
  after: string | null;
}

/** A row of `repos`: a repository of the registry, in a group. */
export interface ReposTable {
  uid: string;
  parent_uid: string;
  name: string;
  description: string;
  create_time: number;
  update_time: number;
}

/** A row of `tags`: a tag of a repo, or its tombstone. */
export interface TagsTable {
  uid: string;
  repo_uid: string;
  name: string;
  digest: string;
  create_time: number;
  update_time: number;
  /** The registry's time of the latest push. */
  event_time: number;
  /** The registry's time of the latest delete of the tag itself, or null. */
  delete_time: number | null;
  /** 1 for a tombstone, 0 for a live tag. */
  deleted: number;
}

/** A row of `manifest_deletes`: the latest time a manifest was deleted from a repo. */
export interface ManifestDeletesTable {
  repo_uid: string;
  digest: string;
  event_time: number;
}

/** A row of `registry_paths`: a group path that held registry content, bound to that group for good. */
export interface RegistryPathsTable {
  path: string;
  /** The group that held it; it may be gone, and then the path is reserved for nobody. */
  group_uid: string;
}

/** The one row of `authz_generation`: advanced by triggers on every change of a role, and on an identity's delete. */
export interface AuthzGenerationTable {
  id: number;
  value: number;
}

/** An identity's own generation (migration 0013): advanced by triggers on every change of its bindings. */
export interface AuthzIdentityGenerationsTable {
  identity_uid: string;
  value: number;
}

/** A row of `group_descendant_counts`: groups added below an ancestor (-1: removed); their sum is its count. */
export interface GroupDescendantCountsTable {
  ancestor_uid: string;
  delta: number;
}

/** A row of `audit_event_counts`: events of a group under a key ('', 'method:…', 'actor:…', 'resource:…'); their sum is the count. */
export interface AuditEventCountsTable {
  group_uid: string;
  key: string;
  delta: number;
}

/**
 * Kept counts of advisories (migrations 0022, 0025, 0029): rows of +n or -n per key ('', 'base:<ecosystem>',
 * 'eco:<ecosystem:release>', 'name:<package>', 'pkg:<n>:<ecosystem>:<package>'; advisoryCountKey).
 */
export interface AdvisoryCountsTable {
  key: string;
  delta: number;
}

/** SQLite: how many advisories' search texts hold a trigram, as the search index last counted (migration 0028). */
export interface AdvisoryTrigramDocsTable {
  term: string;
  docs: number;
}

/** Which organizations each person has joined by their own act (migration 0010). */
export interface OrganizationMembersTable {
  organization_uid: string;
  person_uid: string;
  join_time: number;
}

/** A row of `event_outbox`: one change's CloudEvent, until every subscription is done with it (migration 0021). */
export interface EventOutboxTable {
  position: Generated<number>;
  /** The writing transaction's id on PostgreSQL; 0 on SQLite. */
  xid: Generated<number>;
  id: string;
  type: string;
  subject: string;
  group_uid: string;
  time: number;
  /** The dotted capabilities, comma-separated, a subscription's creator needs to receive it. */
  read_caps: string;
  /** JSON of the event's data. */
  data: string;
}

/** SQLite only (migration 0023): every position given so far is at most the greater of this and the outbox's last. */
export interface EventOutboxFloorTable {
  id: number;
  position: number;
}

/** A row of `event_subscriptions` (migration 0021). */
export interface EventSubscriptionsTable {
  uid: string;
  parent_uid: string;
  sink: string;
  /** JSON array of type patterns. */
  types: string;
  include_descendants: number;
  creator_uid: string;
  create_time: number;
  update_time: number;
  cursor_xid: number;
  cursor_position: number;
  attempts: number;
  next_attempt_time: number;
  first_failure_time: number | null;
  last_delivery_time: number | null;
  last_error: string;
}

/** Every table of the current schema. */
export interface Database {
  groups: GroupsTable;
  role_bindings: RoleBindingsTable;
  roles: RolesTable;
  identities: IdentitiesTable;
  identity_providers: IdentityProvidersTable;
  account_associations: AccountAssociationsTable;
  group_invites: GroupInvitesTable;
  signing_keys: SigningKeysTable;
  settings: SettingsTable;
  advisories: AdvisoriesTable;
  advisory_aliases: AdvisoryAliasesTable;
  advisory_packages: AdvisoryPackagesTable;
  advisory_feed_cursors: AdvisoryFeedCursorsTable;
  advisory_counts: AdvisoryCountsTable;
  advisory_trigram_docs: AdvisoryTrigramDocsTable;
  advisory_deferred_schema: AdvisoryDeferredSchemaTable;
  audit_events: AuditEventsTable;
  audit_event_counts: AuditEventCountsTable;
  authz_generation: AuthzGenerationTable;
  authz_identity_generations: AuthzIdentityGenerationsTable;
  group_descendant_counts: GroupDescendantCountsTable;
  login_attempts: LoginAttemptsTable;
  organization_members: OrganizationMembersTable;
  login_codes: LoginCodesTable;
  device_authorizations: DeviceAuthorizationsTable;
  refresh_families: RefreshFamiliesTable;
  refresh_tokens: RefreshTokensTable;
  repos: ReposTable;
  tags: TagsTable;
  manifest_deletes: ManifestDeletesTable;
  registry_paths: RegistryPathsTable;
  event_outbox: EventOutboxTable;
  event_outbox_floor: EventOutboxFloorTable;
  event_subscriptions: EventSubscriptionsTable;
}

/** The pool or a transaction: a Kysely Transaction is a Kysely too. */
export type Executor = Kysely<Database>;
