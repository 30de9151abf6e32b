/**
 * Turns a principal's role bindings into Permissions, once per call, from the store: tokens carry
 * no permissions, so a new binding takes effect on the next request.
 */
import { Capability } from "../domain/capabilities.js";
import { isRoot } from "../domain/uid.js";
import { Permissions, type Grant } from "../domain/permissions.js";
import { builtinRoleByUid } from "../domain/roles.js";
import type { BindingStore } from "../store/types.js";

/** Options of the authorizer. */
export interface AuthorizerOptions {
  /** Whether people (root-level identities) may create organizations. */
  allowOrgCreation: boolean;
}

/** Reads permissions. */
export class Authorizer {
  readonly #bindings: BindingStore;
  readonly #options: AuthorizerOptions;

  constructor(bindings: BindingStore, options: AuthorizerOptions) {
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The permissions of the identity with this uid. */
  async permissionsOf(identityUid: string): Promise<Permissions> {
    const bindings = await this.#bindings.forIdentity(identityUid);
    const grants: Grant[] = [];
    for (const b of bindings) {
      const role = builtinRoleByUid(b.roleUid);
      if (role) grants.push({ groupUid: b.groupUid, capabilities: role.capabilities });
    }
    const atRoot = new Set<Capability>();
    if (this.#options.allowOrgCreation && isRoot(identityUid)) atRoot.add(Capability.CAP_IAM_GROUPS_CREATE);
    return new Permissions(grants, atRoot);
  }
}
