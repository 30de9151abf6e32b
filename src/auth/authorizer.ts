/**
 * Turns a principal's role bindings into Permissions. Tokens carry no permissions, so a new
 * binding takes effect on the next request; to keep that promise without reading every caller's
 * bindings on every request, permissions are remembered with the caller's authorization
 * generation (read before the bindings), and used again only while it has not changed. It moves
 * with the caller's own bindings and with any role (migration 0013), so a change elsewhere does
 * not make a caller with 10,000 bindings read them all again.
 *
 * The same generation keeps a second fact sound: that a caller's identity exists. Deleting an
 * identity moves it (migration 0012), so a token of a deleted identity fails on the next request.
 *
 * Only ever ask outside a transaction that changes bindings or roles: inside it the generation
 * has already moved, and a rollback would move it back, so permissions remembered there could
 * later be taken for those of a committed change reaching the same number.
 */
import { Capability } from "../domain/capabilities.js";
import { isRoot } from "../domain/uid.js";
import { Permissions } from "../domain/permissions.js";
import { roleCapabilities } from "../domain/role-rules.js";
import type { BindingStore } from "../store/binding-store.js";
import type { IdentityStore } from "../store/identity-store.js";

export interface AuthorizerOptions {
  /** Whether people (root-level identities) may create organizations. */
  allowOrgCreation: boolean;
  /** How many callers' permissions are remembered (least recently used out); default 10,000. */
  cacheSize?: number;
}

const DEFAULT_CACHE_SIZE = 10_000;

/** What is remembered of one identity at one generation. */
interface Entry {
  generation: string;
  permissions: Permissions;
  /** True once the identity's row was read and found at this generation. */
  exists: boolean;
}

/** Reads permissions. */
export class Authorizer {
  readonly #bindings: Pick<BindingStore, "grantsOf" | "authzGeneration">;
  readonly #options: AuthorizerOptions;
  readonly #identities: Pick<IdentityStore, "get">;
  /** Permissions by identity uid, with the generation they were computed at; oldest use first. */
  readonly #cache = new Map<string, Entry>();

  constructor(
    bindings: Pick<BindingStore, "grantsOf" | "authzGeneration">,
    identities: Pick<IdentityStore, "get">,
    options: AuthorizerOptions,
  ) {
    this.#bindings = bindings;
    this.#identities = identities;
    this.#options = options;
  }

  /**
   * The permissions of an authenticated caller, or undefined when no identity has this uid
   * (deleted, or never registered): a signed token outlives its identity, the check must not.
   * As permissionsOf, and one read of the identity's row the first time at a generation.
   */
  async callerPermissions(identityUid: string): Promise<Permissions | undefined> {
    const entry = await this.#entry(identityUid);
    if (!entry.exists) {
      // Read after the generation the entry is filed under: a delete after this read moves it.
      // Absence is not remembered: the identity may be registered on the next request.
      if ((await this.#identities.get(identityUid)) === undefined) return undefined;
      entry.exists = true;
    }
    return entry.permissions;
  }

  /**
   * The permissions of the identity with this uid: built-in roles grant their capabilities from
   * code, custom roles the ones stored with them. One store read of the generation when they are
   * remembered, and one more of the bindings when they are not.
   */
  async permissionsOf(identityUid: string): Promise<Permissions> {
    return (await this.#entry(identityUid)).permissions;
  }

  async #entry(identityUid: string): Promise<Entry> {
    // The generation is read first: a change after it makes the next request read again, so
    // what is remembered is never older than the generation it is filed under.
    const generation = await this.#bindings.authzGeneration(identityUid);
    const cached = this.#cache.get(identityUid);
    this.#cache.delete(identityUid);
    if (cached !== undefined && cached.generation === generation) {
      this.#cache.set(identityUid, cached);
      return cached;
    }
    const entry: Entry = { generation, permissions: await this.#read(identityUid), exists: false };
    if (this.#cache.size >= (this.#options.cacheSize ?? DEFAULT_CACHE_SIZE)) this.#cache.delete(this.#cache.keys().next().value as string);
    this.#cache.set(identityUid, entry);
    return entry;
  }

  async #read(identityUid: string): Promise<Permissions> {
    const grants = (await this.#bindings.grantsOf(identityUid)).map((g) => ({
      groupUid: g.groupUid,
      capabilities: roleCapabilities(g.roleUid, g.capabilities),
    }));
    const atRoot = new Set<Capability>();
    if (this.#options.allowOrgCreation && isRoot(identityUid)) atRoot.add(Capability.CAP_IAM_GROUPS_CREATE);
    return new Permissions(grants, atRoot);
  }
}
