/**
 * The resource stores bound to one executor: the pool, or a transaction.
 */
import { createBindingStore } from "./binding-store.js";
import type { Executor } from "./database.js";
import { createGroupStore } from "./group-store.js";
import { createKeyStore } from "./key-store.js";
import { createSettingsStore } from "./settings-store.js";
import type { Stores } from "./types.js";

/** Every resource store, each running its statements on db. */
export function createStores(db: Executor): Stores {
  return {
    groups: createGroupStore(db),
    bindings: createBindingStore(db),
    keys: createKeyStore(db),
    settings: createSettingsStore(db),
  };
}
