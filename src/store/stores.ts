/**
 * The resource stores bound to one executor: the pool, or a transaction.
 */
import { createAccountAssociationStore } from "./account-association-store.js";
import { createAdvisoryStore } from "./advisory-store.js";
import type { AdvisoryPageOptions } from "./advisory-pages.js";
import { createAuditStore } from "./audit-store.js";
import { createBindingStore } from "./binding-store.js";
import type { Executor } from "./tables.js";
import { createEventOutboxStore } from "./event-outbox-store.js";
import { createEventSubscriptionStore } from "./event-subscription-store.js";
import { createFeedCursorStore } from "./feed-cursor-store.js";
import type { Engine } from "./dialect.js";
import { createGroupInviteStore } from "./group-invite-store.js";
import { createGroupStore } from "./group-store.js";
import { createIdentityProviderStore } from "./identity-provider-store.js";
import { createIdentityStore } from "./identity-store.js";
import { createKeyStore } from "./key-store.js";
import { createDeviceAuthorizationStore } from "./device-authorization-store.js";
import { createLoginStore } from "./login-store.js";
import { createRefreshTokenStore } from "./refresh-token-store.js";
import { createRegistryPathStore } from "./registry-path-store.js";
import { createRepoStore } from "./repo-store.js";
import { createRoleStore } from "./role-store.js";
import { createSettingsStore } from "./settings-store.js";
import { createTagStore } from "./tag-store.js";
import type { ScopeMemory } from "./scope-memory.js";
import type { Stores } from "./store.js";
import type { AuthorityRecorder } from "../domain/authority.js";
import type { SecretBox } from "../domain/secret-box.js";

/**
 * Every resource store, each running its statements on db; secrets seals what is kept secret at
 * rest; record hears of every write that changes who can do what (domain/authority.ts);
 * memory is the store's, shared by all of its executors; advisoryPages how advisory pages read.
 */
export function createStores(
  db: Executor,
  engine: Engine,
  secrets: SecretBox | undefined,
  record: AuthorityRecorder,
  memory: ScopeMemory,
  advisoryPages?: AdvisoryPageOptions,
): Stores {
  return {
    groups: createGroupStore(db, engine, record, memory),
    bindings: createBindingStore(db, engine, record, memory),
    identities: createIdentityStore(db, engine, record, memory),
    roles: createRoleStore(db, engine, record, memory),
    identityProviders: createIdentityProviderStore(db, engine, secrets, record, memory),
    accountAssociations: createAccountAssociationStore(db, engine),
    groupInvites: createGroupInviteStore(db, engine, record, memory),
    keys: createKeyStore(db, secrets),
    settings: createSettingsStore(db, secrets),
    advisories: createAdvisoryStore(db, engine, advisoryPages),
    feedCursors: createFeedCursorStore(db),
    audit: createAuditStore(db, engine),
    logins: createLoginStore(db),
    devices: createDeviceAuthorizationStore(db),
    refreshTokens: createRefreshTokenStore(db),
    repos: createRepoStore(db, engine, memory),
    tags: createTagStore(db, engine, memory),
    registryPaths: createRegistryPathStore(db),
    subscriptions: createEventSubscriptionStore(db, engine),
    outbox: createEventOutboxStore(db, engine),
  };
}
