/**
 * What one caller may do: capabilities held at groups, each reaching the group and everything
 * below it (DESIGN 1.8). Built per request from the caller's role bindings, so a new binding
 * works on the next request.
 */
import type { Capability } from "./capabilities.js";
import { isSelfOrDescendant } from "./uid.js";

/** A role's capabilities held at a group. */
export interface Grant {
  groupUid: string;
  capabilities: ReadonlySet<Capability>;
}

/** The permissions of one caller. */
export class Permissions {
  readonly #grants: readonly Grant[];
  readonly #atRoot: ReadonlySet<Capability>;

  /** `atRoot` holds what is granted at the installation root (creating organizations). */
  constructor(grants: readonly Grant[], atRoot: ReadonlySet<Capability> = new Set()) {
    this.#grants = grants;
    this.#atRoot = atRoot;
  }

  /** Tells whether every capability is held at scope (a uid; "" is the installation root). */
  allows(caps: readonly Capability[], scope: string): boolean {
    return caps.every((cap) => (scope === "" ? this.#atRoot.has(cap) : this.#holds(cap, scope)));
  }

  /**
   * The groups under which every capability is held: the uids whose subtrees the caller may
   * act in, with no uid below another.
   */
  scopes(caps: readonly Capability[]): string[] {
    const roots = this.#grants
      .filter((g) => caps.every((cap) => this.#holds(cap, g.groupUid)))
      .map((g) => g.groupUid)
      .sort();
    const out: string[] = [];
    for (const uid of roots) {
      const last = out.at(-1);
      if (last === undefined || !isSelfOrDescendant(uid, last)) out.push(uid);
    }
    return out;
  }

  #holds(cap: Capability, scope: string): boolean {
    return this.#grants.some((g) => g.capabilities.has(cap) && isSelfOrDescendant(scope, g.groupUid));
  }
}
