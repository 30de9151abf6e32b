/**
 * Group invites as the store keeps them, and their lists' filter. Times are milliseconds since
 * the epoch.
 */
import type { HierarchyFilter } from "./hierarchy.js";

/** A group invite's filters. */
export interface InviteFilter {
  uidp: HierarchyFilter;
  keyId?: string;
  visibleUnder?: readonly string[];
}

/** A group invite; its code is never stored, only its SHA-256. */
export interface GroupInviteRecord {
  uid: string;
  parentUid: string;
  roleUid: string;
  email: string;
  singleUse: boolean;
  codeHash: string;
  keyId: string;
  expirationTime: number;
  createTime: number;
  /** When a single-use invite was redeemed; null while it has not been. */
  redeemTime: number | null;
}
