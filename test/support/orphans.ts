/**
 * Rows whose parent is gone, which the foreign keys and transactions must never allow: one
 * query per kind, each answering `kind` and `uid` of every orphan, on either engine.
 */
export const ORPHAN_QUERIES: readonly string[] = [
  "select 'group' as kind, c.uid from groups c left join groups p on p.uid = c.parent_uid where c.parent_uid is not null and p.uid is null",
  "select 'identity' as kind, i.uid from identities i left join groups p on p.uid = i.parent_uid " +
    "where i.parent_uid is not null and p.uid is null",
  "select 'binding' as kind, b.uid from role_bindings b left join groups g on g.uid = b.group_uid where g.uid is null",
  "select 'binding role' as kind, b.uid from role_bindings b left join roles r on r.uid = b.role_uid where r.uid is null",
  "select 'role' as kind, r.uid from roles r left join groups p on p.uid = r.parent_uid where r.parent_uid is not null and p.uid is null",
];
