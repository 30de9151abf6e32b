/**
 * What one caller may do: capabilities held at groups, each reaching the group and everything
 * below it (DESIGN 1.8). Built from the caller's role bindings, so a new binding works on the
 * next request. Grants are kept by group, so a check looks up the scope's at most 64
 * ancestors-or-self instead of going through every grant: a caller with 10,000 bindings pays
 * per check what one with ten does.
 */
import type { Capability } from "./capabilities.js";
import { parentOf } from "./uid.js";
import { inOrder } from "./visible-scopes.js";

/** A role's capabilities held at a group. */
export interface Grant {
  groupUid: string;
  capabilities: ReadonlySet<Capability>;
}

/** The permissions of one caller. */
export class Permissions {
  /** The capabilities granted at each group, from all of its grants. */
  readonly #byGroup = new Map<string, Set<Capability>>();
  readonly #atRoot: ReadonlySet<Capability>;
  /** scopes() by capability list: permissions never change, and a list asks on every request. */
  readonly #scopes = new Map<string, readonly string[]>();

  /** `atRoot` holds what is granted at the installation root (creating organizations). */
  constructor(grants: readonly Grant[], atRoot: ReadonlySet<Capability> = new Set()) {
    for (const g of grants) {
      const held = this.#byGroup.get(g.groupUid) ?? new Set<Capability>();
      for (const cap of g.capabilities) held.add(cap);
      this.#byGroup.set(g.groupUid, held);
    }
    this.#atRoot = atRoot;
  }

  /** Tells whether every capability is held at scope (a uid; "" is the installation root). */
  allows(caps: readonly Capability[], scope: string): boolean {
    return caps.every((cap) => (scope === "" ? this.#atRoot.has(cap) : this.#holds(cap, scope)));
  }

  /**
   * The groups under which every capability is held: the uids whose subtrees the caller may
   * act in, sorted, with no uid below another. Computed once per capability list and then the
   * same array, so a caller with 10,000 bindings pays for them once per generation (and stores
   * may remember what they derive from it, keyed by the array).
   */
  scopes(caps: readonly Capability[]): readonly string[] {
    const key = caps.join(",");
    const known = this.#scopes.get(key);
    if (known !== undefined) return known;
    // inOrder sorts a copy of an array it may change and keeps the outermost.
    const out = Object.freeze([...inOrder([...this.#byGroup.keys()].filter((uid) => caps.every((cap) => this.#holds(cap, uid))))]);
    this.#scopes.set(key, out);
    return out;
  }

  #holds(cap: Capability, scope: string): boolean {
    for (let uid: string | undefined = scope; uid !== undefined; uid = parentOf(uid)) {
      if (this.#byGroup.get(uid)?.has(cap) === true) return true;
    }
    return false;
  }
}
