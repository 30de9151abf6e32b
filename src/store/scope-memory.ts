/**
 * What a store derives from a caller's scopes (Permissions.scopes: the same frozen array while
 * the caller's permissions hold), remembered across requests so that a caller with 10,000
 * bindings pays for them once, not on every page (src/store/group-store.ts). Keyed by that array,
 * weakly: when the permissions are dropped, so is everything derived from them.
 */

/** A count remembered with the version of the counts it is exact for. */
export interface RememberedCount {
  version: string;
  /** The groups below the group that the scopes reach. */
  count: number;
  /** All the groups below it. */
  all: number;
}

/** At most this many groups' counts per scopes array (a caller listing many groups' subtrees). */
const PER_SCOPES = 64;

interface Derived {
  counts?: Map<string, RememberedCount>;
  set?: ReadonlySet<string>;
  /** The scopes' lengths, shortest first. */
  lengths?: readonly number[];
}

const SLASH = 0x2f;

/** One store's memory of its callers' scopes. */
export class ScopeMemory {
  readonly #byScopes = new WeakMap<readonly string[], Derived>();

  /** The count of the groups below `under` the scopes reach, if remembered. */
  count(scopes: readonly string[], under: string): RememberedCount | undefined {
    return this.#byScopes.get(scopes)?.counts?.get(under);
  }

  /** Remembers a count; only of a frozen array (Permissions.scopes), which cannot change under it. */
  remember(scopes: readonly string[], under: string, count: RememberedCount): void {
    if (!Object.isFrozen(scopes)) return;
    const derived = this.#derived(scopes);
    const counts = (derived.counts ??= new Map());
    counts.delete(under);
    if (counts.size >= PER_SCOPES) counts.delete(counts.keys().next().value as string);
    counts.set(under, count);
  }

  /**
   * Whether uid is one of the scopes or below one: one set lookup per length a scope has (its
   * depth), on uid's prefix of that length where a segment ends.
   */
  reaches(scopes: readonly string[], uid: string): boolean {
    const derived = Object.isFrozen(scopes) ? this.#derived(scopes) : {};
    const set = (derived.set ??= new Set(scopes));
    const lengths = (derived.lengths ??= [...new Set(scopes.map((s) => s.length))].sort((a, b) => a - b));
    for (const length of lengths) {
      if (length > uid.length) break;
      if ((length === uid.length || uid.charCodeAt(length) === SLASH) && set.has(length === uid.length ? uid : uid.slice(0, length))) return true;
    }
    return false;
  }

  #derived(scopes: readonly string[]): Derived {
    let derived = this.#byScopes.get(scopes);
    if (derived === undefined) this.#byScopes.set(scopes, (derived = {}));
    return derived;
  }
}
