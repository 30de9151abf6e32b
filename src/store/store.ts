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
import type { DeviceAuthorizationStore } from "./device-authorization-store.js";
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
  readonly devices: DeviceAuthorizationStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly repos: RepoStore;
  readonly tags: TagStore;
  readonly registryPaths: RegistryPathStore;
  readonly subscriptions: EventSubscriptionStore;
  readonly outbox: EventOutboxStore;
}

/**
 * What atomically()'s fn gets: the resource stores, whose calls in fn's async context run in its
 * transaction (as every store call there does; made once, not per transaction, so a call made
 * outside that context runs on the pool like any other), and what it has changed of who can do what.
 */
export interface StoreTransaction extends Stores {
  /**
   * The authority changes written in the transaction so far, by these stores or the store's own
   * (a live list: it grows as fn writes), for the escalation guard.
   */
  readonly authorityChanges: readonly AuthorityChange[];
}

/**
 * Storage: the resource stores, atomically() over them, and the connection's life.
 *
 * One transaction model (docs/architecture.md, "Transactions"): a unit of work that must land
 * whole is `store.atomically(fn)`. Outside it each store call stands alone (on the pool, its
 * statements in a transaction of their own when there are several); inside it every store call
 * made in fn's async context joins fn's transaction, whether made through `tx` or through this
 * store, however deep in a service or helper. The stores keep two helpers of their own:
 * inTransaction() (nested-transactions.ts) for a call of several statements, which joins the open
 * transaction or opens one, and recoverable() for a statement whose failure is expected, which a
 * savepoint keeps from spoiling the surrounding transaction.
 *
 * The one way to misuse it: store work not started in fn's async context (a promise made before
 * atomically() or by another request, a callback registered elsewhere) runs on the pool, outside
 * the transaction, so it neither sees fn's writes nor rolls back with them. On SQLite a write
 * there, or another request's atomically(), waits for the one writer, which fn's transaction (and
 * the group committed with it) holds until it commits: fn must never wait for such work, or it
 * waits forever.
 */
export interface Store extends Stores {
  /** "sqlite" or "postgres". */
  readonly engine: "sqlite" | "postgres";
  /**
   * Runs fn in one transaction, committed when fn resolves and rolled back when it throws (fn's
   * error is rethrown as it is). Every store statement fn's calls make in its async context
   * joins it; an atomically() inside joins it too, with the same tx. For a read-modify-write
   * (with a lock() of the row), a change of several resources, and an API call's change with
   * its audit event (src/server/invoker.ts). See the Store's doc for the one thing fn must not do.
   */
  atomically<T>(fn: (tx: StoreTransaction) => Promise<T>): Promise<T>;
  /**
   * Drops the list change log's entries older than the previous call (migration 0017): the
   * server calls it every LIST_CHANGES_PRUNE_INTERVAL_MS.
   */
  pruneListChanges(): Promise<void>;
  /**
   * Analyzes again the tables whose statistics the engine leaves to the program and which
   * changed tenfold (dialect.ts, PLANNED_BY_STATISTICS; nothing on PostgreSQL): the server calls
   * it at start and every STATISTICS_INTERVAL_MS. Returns the tables analyzed.
   */
  refreshPlannerStatistics(): Promise<string[]>;
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
