/**
 * Maven versions: the order of Maven 3.9's ComparableVersion (maven.apache.org/pom.html, "Version
 * Order Specification"), which Maven Central and every Maven resolver use. Any text is a Maven
 * version there; Arbor accepts printable ASCII only, which every published version is.
 *
 * The text splits into items at `.`, at `-` (which opens a sub-list) and at every switch between
 * digits and letters (which opens one as well). Numbers compare by value; qualifiers by rank,
 * alpha < beta < milestone < rc = cr < snapshot < "" = ga = final = release < sp, then unknown
 * qualifiers after all known ones, lexically (a, b and m directly followed by a digit mean alpha,
 * beta and milestone). Trailing zeros and release qualifiers are dropped from each list, so 1 ==
 * 1.0 == 1-ga. Padding compares a missing item as "nothing": 1-rc < 1 < 1-sp < 1.1, and a
 * qualifier after a dot behaves as after a hyphen (1.0.RC1 == 1.0-RC1).
 *
 * Maven's order is not transitive on some unusual texts (1-rc < 1 < 1.zeta.2 < 1-rc): a list and
 * a qualifier in the same place compare by kind, not by how each compares with "nothing". Arbor
 * keeps Maven's answers there rather than invent an order Maven's resolver does not use.
 */
import { accept, compareDigits, compareText, isDigit, type Parsed, refuse, refuseBounds, trimZeros } from "./ordering.js";

const NUMBER = 0;
const QUALIFIER = 1;
const LIST = 2;

interface NumberItem {
  readonly kind: typeof NUMBER;
  readonly digits: string;
}
interface QualifierItem {
  readonly kind: typeof QUALIFIER;
  /** Index among the known qualifiers, or UNKNOWN. */
  readonly rank: number;
  readonly text: string;
}
interface ListItem {
  readonly kind: typeof LIST;
  readonly items: Item[];
}
type Item = NumberItem | QualifierItem | ListItem;

/** A parsed version: the top-level list of items. */
export interface MavenVersion {
  readonly items: readonly Item[];
}

const KNOWN = ["alpha", "beta", "milestone", "rc", "snapshot", "", "sp"];
const RELEASE = KNOWN.indexOf("");
const UNKNOWN = KNOWN.length;
// Maps, not object literals: a qualifier such as "constructor" must not find Object.prototype.
const ALIASES: ReadonlyMap<string, string> = new Map([
  ["ga", ""],
  ["final", ""],
  ["release", ""],
  ["cr", "rc"],
]);
const SHORT: ReadonlyMap<string, string> = new Map([
  ["a", "alpha"],
  ["b", "beta"],
  ["m", "milestone"],
]);
const ZERO: NumberItem = { kind: NUMBER, digits: "0" };

function qualifier(text: string, followedByDigit: boolean): QualifierItem {
  let t = followedByDigit ? (SHORT.get(text) ?? text) : text;
  t = ALIASES.get(t) ?? t;
  const rank = KNOWN.indexOf(t);
  return { kind: QUALIFIER, rank: rank < 0 ? UNKNOWN : rank, text: t };
}

function item(digit: boolean, text: string): Item {
  return digit ? { kind: NUMBER, digits: trimZeros(text) } : qualifier(text, false);
}

function isNull(i: Item): boolean {
  if (i.kind === NUMBER) return i.digits === "0";
  if (i.kind === QUALIFIER) return i.rank === RELEASE;
  return i.items.length === 0;
}

/** Drops trailing "nothing" items (zeros, release qualifiers, empty lists) up to the last non-list. */
function normalize(list: Item[]): void {
  for (let k = list.length - 1; k >= 0; k--) {
    const i = list[k]!;
    if (isNull(i)) list.splice(k, 1);
    else if (i.kind !== LIST) break;
  }
}

export function parse(text: string): Parsed<MavenVersion> {
  const bad = refuseBounds("maven", text);
  if (bad) return bad;
  for (let k = 0; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 33 || c > 126) return refuse("maven", "MALFORMED", k, "only printable ASCII characters are allowed");
  }
  const s = text.toLowerCase();
  const root: Item[] = [];
  let list = root;
  const lists: Item[][] = [root];
  const open = (): void => {
    const sub: Item[] = [];
    list.push({ kind: LIST, items: sub });
    list = sub;
    lists.push(sub);
  };
  let digit = false;
  let start = 0;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === 46 || c === 45) {
      // . or -: an empty item is a zero
      list.push(k === start ? ZERO : item(digit, s.slice(start, k)));
      start = k + 1;
      if (c === 45) open();
    } else if (isDigit(c)) {
      if (!digit && k > start) {
        // letters then digits ("rc1"): the qualifier, then the number in a list of its own
        if (list.length > 0) open();
        list.push(qualifier(s.slice(start, k), true));
        start = k;
        open();
      }
      digit = true;
    } else {
      if (digit && k > start) {
        // digits then letters ("1rc"): the number, then a list for what follows
        list.push(item(true, s.slice(start, k)));
        start = k;
        open();
      }
      digit = false;
    }
  }
  if (s.length > start) {
    // a trailing qualifier after a dot counts as after a hyphen (1.0.X1 sorts as 1.0-X1)
    if (!digit && list.length > 0) open();
    list.push(item(digit, s.slice(start)));
  }
  for (let k = lists.length - 1; k >= 0; k--) normalize(lists[k]!);
  return accept({ items: root });
}

/** How an item compares with a missing one (the shorter side of a padded comparison). */
function compareWithNothing(a: Item): number {
  if (a.kind === NUMBER) return a.digits === "0" ? 0 : 1;
  if (a.kind === QUALIFIER) return Math.sign(a.rank - RELEASE);
  for (const i of a.items) {
    const d = compareWithNothing(i);
    if (d !== 0) return d;
  }
  return 0;
}

function compareItems(a: Item, b: Item): number {
  switch (a.kind) {
    case NUMBER:
      return b.kind === NUMBER ? compareDigits(a.digits, b.digits) : 1; // 1.1 > 1-sp, 1.1 > 1-1
    case QUALIFIER:
      if (b.kind !== QUALIFIER) return -1; // 1.sp < 1.1, 1-sp < 1-1
      if (a.rank !== b.rank) return a.rank - b.rank;
      return a.rank === UNKNOWN ? compareText(a.text, b.text) : 0;
    case LIST:
      if (b.kind === NUMBER) return -1; // 1-1 < 1.1
      if (b.kind === QUALIFIER) return 1; // 1-1 > 1-sp
      return compareLists(a.items, b.items);
  }
}

function compareLists(a: readonly Item[], b: readonly Item[]): number {
  const n = Math.max(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a[k];
    const y = b[k];
    const d = x === undefined ? -compareWithNothing(y!) : y === undefined ? compareWithNothing(x) : compareItems(x, y);
    if (d !== 0) return d;
  }
  return 0;
}

export function compare(a: MavenVersion, b: MavenVersion): number {
  return compareLists(a.items, b.items);
}
