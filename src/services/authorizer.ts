/**
 * Turns a principal's role bindings into Permissions, once per call, from the store: tokens carry
 * no permissions, so a new binding takes effect on the next request.
 */
import { Capability } from "../domain/capabilities.js";
import { isRoot } from "../domain/uid.js";
import { Permissions } from "../domain/permissions.js";
import { roleCapabilities } from "../domain/role-rules.js";
import type { BindingStore } from "../store/types.js";

/** Options of the authorizer. */
export interface AuthorizerOptions {
  /** Whether people (root-level identities) may create organizations. */
  allowOrgCreation: boolean;
}

/** Reads permissions. */
export class Authorizer {
  readonly #bindings: Pick<BindingStore, "grantsOf">;
  readonly #options: AuthorizerOptions;

  constructor(bindings: Pick<BindingStore, "grantsOf">, options: AuthorizerOptions) {
    this.#bindings = bindings;
    this.#options = options;
  }

  /**
   * The permissions of the identity with this uid, from one store query: built-in roles grant
   * their capabilities from code, custom roles the ones stored with them.
   */
  async permissionsOf(identityUid: string): Promise<Permissions> {
    const grants = (await this.#bindings.grantsOf(identityUid)).map((g) => ({
      groupUid: g.groupUid,
      capabilities: roleCapabilities(g.roleUid, g.capabilities),
    }));
    const atRoot = new Set<Capability>();
    if (this.#options.allowOrgCreation && isRoot(identityUid)) atRoot.add(Capability.CAP_IAM_GROUPS_CREATE);
    return new Permissions(grants, atRoot);
  }
}
