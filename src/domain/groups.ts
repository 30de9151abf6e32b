/**
 * Groups: the record, what may be sorted and updated, and the rules a group obeys.
 */
import { namedSortable, namedSortValue, type NamedRecord } from "./named-sort-value.js";
import type { HierarchyFilter } from "./hierarchy.js";
import type { Updatable } from "./field-mask.js";
import type { Sortable } from "./list.js";

/** A group as the store keeps it. Times are milliseconds since the epoch. */
export interface GroupRecord {
  uid: string;
  /** The parent's uid; null for a root organization. */
  parentUid: string | null;
  name: string;
  description: string;
  createTime: number;
  updateTime: number;
}

/** The deepest a group may sit: an organization and 31 levels below it. */
export const MAX_GROUP_DEPTH = 32;

/** Sortable fields of groups; default order name ascending (DESIGN 1.4). */
export const groupSortable: Sortable = namedSortable;

/** What an update may change on a group. */
export const groupUpdatable: Updatable = {
  mutable: ["name", "description"],
  outputOnly: ["uid", "resource_limits", "verified", "create_time", "update_time"],
};

/** A groups query: hierarchy filters, exact name, and the subtrees the caller may see. */
export interface GroupFilter {
  uidp: HierarchyFilter;
  name?: string;
  /**
   * The uids whose subtrees (each uid itself and everything below) the caller may see, sorted
   * (Permissions.scopes; the same array while the caller's permissions hold, which the store
   * may remember what it derived from by); undefined means everything.
   */
  visibleUnder?: readonly string[];
}

/** The value of a group's sort field. */
export const groupSortValue: (record: NamedRecord, field: string) => string | number = namedSortValue("groups");
