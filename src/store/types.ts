/**
 * What the rest of Arbor sees of storage. Implementations live beside this file; nothing outside
 * store/ knows SQL or which engine runs.
 */
import type { GroupFilter, GroupRecord } from "../domain/groups.js";
import type { OrderKey } from "../domain/list.js";

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
  /** The organization (root group) with this name, or undefined. */
  findOrganization(name: string): Promise<GroupRecord | undefined>;
  /**
   * Applies changes and sets updateTime; returns the updated group, or undefined when it does not
   * exist. ALREADY_EXISTS when the new name is a sibling's.
   */
  update(uid: string, changes: { name?: string; description?: string }, updateTime: number): Promise<GroupRecord | undefined>;
  /**
   * Deletes a group and the role bindings held in it. Returns false when it does not exist.
   * FAILED_PRECONDITION (RESOURCE_NOT_EMPTY) while it holds child groups (later: repos,
   * identities), decided by the store's constraints, not by a check that can race.
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

/** Role bindings (the API over them arrives with the IAM issue; authorization reads them now). */
export interface BindingStore {
  /** Inserts a binding. NOT_FOUND (group <uid>) when the group is gone. */
  insert(binding: BindingRecord): Promise<void>;
  /** The binding of identity to role at group, if there is one. */
  find(groupUid: string, identityUid: string, roleUid: string): Promise<BindingRecord | undefined>;
  /** Every binding an identity holds. */
  forIdentity(identityUid: string): Promise<BindingRecord[]>;
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
}

/** Small server-wide values every replica shares (the page token secret). */
export interface SettingsStore {
  /**
   * The value of name; when there is none, stores make() and returns it. Replicas racing here
   * all end up with the same value.
   */
  getOrCreate(name: string, make: () => string): Promise<string>;
}

/** The resource stores bound to one executor (the pool, or a transaction). */
export interface Stores {
  readonly groups: GroupStore;
  readonly bindings: BindingStore;
  readonly keys: KeyStore;
  readonly settings: SettingsStore;
}

/** Storage: the resource stores, transactions over them, and the connection's life. */
export interface Store extends Stores {
  /** "sqlite" or "postgres". */
  readonly engine: "sqlite" | "postgres";
  /** Runs fn in one transaction; it commits when fn resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Stores) => Promise<T>): Promise<T>;
  /** Resolves when the store answers a trivial query; UNAVAILABLE when it does not. */
  ping(): Promise<void>;
  /** Closes every connection. */
  close(): Promise<void>;
}
