/**
 * A caller's visible scopes (Permissions.scopes: sorted uids, none below another) narrowed to
 * one part of the tree by binary search, so that what a list hands its store follows the part
 * it reads, not every binding the caller holds (docs/architecture.md, "How visibility is
 * computed").
 *
 * Sorted, a scope's subtree is the contiguous run of uids from the scope to just before
 * `scope + "0"`: `/` (0x2F) sorts before every uid character, and uids compare as bytes in JS
 * and in the stores alike.
 */
import { isSelfOrDescendant } from "./uid.js";

const SLASH = 0x2f;

/** Everything below the uid is visible, or only the subtrees of these scopes, all strictly below it. */
export type ScopesBelow = "all" | readonly string[];

/**
 * What of the tree strictly below uid the scopes reach: all of it when a scope is uid or above
 * it, else the scopes strictly below it. Logarithmic in the number of scopes, plus the slice.
 */
export function scopesBelow(scopes: readonly string[], uid: string): ScopesBelow {
  // A frozen array (Permissions.scopes) never changes: what was found below a uid is found again
  // on the next page without a pass over the scopes.
  if (!Object.isFrozen(scopes)) return findBelow(inOrder(scopes), uid);
  let found = remembered.get(scopes);
  if (found === undefined) remembered.set(scopes, (found = new Map()));
  let below = found.get(uid);
  if (below === undefined) {
    below = findBelow(scopes, uid);
    if (found.size >= REMEMBERED_PER_SCOPES) found.delete(found.keys().next().value as string);
    found.set(uid, below);
  }
  return below;
}

/** scopesBelow's answers for frozen scope arrays, dropped with the array. */
const remembered = new WeakMap<readonly string[], Map<string, ScopesBelow>>();
const REMEMBERED_PER_SCOPES = 16;

function findBelow(scopes: readonly string[], uid: string): ScopesBelow {
  // The scope at or just before uid is the only one that can hold it: an ancestor sorts before
  // its descendants, and any scope between them would lie inside that ancestor.
  const at = firstNotBefore(scopes, uid);
  if (scopes[at] === uid) return "all";
  const before = scopes[at - 1];
  if (before !== undefined && isSelfOrDescendant(uid, before)) return "all";
  return Object.freeze(outermost(scopes.slice(at, firstNotBefore(scopes, `${uid}0`))));
}

/** Sorted uids without those below another (Permissions.scopes has none; a filter built by hand may). */
function outermost(sorted: string[]): string[] {
  const out: string[] = [];
  let last: string | undefined;
  for (const uid of sorted) {
    // isSelfOrDescendant without building `last/` for each of maybe 10,000 scopes.
    if (last !== undefined && uid.startsWith(last) && (uid.length === last.length || uid.charCodeAt(last.length) === SLASH)) continue;
    out.push(uid);
    last = uid;
  }
  return out.length === sorted.length ? sorted : out;
}

/**
 * The scopes that can hold a row after `after` in uid order (before it when descending): the
 * one whose subtree holds `after`, if any, and those beyond it, nearest first.
 */
export function scopesFrom(scopes: readonly string[], after: string | undefined, descending: boolean): readonly string[] {
  if (!descending) {
    if (after === undefined) return scopes;
    let at = firstNotBefore(scopes, after);
    const before = scopes[at - 1];
    if (scopes[at] !== after && before !== undefined && isSelfOrDescendant(after, before)) at--;
    return scopes.slice(at);
  }
  // Descending, a subtree's rows come after its top, so every scope that sorts before `after`
  // can hold rows before it (its top at least), and none at or after it can.
  const end = after === undefined ? scopes.length : firstNotBefore(scopes, after);
  return scopes.slice(0, end).reverse();
}

/**
 * Scopes as the functions here take them, sorted with none below another: a frozen array is
 * taken to be Permissions.scopes' (which is), any other is put in order.
 */
export function inOrder(scopes: readonly string[]): readonly string[] {
  return Object.isFrozen(scopes) ? scopes : outermost([...scopes].sort());
}

/** The index of the first scope not sorting before uid (scopes.length when none). */
function firstNotBefore(scopes: readonly string[], uid: string): number {
  let lo = 0;
  let hi = scopes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((scopes[mid] as string) < uid) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
