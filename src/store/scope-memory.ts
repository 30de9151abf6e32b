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

/**
 * A list's count remembered with the moment it was taken: a position in the list's change log
 * (migration 0017), from which it is moved forward (src/store/list-changes.ts).
 */
export interface ListCount {
  /** The log's position the count is exact at: a PostgreSQL snapshot, or SQLite's last number. */
  now: string;
  /** The rows the scopes reach. */
  seen: number;
  /** All the rows the filter matches, seen or not. */
  all: number;
}

/** At most this many groups' counts per scopes array (a caller listing many groups' subtrees). */
const PER_SCOPES = 64;

interface Derived {
  counts?: Map<string, RememberedCount>;
  lists?: Map<string, ListCount>;
  reacher?: (uid: string) => boolean;
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
    remembering((derived.counts ??= new Map()), under, count);
  }

  /** A list's count (by table and listed group) for the scopes, if remembered. */
  listCount(scopes: readonly string[], key: string): ListCount | undefined {
    return this.#byScopes.get(scopes)?.lists?.get(key);
  }

  /** Remembers a list's count; only of a frozen array, as remember. */
  rememberListCount(scopes: readonly string[], key: string, count: ListCount): void {
    if (!Object.isFrozen(scopes)) return;
    const derived = this.#derived(scopes);
    remembering((derived.lists ??= new Map()), key, count);
  }

  /** Whether uid is one of the scopes or below one (reacher's test, for one uid). */
  reaches(scopes: readonly string[], uid: string): boolean {
    return this.reacher(scopes)(uid);
  }

  /**
   * The test of whether a uid is one of the scopes or below one: one set lookup per length a
   * scope has (its depth), on uid's prefix of that length where a segment ends. Taken once for a
   * page's rows, so that each row pays for the lookup alone.
   */
  reacher(scopes: readonly string[]): (uid: string) => boolean {
    const derived = Object.isFrozen(scopes) ? this.#derived(scopes) : {};
    if (derived.reacher !== undefined) return derived.reacher;
    const set = new Set(scopes);
    const lengths = [...new Set(scopes.map((s) => s.length))].sort((a, b) => a - b);
    // Scopes of one depth (the usual many bindings: groups side by side) need one lookup at most.
    const reacher =
      lengths.length === 1
        ? oneDepth(scopes, set, lengths[0] as number)
        : (uid: string) => {
            for (const length of lengths) {
              if (length > uid.length) break;
              if (length === uid.length) return set.has(uid);
              if (uid.charCodeAt(length) === SLASH && set.has(uid.slice(0, length))) return true;
            }
            return false;
          };
    derived.reacher = reacher;
    return reacher;
  }

  #derived(scopes: readonly string[]): Derived {
    let derived = this.#byScopes.get(scopes);
    if (derived === undefined) this.#byScopes.set(scopes, (derived = {}));
    return derived;
  }
}

/**
 * reacher's test for scopes all `length` long (set holds them). Most uids a page walks are none of
 * them, and a bitmap of the scopes' last characters turns those away before the set hashes a
 * string just read (S9's walk of 526 rows: 78 to 30 µs); the set decides every yes.
 */
function oneDepth(scopes: readonly string[], set: ReadonlySet<string>, length: number): (uid: string) => boolean {
  const likely = endings(scopes, length);
  return (uid) =>
    uid.length === length
      ? likely(uid) && set.has(uid)
      : uid.length > length && uid.charCodeAt(length) === SLASH && likely(uid) && set.has(uid.slice(0, length));
}

/**
 * A test that is true for every uid whose prefix of `length` is one of the scopes (all that
 * long), and false for most others: a bit per hash of the prefix's last four characters, about an
 * eighth of the bits set. Uids end in random characters, which are what tells them apart.
 */
function endings(scopes: readonly string[], length: number): (uid: string) => boolean {
  const size = Math.min(2 ** 16, 2 ** Math.ceil(Math.log2(Math.max(scopes.length, 1) * 8)));
  const mask = size - 1;
  const hash = (uid: string) =>
    (((uid.charCodeAt(length - 1) * 31 + uid.charCodeAt(length - 2)) * 31 + uid.charCodeAt(length - 3)) * 31 + uid.charCodeAt(length - 4)) &
    mask;
  const bits = new Uint8Array(size);
  for (const scope of scopes) bits[hash(scope)] = 1;
  return (uid) => bits[hash(uid)] === 1;
}

/** Sets key in a map of at most PER_SCOPES entries, the oldest set dropped first. */
function remembering<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  if (map.size >= PER_SCOPES) map.delete(map.keys().next().value as string);
  map.set(key, value);
}
