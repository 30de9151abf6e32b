/**
 * Uids (DESIGN 1.2): a root record is 40 lowercase hex characters; a child is its parent's uid,
 * `/` and 16 lowercase hex characters. The uid is the path from the root, so ancestry is read
 * off the string.
 */
import { invalidArgument } from "./errors.js";

const UID = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;

/** The deepest uid Arbor accepts: a root and 63 levels below it. */
export const MAX_UID_SEGMENTS = 64;

/** Tells whether s is a well-formed uid. */
export function isUid(s: string): boolean {
  return s.length <= 40 + 17 * (MAX_UID_SEGMENTS - 1) && UID.test(s);
}

/** Returns s when it is a well-formed uid, else throws INVALID_ARGUMENT naming the field. */
export function requireUid(field: string, s: string): string {
  if (s === "") throw invalidArgument(field, "is required");
  if (!isUid(s)) throw invalidArgument(field, `"${clip(s)}" is not a valid uid`);
  return s;
}

/** Tells whether uid is a root-level uid (an organization or a registered user). */
export function isRoot(uid: string): boolean {
  return !uid.includes("/");
}

/** The parent's uid, or undefined for a root. */
export function parentOf(uid: string): string | undefined {
  const i = uid.lastIndexOf("/");
  return i < 0 ? undefined : uid.slice(0, i);
}

/** The uids above uid, nearest first. */
export function ancestorsOf(uid: string): string[] {
  const out: string[] = [];
  for (let p = parentOf(uid); p !== undefined; p = parentOf(p)) out.push(p);
  return out;
}

/** The uids from the root down to uid itself. */
export function selfAndAncestors(uid: string): string[] {
  return [uid, ...ancestorsOf(uid)];
}

/** The root-level uid a uid belongs to. */
export function rootOf(uid: string): string {
  const i = uid.indexOf("/");
  return i < 0 ? uid : uid.slice(0, i);
}

/** Number of segments: 1 for a root. */
export function depthOf(uid: string): number {
  let n = 1;
  for (let i = 0; i < uid.length; i++) if (uid.charCodeAt(i) === 0x2f) n++;
  return n;
}

/** Tells whether uid is ancestor itself or lies below it. */
export function isSelfOrDescendant(uid: string, ancestor: string): boolean {
  return uid === ancestor || uid.startsWith(ancestor + "/");
}

/** A source of random hex; injected so tests are exact. */
export interface IdSource {
  /** Returns 2 × bytes lowercase hex characters. */
  hex(bytes: number): string;
}

/** A new root-level uid: 40 hex characters, never a `/`, so it cannot be taken for a child's. */
export function newRootUid(ids: IdSource): string {
  return ids.hex(20);
}

/**
 * A new uid for a child of parent: parent's uid, `/` and 16 hex characters, so a uid holds its
 * ancestors' and a subtree is a range of uids (the stores' `uid > key || '/' and uid < key || '0'`).
 */
export function newChildUid(ids: IdSource, parent: string): string {
  return `${parent}/${ids.hex(8)}`;
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
