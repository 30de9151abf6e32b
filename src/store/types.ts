/**
 * What the rest of Arbor sees of storage. Implementations live beside this file; nothing outside
 * store/ knows SQL or which engine runs.
 */
import type { AuthorityChange } from "../domain/authority.js";
import type { GroupFilter, GroupRecord } from "../domain/groups.js";
import type { AdvisoryStore } from "./advisory-store.js";
import type { RepoStore } from "./repo-store.js";
import type { RegistryPathStore } from "./registry-path-store.js";
import type { TagStore } from "./tag-store.js";
import type { AuditStore } from "./audit-store.js";
import type { HierarchyFilter } from "../domain/hierarchy.js";
import type { IdentityRecord, Relationship } from "../domain/identities.js";
import type { OrderKey } from "../domain/list.js";
import type { AccountAssociationRecord, GroupInviteRecord, IdentityProviderRecord, OidcSettings, RoleRecord } from "../domain/records.js";

/** One page's worth of a keyset query, as planned by domain/list.ts. */
export interface RowWindow {
  order: readonly OrderKey[];
  /** Sort key (one value per order key) of the row the window starts after. */
  after?: readonly (string | number)[];
  offset: number;
  limit: number;
}

/** Groups. */
export interface GroupStore {
  /**
   * Inserts a group. ALREADY_EXISTS when a sibling (or, for an organization, another
   * organization) has the name; NOT_FOUND (group <parent>) when the parent is gone.
   */
  insert(group: GroupRecord): Promise<void>;
  /** The group, or undefined. */
  get(uid: string): Promise<GroupRecord | undefined>;
  /** The groups among uids that exist, in uid order. */
  getMany(uids: readonly string[]): Promise<GroupRecord[]>;
  /** The organization (root group) with this name, or undefined. */
  findOrganization(name: string): Promise<GroupRecord | undefined>;
  /**
   * Applies changes and sets updateTime; returns the updated group, or undefined when it does not
   * exist. ALREADY_EXISTS when the new name is a sibling's.
   */
  update(uid: string, changes: { name?: string; description?: string }, updateTime: number): Promise<GroupRecord | undefined>;
  /**
   * Deletes a group and the role bindings held in it. Returns false when it does not exist.
   * FAILED_PRECONDITION (RESOURCE_NOT_EMPTY, one violation per kind in the way) while it holds
   * child groups, repos or identities, decided by the store's constraints, not by a check that
   * can race. Custom roles,
   * identity providers, invites and the account association go with it.
   */
  delete(uid: string): Promise<boolean>;
  /** The groups matching filter, in the window's order. */
  list(filter: GroupFilter, window: RowWindow): Promise<GroupRecord[]>;
  /** How many groups match filter. */
  count(filter: GroupFilter): Promise<number>;
}

/** A role binding as stored: an identity holds a role at a group and everything below it. */
export interface BindingRecord {
  uid: string;
  groupUid: string;
  identityUid: string;
  roleUid: string;
  createTime: number;
}

/** A list filter common to the IAM resources: hierarchy, exact name, and what the caller may see. */
export interface ResourceFilter {
  uidp: HierarchyFilter;
  name?: string;
  /**
   * The uids whose subtrees (each uid itself and everything below) the caller may see;
   * undefined means everything, an empty list nothing.
   */
  visibleUnder?: readonly string[];
}

/** A role binding's filters (DESIGN 1.4 plus the RPC's own). */
export interface BindingFilter {
  uidp: HierarchyFilter;
  identity?: string;
  group?: string;
  role?: string;
  visibleUnder?: readonly string[];
}

/** A role held at a group, with the capabilities a custom role stores (empty for built-ins). */
export interface Grant {
  groupUid: string;
  roleUid: string;
  /** Dotted capability names of a custom role; empty for a built-in role (its capabilities are code). */
  capabilities: string[];
}

/**
 * Role bindings. The role must exist (a foreign key); the identity need not (a person can be
 * bound before their first login).
 */
export interface BindingStore {
  /** Inserts a binding. NOT_FOUND when the group or the role is gone; ALREADY_EXISTS for a duplicate. */
  insert(binding: BindingRecord): Promise<void>;
  /** The binding with this uid, or undefined. */
  get(uid: string): Promise<BindingRecord | undefined>;
  /** As get, the row held until the surrounding store.transaction ends: the read of a read-modify-write. */
  lock(uid: string): Promise<BindingRecord | undefined>;
  /** The binding of identity to role at group, if there is one. */
  find(groupUid: string, identityUid: string, roleUid: string): Promise<BindingRecord | undefined>;
  /** Every binding an identity holds. */
  forIdentity(identityUid: string): Promise<BindingRecord[]>;
  /** Every role an identity holds, with the stored capabilities of custom roles: one query. */
  grantsOf(identityUid: string): Promise<Grant[]>;
  /**
   * The authorization generation of an identity: a value that changes whenever one of its
   * bindings, any role, or any identity's existence does (by triggers, whoever writes; migrations
   * 0007, 0012, 0013). Its permissions computed after reading it stay right while it holds.
   */
  authzGeneration(identityUid: string): Promise<string>;
  /**
   * Holds the global authorization generation's row until the surrounding transaction ends,
   * without moving it. Every write of a role holds it too (its trigger), and so does every API
   * call that changes authority (the escalation guard), so a transaction holding it reads roles,
   * bindings, invites and providers that no concurrent such call can change before it commits.
   */
  holdGeneration(): Promise<void>;
  /** Changes a binding's identity or role; undefined when it does not exist. Same errors as insert. */
  update(uid: string, changes: { identityUid?: string; roleUid?: string }): Promise<BindingRecord | undefined>;
  /** Deletes a binding; false when there was none. */
  delete(uid: string): Promise<boolean>;
  /** The bindings matching filter, in the window's order (fields: create_time, uid). */
  list(filter: BindingFilter, window: RowWindow): Promise<BindingRecord[]>;
  /** How many bindings match filter. */
  count(filter: BindingFilter): Promise<number>;
}

/** Identities. */
export interface IdentityStore {
  /** Inserts an identity. ALREADY_EXISTS for a sibling's name; NOT_FOUND when its group is gone. */
  insert(identity: IdentityRecord): Promise<void>;
  /** The identity, or undefined. */
  get(uid: string): Promise<IdentityRecord | undefined>;
  /** As get, the row held until the surrounding store.transaction ends: the read of a read-modify-write. */
  lock(uid: string): Promise<IdentityRecord | undefined>;
  /** The identities among uids that exist (for hydrating bindings). */
  getMany(uids: readonly string[]): Promise<IdentityRecord[]>;
  /** Applies changes and sets updateTime; undefined when it does not exist. ALREADY_EXISTS for a sibling's name. */
  update(
    uid: string,
    changes: { name?: string; description?: string; relationship?: Relationship },
    updateTime: number,
  ): Promise<IdentityRecord | undefined>;
  /** Deletes the identity and every binding that names it; false when it does not exist. */
  delete(uid: string): Promise<boolean>;
  /** Records that a token just became this identity; false when it does not exist. */
  touch(uid: string, lastSeenTime: number): Promise<boolean>;
  /** Records that a person joined an organization by their own act; joining twice changes nothing. */
  join(organizationUid: string, personUid: string, joinTime: number): Promise<void>;
  /** The organizations these people have joined. */
  memberships(personUids: readonly string[]): Promise<{ organizationUid: string; personUid: string }[]>;
  /**
   * The identities matching filter (fields: name, create_time, update_time, uid). visibleUnder
   * reaches identities in those subtrees, and root-level identities (people) bound to a role
   * anywhere in them.
   */
  list(filter: ResourceFilter, window: RowWindow): Promise<IdentityRecord[]>;
  /** How many identities match filter. */
  count(filter: ResourceFilter): Promise<number>;
}

/** Roles: built-in ones are rows without a parent; custom ones live in a group. */
export interface RoleStore {
  /** Inserts a custom role. ALREADY_EXISTS for a sibling's name; NOT_FOUND when its group is gone. */
  insert(role: RoleRecord): Promise<void>;
  /** The role, or undefined. */
  get(uid: string): Promise<RoleRecord | undefined>;
  /** The roles among uids that exist (for hydration). */
  getMany(uids: readonly string[]): Promise<RoleRecord[]>;
  /** Applies changes and sets updateTime; undefined when it does not exist. ALREADY_EXISTS for a sibling's name. */
  update(uid: string, changes: { name?: string; description?: string; capabilities?: string[] }, updateTime: number): Promise<RoleRecord | undefined>;
  /**
   * The groups where the role is handed out: bound there, offered there by an invite, or the
   * default role of an identity provider there. Each once, in no order.
   */
  placesOf(uid: string): Promise<string[]>;
  /**
   * Deletes a custom role; false when it does not exist. FAILED_PRECONDITION (RESOURCE_IN_USE)
   * while a binding or an identity provider uses it, decided by the foreign keys.
   */
  delete(uid: string): Promise<boolean>;
  /**
   * Sets the names and descriptions of the built-in roles (their rows) to the code's, adding
   * any that are missing; run at start.
   */
  syncBuiltins(roles: readonly { uid: string; name: string; description: string }[], now: number): Promise<void>;
  /** The roles matching filter (fields: name, create_time, update_time, uid); built-in roles are always visible. */
  list(filter: ResourceFilter, window: RowWindow): Promise<RoleRecord[]>;
  /** How many roles match filter. */
  count(filter: ResourceFilter): Promise<number>;
}

/** Identity providers. */
export interface IdentityProviderStore {
  /** Inserts a provider. ALREADY_EXISTS for a sibling's name; NOT_FOUND when its group or default role is gone. */
  insert(provider: IdentityProviderRecord): Promise<void>;
  /** The provider, or undefined. */
  get(uid: string): Promise<IdentityProviderRecord | undefined>;
  /** As get, the row held until the surrounding store.transaction ends: the read of a read-modify-write. */
  lock(uid: string): Promise<IdentityProviderRecord | undefined>;
  /** Applies changes and sets updateTime; undefined when it does not exist. */
  update(
    uid: string,
    changes: { name?: string; description?: string; defaultRole?: string; oidc?: Partial<OidcSettings> },
    updateTime: number,
  ): Promise<IdentityProviderRecord | undefined>;
  /** Deletes a provider; false when it does not exist. */
  delete(uid: string): Promise<boolean>;
  /** The providers matching filter (fields: name, create_time, update_time, uid). */
  list(filter: ResourceFilter, window: RowWindow): Promise<IdentityProviderRecord[]>;
  /** How many providers match filter. */
  count(filter: ResourceFilter): Promise<number>;
  /**
   * Whether issuer is an organization's login provider's: that of the oldest provider (by
   * create_time, then uid) in an organization's root group, the one its logins go through.
   */
  isLoginIssuer(issuer: string): Promise<boolean>;
  /**
   * Seals every client secret not sealed under the current key (plain text, or an older key); how
   * many. With checkOnly, only opens them all (throwing when one does not open) and counts.
   */
  resealSecrets(checkOnly?: boolean): Promise<number>;
}

/** Account associations, one per group at most, keyed by the group's uid. */
export interface AccountAssociationStore {
  /** Inserts an association. ALREADY_EXISTS when the group has one; NOT_FOUND when the group is gone. */
  insert(association: AccountAssociationRecord): Promise<void>;
  /** The association, or undefined. */
  get(uid: string): Promise<AccountAssociationRecord | undefined>;
  /** As get, the row held until the surrounding store.transaction ends: the read of a read-modify-write. */
  lock(uid: string): Promise<AccountAssociationRecord | undefined>;
  /** Replaces the fields given (a provider set to null is removed) and sets updateTime; undefined when none exists. */
  update(
    uid: string,
    changes: Partial<Omit<AccountAssociationRecord, "uid" | "createTime" | "updateTime" | "amazon" | "google" | "azure" | "github">> & {
      amazon?: AccountAssociationRecord["amazon"] | null;
      google?: AccountAssociationRecord["google"] | null;
      azure?: AccountAssociationRecord["azure"] | null;
      github?: AccountAssociationRecord["github"] | null;
    },
    updateTime: number,
  ): Promise<AccountAssociationRecord | undefined>;
  /** Deletes an association; false when there was none. */
  delete(uid: string): Promise<boolean>;
  /**
   * The associations matching filter (fields: name, create_time, update_time, uid). Hierarchy
   * filters apply to the uid as to a group's (the parent is the group's parent).
   */
  list(filter: ResourceFilter, window: RowWindow): Promise<AccountAssociationRecord[]>;
  /** How many associations match filter. */
  count(filter: ResourceFilter): Promise<number>;
}

/** A group invite's filters. */
export interface InviteFilter {
  uidp: HierarchyFilter;
  keyId?: string;
  visibleUnder?: readonly string[];
}

/** Group invites. */
export interface GroupInviteStore {
  /** Inserts an invite. NOT_FOUND when its group is gone. */
  insert(invite: GroupInviteRecord): Promise<void>;
  /** The invite, or undefined. */
  get(uid: string): Promise<GroupInviteRecord | undefined>;
  /** The invite whose code has this SHA-256, or undefined. */
  findByCodeHash(codeHash: string): Promise<GroupInviteRecord | undefined>;
  /** Applies changes; undefined when it does not exist. */
  update(
    uid: string,
    changes: { email?: string; singleUse?: boolean; expirationTime?: number; redeemTime?: number | null },
  ): Promise<GroupInviteRecord | undefined>;
  /**
   * Marks a single-use invite redeemed at redeemTime unless it already was: true for the one
   * redemption that wins, false when it was redeemed before (or is gone). Two replicas redeeming
   * the same invite at once cannot both win.
   */
  redeem(uid: string, redeemTime: number): Promise<boolean>;
  /** Deletes an invite; false when it does not exist. */
  delete(uid: string): Promise<boolean>;
  /** The invites matching filter (fields: create_time, expiration_time, uid). */
  list(filter: InviteFilter, window: RowWindow): Promise<GroupInviteRecord[]>;
  /** How many invites match filter. */
  count(filter: InviteFilter): Promise<number>;
}

/** A token signing key. The private JWK never leaves the server. */
export interface SigningKeyRecord {
  kid: string;
  /** JSON of the private JWK (ES256). */
  privateJwk: string;
  /** JSON of the public JWK. */
  publicJwk: string;
  createTime: number;
  /** After this the key signs nothing; it stays published until retireTime. */
  rotateTime: number;
  /** After this the key is neither used nor published. */
  retireTime: number;
}

/** Signing keys, shared by every replica. */
export interface KeyStore {
  insert(key: SigningKeyRecord): Promise<void>;
  /** Keys not yet retired at `now`, newest first. */
  live(now: number): Promise<SigningKeyRecord[]>;
  /** Deletes keys retired before `now`. */
  deleteRetired(now: number): Promise<void>;
  /**
   * A rotation: every key but `kept` stops signing at `now` (if it still did) and retires at
   * `retireBy` at the latest, staying published until then.
   */
  endSigning(kept: string, now: number, retireBy: number): Promise<void>;
  /** Seals every private key not sealed under the current secrets key; as IdentityProviderStore.resealSecrets. */
  resealSecrets(checkOnly?: boolean): Promise<number>;
}

/** Who an upstream token named: the `act` claim of the tokens a login yields. */
export interface UpstreamActor {
  iss: string;
  sub: string;
  aud?: string | string[];
}

/** A login between the redirect to the upstream provider and its callback. */
export interface LoginAttemptRecord {
  /** SHA-256 (hex) of the state sent to the upstream provider. */
  stateHash: string;
  /** The organization's identity provider; null for the server's default login provider. */
  providerUid: string | null;
  issuer: string;
  clientId: string;
  /** The upstream PKCE verifier (sent to the provider's token endpoint as it is). */
  codeVerifier: string;
  nonce: string;
  /** The CLI's loopback redirect URI. */
  redirectUri: string;
  /** The CLI's PKCE challenge (S256) for Arbor's own code. */
  codeChallenge: string;
  /** The CLI's state, echoed back to it. */
  clientState: string;
  /** SHA-256 of the invite code given at login, or null. */
  inviteCodeHash: string | null;
  createTime: number;
  expireTime: number;
  /** SHA-256 (hex) of the client's address key (loginAddressKey): logins in progress count per address. */
  addressHash: string;
  /** The organization whose identity provider the login goes through; '' for the default login provider. */
  organizationUid: string;
  /** SHA-256 of the device code of the headless login this attempt finishes; null for a browser login. */
  deviceCodeHash: string | null;
}

/** How many logins may be in progress at once: in all, from one address, and per organization. */
export interface LoginAttemptLimits {
  live: number;
  perAddress: number;
  perOrganization: number;
}

/** Whether an attempt was stored, or which limit refused it. */
export type LoginAttemptAdmission = "stored" | "address" | "organization" | "server";

/** Arbor's one-time authorization code, redeemed by the CLI with its PKCE verifier. */
export interface LoginCodeRecord {
  /** SHA-256 (hex) of the code. */
  codeHash: string;
  identityUid: string;
  actor: UpstreamActor;
  redirectUri: string;
  codeChallenge: string;
  createTime: number;
  expireTime: number;
}

/**
 * Logins in progress, shared by every replica. Attempts and codes are taken (deleted and
 * returned) in one statement, so each is used at most once.
 */
export interface LoginStore {
  /**
   * Sweeps expired attempts, then inserts this one unless a limit is reached already: `limits.live`
   * in all, `perAddress` with its address hash, `perOrganization` with its organization. Says
   * which limit refused it, else "stored".
   */
  insertAttempt(attempt: LoginAttemptRecord, limits: LoginAttemptLimits): Promise<LoginAttemptAdmission>;
  /** Removes and returns the attempt with this state hash; undefined when there is none or it expired at now. */
  takeAttempt(stateHash: string, now: number): Promise<LoginAttemptRecord | undefined>;
  /** Sweeps expired codes, then inserts this one. */
  insertCode(code: LoginCodeRecord): Promise<void>;
  /** Removes and returns the code with this hash; undefined when there is none or it expired at now. */
  takeCode(codeHash: string, now: number): Promise<LoginCodeRecord | undefined>;
}

/** Where a headless login stands: waiting for the person, logged in as someone, or refused with a reason. */
export type DeviceOutcome = { state: "pending" } | { state: "approved"; identityUid: string; actor: UpstreamActor } | { state: "denied"; denial: string };

/** A headless login (RFC 8628): from the CLI's device authorization request to its last poll. */
export interface DeviceAuthorizationRecord {
  /** SHA-256 (hex) of the device code the CLI polls with. */
  deviceCodeHash: string;
  /** SHA-256 (hex) of the normalized user code the person types. */
  userCodeHash: string;
  /** The provider the login goes through, as LoginAttemptRecord. */
  providerUid: string | null;
  issuer: string;
  clientId: string;
  inviteCodeHash: string | null;
  addressHash: string;
  organizationUid: string;
  /** How long the CLI must wait between polls; every slow_down adds 5 s. */
  intervalMs: number;
  lastPollTime: number | null;
  outcome: DeviceOutcome;
  createTime: number;
  expireTime: number;
}

/** A poll as the store saw it: the authorization, and whether it came sooner than its interval allows. */
export interface DevicePoll {
  record: DeviceAuthorizationRecord;
  tooSoon: boolean;
}

/**
 * Headless logins in progress, shared by every replica. A record outlives its expiry by as long
 * again (so a late poll learns it expired) and is then swept.
 */
export interface DeviceAuthorizationStore {
  /** Sweeps long-expired records, then inserts this one unless a limit (counting unexpired records) is reached already. */
  insert(record: DeviceAuthorizationRecord, limits: LoginAttemptLimits): Promise<LoginAttemptAdmission>;
  /** The pending, unexpired authorization with this user code hash. */
  findPending(userCodeHash: string, now: number): Promise<DeviceAuthorizationRecord | undefined>;
  /** Settles a pending, unexpired authorization; false when it is not one (any more). */
  settle(deviceCodeHash: string, outcome: Exclude<DeviceOutcome, { state: "pending" }>, now: number): Promise<boolean>;
  /**
   * Records a poll at now: too soon when it comes less than the interval (less slackMs) after the
   * last, and then the interval grows by slowDownMs. Undefined for an unknown device code.
   */
  poll(deviceCodeHash: string, now: number, slackMs: number, slowDownMs: number): Promise<DevicePoll | undefined>;
  /** Removes and returns the authorization if it is in state; undefined otherwise (someone else took it). */
  take(deviceCodeHash: string, state: DeviceOutcome["state"]): Promise<DeviceAuthorizationRecord | undefined>;
}

/** One login's chain of refresh tokens. */
export interface RefreshFamilyRecord {
  uid: string;
  identityUid: string;
  actor: UpstreamActor;
  createTime: number;
  /** Absolute: no token of the family works after it. */
  expireTime: number;
}

/** What presenting a refresh token for rotation came to. */
export type RotationOutcome =
  | { outcome: "rotated"; family: RefreshFamilyRecord }
  /** The token was used before: a replay. The caller revokes the family. */
  | { outcome: "reused"; familyUid: string }
  /** The family has expired (and is now deleted). */
  | { outcome: "expired" }
  | { outcome: "unknown" };

/** Refresh tokens, kept as their SHA-256 only, in families that are revoked whole. */
export interface RefreshTokenStore {
  /** Sweeps expired families, then inserts family with its first token. */
  insertFamily(family: RefreshFamilyRecord, tokenHash: string): Promise<void>;
  /**
   * Marks the token used unless it already was and, in the same transaction, adds nextHash to
   * its family. Of two rotations of one token, exactly one is "rotated".
   */
  rotate(tokenHash: string, nextHash: string, now: number): Promise<RotationOutcome>;
  /** The family a token (used or not) belongs to, or undefined. */
  familyOf(tokenHash: string): Promise<RefreshFamilyRecord | undefined>;
  /** Deletes a family and all its tokens; false when there was none. */
  deleteFamily(uid: string): Promise<boolean>;
}

/**
 * Small server-wide values every replica shares: keys and secrets (the page token secret, the
 * registry's signing key and secrets), so every value is sealed at rest.
 */
export interface SettingsStore {
  /**
   * The value of name; when there is none, stores make() and returns it. Replicas racing here
   * all end up with the same value.
   */
  getOrCreate(name: string, make: () => string): Promise<string>;
  /** The value of name, or undefined when there is none. */
  get(name: string): Promise<string | undefined>;
  /** Sets name to value, replacing any value it had (last writer wins). */
  put(name: string, value: string): Promise<void>;
  /** Seals every value not sealed under the current secrets key; as IdentityProviderStore.resealSecrets. */
  resealSecrets(checkOnly?: boolean): Promise<number>;
}

/** The resource stores bound to one executor (the pool, or a transaction). */
export interface Stores {
  readonly groups: GroupStore;
  readonly bindings: BindingStore;
  readonly identities: IdentityStore;
  readonly roles: RoleStore;
  readonly identityProviders: IdentityProviderStore;
  readonly accountAssociations: AccountAssociationStore;
  readonly groupInvites: GroupInviteStore;
  readonly keys: KeyStore;
  readonly settings: SettingsStore;
  readonly advisories: AdvisoryStore;
  readonly audit: AuditStore;
  readonly logins: LoginStore;
  readonly devices: DeviceAuthorizationStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly repos: RepoStore;
  readonly tags: TagStore;
  readonly registryPaths: RegistryPathStore;
}

/** Storage: the resource stores, transactions over them, and the connection's life. */
export interface Store extends Stores {
  /** "sqlite" or "postgres". */
  readonly engine: "sqlite" | "postgres";
  /** Runs fn in one transaction; it commits when fn resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Stores) => Promise<T>): Promise<T>;
  /**
   * Runs fn with every statement of this store's methods that fn's calls make (in its async
   * context, whatever they call) in one transaction, committed when fn resolves and rolled back
   * when it throws; a transaction() inside joins it. For a change that must land together with
   * its record (the audit event of an API call). On SQLite it holds the one connection, so fn
   * must not wait on anything but the store. fn gets the authority changes the transaction has
   * written so far (a live list: it grows as fn writes), for the escalation guard.
   */
  atomically<T>(fn: (changes: readonly AuthorityChange[]) => Promise<T>): Promise<T>;
  /**
   * Drops the list change log's entries older than the previous call (migration 0017): the
   * server calls it every LIST_CHANGES_PRUNE_INTERVAL_MS.
   */
  pruneListChanges(): Promise<void>;
  /** Resolves when the store answers a trivial query; UNAVAILABLE when it does not. */
  ping(): Promise<void>;
  /**
   * Whether this process is the one of the store's replicas to run background jobs, becoming it
   * when no live process is (store/leader-lock.ts); on SQLite always.
   */
  leads(): Promise<boolean>;
  /** Closes every connection, giving up the lead. */
  close(): Promise<void>;
}
