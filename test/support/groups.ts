/**
 * Building blocks for store tests: well-formed uids and group records.
 */
import type { GroupRecord } from "../../src/domain/groups.js";
import { parentOf } from "../../src/domain/uid.js";

/** A root uid (40 hex) made from a small number, so tests can say which is which. */
export function rootUid(n: number): string {
  return n.toString(16).padStart(40, "0");
}

/** A child uid of parent (16 hex) made from a small number. */
export function childUid(parent: string, n: number): string {
  return `${parent}/${n.toString(16).padStart(16, "0")}`;
}

/** A group record; the parent is read off the uid, times default to a fixed instant. */
export function group(uid: string, name: string, times: Partial<Pick<GroupRecord, "createTime" | "updateTime">> = {}): GroupRecord {
  const createTime = times.createTime ?? 1_700_000_000_000;
  return {
    uid,
    parentUid: parentOf(uid) ?? null,
    name,
    description: `the ${name} group`,
    createTime,
    updateTime: times.updateTime ?? createTime,
  };
}

/**
 * A SQLite statement inserting n children of parent straight into the groups table, as a bulk
 * load does (the triggers count them): numbered from `from` (uids as childUid makes them), named
 * `g-<number>`.
 */
export function bulkChildrenSql(parent: string, from: number, n: number): string {
  return (
    `with recursive s(i) as (select ${from} union all select i + 1 from s where i < ${from + n - 1}) ` +
    `insert into groups (uid, parent_uid, name, description, create_time, update_time) ` +
    `select '${parent}/' || printf('%016x', i), '${parent}', 'g-' || i, '', 1700000000000, 1700000000000 from s`
  );
}
