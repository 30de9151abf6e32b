/**
 * Role bindings as the store keeps them and the filters their lists take: an identity holds a
 * role at a group and everything below it.
 */
import type { HierarchyFilter } from "./hierarchy.js";

/** A role binding as stored: an identity holds a role at a group and everything below it. */
export interface BindingRecord {
  uid: string;
  groupUid: string;
  identityUid: string;
  roleUid: string;
  createTime: number;
}

/** A role binding's filters (DESIGN 1.4 plus the RPC's own). */
export interface BindingFilter {
  uidp: HierarchyFilter;
  identity?: string;
  group?: string;
  role?: string;
  visibleUnder?: readonly string[];
}

/** A role held at a group, with the capabilities a custom role stores (empty for built-ins). */
export interface Grant {
  groupUid: string;
  roleUid: string;
  /** Dotted capability names of a custom role; empty for a built-in role (its capabilities are code). */
  capabilities: string[];
}
