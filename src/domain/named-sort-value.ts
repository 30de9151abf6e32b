/**
 * The sort values of records that have a name and times: what name, create_time, update_time and
 * uid read, shared by every such resource so their lists order alike.
 */

import type { Sortable } from "./list.js";

/** The uid and the times, by each name a list's order_by may give them (DESIGN 1.4). */
export const UID_AND_TIMES: Sortable["fields"] = {
  uid: "uid",
  create_time: "create_time",
  created_at: "create_time",
  createTime: "create_time",
  update_time: "update_time",
  updated_at: "update_time",
  updateTime: "update_time",
};

/** The sortable fields of every resource with a name and times; default order name ascending (DESIGN 1.4). */
export const namedSortable: Sortable = {
  fields: { name: "name", ...UID_AND_TIMES },
  defaultOrder: [{ field: "name", desc: false }],
};

/** A record sortable by name, times and uid. */
export interface NamedRecord {
  uid: string;
  name: string;
  createTime: number;
  updateTime: number;
}

/** The sort value function of a named resource; `resource` names it in the error for an unknown field. */
export function namedSortValue(resource: string): (record: NamedRecord, field: string) => string | number {
  return (r, field) => {
    switch (field) {
      case "name":
        return r.name;
      case "uid":
        return r.uid;
      case "create_time":
        return r.createTime;
      case "update_time":
        return r.updateTime;
      default:
        throw new RangeError(`${resource} are not sortable by ${field}`);
    }
  };
}
