/**
 * The resource stores bound to one executor: the pool, or a transaction.
 */
import { createAccountAssociationStore } from "./account-association-store.js";
import { createAdvisoryStore } from "./advisory-store.js";
import { createAuditStore } from "./audit-store.js";
import { createBindingStore } from "./binding-store.js";
import type { Executor } from "./database.js";
import type { Engine } from "./dialect.js";
import { createGroupInviteStore } from "./group-invite-store.js";
import { createGroupStore } from "./group-store.js";
import { createIdentityProviderStore } from "./identity-provider-store.js";
import { createIdentityStore } from "./identity-store.js";
import { createKeyStore } from "./key-store.js";
import { createLoginStore } from "./login-store.js";
import { createRefreshTokenStore } from "./refresh-token-store.js";
import { createRegistryPathStore } from "./registry-path-store.js";
import { createRepoStore } from "./repo-store.js";
import { createRoleStore } from "./role-store.js";
import { createSettingsStore } from "./settings-store.js";
import { createTagStore } from "./tag-store.js";
import type { Stores } from "./types.js";
import type { SecretBox } from "../domain/secret-box.js";

/** Every resource store, each running its statements on db; secrets seals what is kept secret at rest. */
export function createStores(db: Executor, engine: Engine, secrets?: SecretBox): Stores {
  return {
    groups: createGroupStore(db, engine),
    bindings: createBindingStore(db),
    identities: createIdentityStore(db),
    roles: createRoleStore(db),
    identityProviders: createIdentityProviderStore(db, secrets),
    accountAssociations: createAccountAssociationStore(db),
    groupInvites: createGroupInviteStore(db),
    keys: createKeyStore(db),
    settings: createSettingsStore(db),
    advisories: createAdvisoryStore(db),
    audit: createAuditStore(db),
    logins: createLoginStore(db),
    refreshTokens: createRefreshTokenStore(db),
    repos: createRepoStore(db),
    tags: createTagStore(db),
    registryPaths: createRegistryPathStore(db),
  };
}
