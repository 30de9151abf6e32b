/**
 * What the rest of Arbor sees of storage: the stores together and their transactions. Each
 * resource's store interface lives beside its implementation (group-store.ts holds GroupStore),
 * its record and filter in domain/<resource>.ts; nothing outside store/ knows SQL or which
 * engine runs.
 */
import type { AuthorityChange } from "../domain/authority.js";
import type { AccountAssociationStore } from "./account-association-store.js";
import type { AdvisoryStore } from "./advisory-store.js";
import type { AuditStore } from "./audit-store.js";
import type { BindingStore } from "./binding-store.js";
import type { EventOutboxStore } from "./event-outbox-store.js";
import type { EventSubscriptionStore } from "./event-subscription-store.js";
import type { FeedCursorStore } from "./feed-cursor-store.js";
import type { GroupInviteStore } from "./group-invite-store.js";
import type { GroupStore } from "./group-store.js";
import type { IdentityProviderStore } from "./identity-provider-store.js";
import type { IdentityStore } from "./identity-store.js";
import type { KeyStore } from "./key-store.js";
import type { LoginStore } from "./login-store.js";
import type { RefreshTokenStore } from "./refresh-token-store.js";
import type { RegistryPathStore } from "./registry-path-store.js";
import type { RepoStore } from "./repo-store.js";
import type { RoleStore } from "./role-store.js";
import type { SettingsStore } from "./settings-store.js";
import type { TagStore } from "./tag-store.js";

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
  readonly feedCursors: FeedCursorStore;
  readonly audit: AuditStore;
  readonly logins: LoginStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly repos: RepoStore;
  readonly tags: TagStore;
  readonly registryPaths: RegistryPathStore;
  readonly subscriptions: EventSubscriptionStore;
  readonly outbox: EventOutboxStore;
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
