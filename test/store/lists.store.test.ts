/**
 * Keyset windows over every IAM resource on every engine: for each sortable order, the full scan
 * comes out as sorted byte-wise with ties broken by uid, and paging through it in windows of any
 * size reproduces it, without repeats or gaps.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { OrderKey } from "../../src/domain/list.js";
import type { Stores } from "../../src/store/store.js";
import { describeEachEngine } from "../support/engines.js";
import { childUid, group, rootUid } from "../support/groups.js";
import { key, pageThrough, sortedBy, uids, window, type Lister } from "../support/lists.js";
import { association, binding, identity, invite, OWNER, provider, role, T0, VIEWER } from "../support/records.js";

const ORG = rootUid(1);
const GROUPS = Array.from({ length: 7 }, (_, i) => childUid(ORG, i + 1));
// Names that differ only in punctuation order differently by bytes than by locale.
const NAMES = ["a", "a-b", "a b", "a_b", "ab"];
const RECORDS = 14;

/** The i-th record's group, name, uid and times: few distinct times, so ties are common. */
function nth(i: number) {
  const parent = GROUPS[i % GROUPS.length] as string;
  return {
    parent,
    uid: childUid(parent, 0x100 + ((i * 5) % RECORDS)),
    name: NAMES[i % NAMES.length] as string,
    times: { createTime: T0 + ((i * 3) % 4), updateTime: T0 + ((i * 7) % 3) },
  };
}

interface Resource {
  name: string;
  /** Inserts the records and returns them. */
  seed(store: Stores): Promise<{ uid: string }[]>;
  lister(store: Stores): Lister<{ uidp: { descendantsOf: string } }, { uid: string }>;
  fields: string[];
}

const indexes = (n: number) => Array.from({ length: n }, (_, i) => i);
const insertAll = async <R>(records: R[], insert: (r: R) => Promise<void>) => {
  for (const r of records) await insert(r);
  return records;
};
const NAMED = ["name", "create_time", "update_time"];

const resources: Resource[] = [
  {
    name: "identities",
    seed: (s) =>
      insertAll(
        indexes(RECORDS).map((i) => identity(nth(i).uid, nth(i).name, nth(i).times)),
        (r) => s.identities.insert(r),
      ),
    lister: (s) => s.identities,
    fields: NAMED,
  },
  {
    name: "roles",
    seed: (s) =>
      insertAll(
        indexes(RECORDS).map((i) => role(nth(i).uid, nth(i).name, [], nth(i).times)),
        (r) => s.roles.insert(r),
      ),
    lister: (s) => s.roles,
    fields: NAMED,
  },
  {
    name: "identity providers",
    seed: (s) =>
      insertAll(
        indexes(RECORDS).map((i) => provider(nth(i).uid, nth(i).name, VIEWER, nth(i).times)),
        (r) => s.identityProviders.insert(r),
      ),
    lister: (s) => s.identityProviders,
    fields: NAMED,
  },
  {
    name: "account associations",
    seed: (s) =>
      insertAll(
        indexes(GROUPS.length).map((i) => association(nth(i).parent, nth(i).name, nth(i).times)),
        (r) => s.accountAssociations.insert(r),
      ),
    lister: (s) => s.accountAssociations,
    fields: NAMED,
  },
  {
    name: "group invites",
    seed: (s) =>
      insertAll(
        indexes(RECORDS).map((i) => invite(nth(i).uid, { createTime: nth(i).times.createTime, expirationTime: nth(i).times.updateTime })),
        (r) => s.groupInvites.insert(r),
      ),
    lister: (s) => s.groupInvites,
    fields: ["create_time", "expiration_time"],
  },
  {
    name: "role bindings",
    seed: (s) =>
      insertAll(
        indexes(RECORDS).map((i) => binding(nth(i).uid, rootUid(0x1000 + i), i % 2 ? OWNER : VIEWER, nth(i).times.createTime)),
        (r) => s.bindings.insert(r),
      ),
    lister: (s) => s.bindings,
    fields: ["create_time"],
  },
];

/** Each field both ways with the uid after it, the uid alone, and the first two fields in mixed directions. */
function ordersOf(fields: string[]): OrderKey[][] {
  const orders = [
    [key("uid")],
    [key("uid", true)],
    ...fields.flatMap((f) => [
      [key(f), key("uid")],
      [key(f, true), key("uid", true)],
    ]),
  ];
  const [first, second] = fields;
  if (first !== undefined && second !== undefined) orders.push([key(first, true), key(second), key("uid")]);
  return orders;
}
const orderName = (order: OrderKey[]) => order.map((k) => `${k.field}${k.desc ? " desc" : ""}`).join(", ");

describeEachEngine("keyset windows", (t) => {
  const filter = { uidp: { descendantsOf: ORG } };

  describe.each(resources)("over $name", (resource) => {
    let records: { uid: string }[] = [];
    beforeAll(async () => {
      const s = t.store();
      if ((await s.groups.get(ORG)) === undefined) {
        await s.groups.insert(group(ORG, "org"));
        for (const [i, g] of GROUPS.entries()) await s.groups.insert(group(g, `g${i}`));
      }
      records = await resource.seed(s);
    });

    it.each(ordersOf(resource.fields).map((order) => ({ order, name: orderName(order) })))(
      "ordered by $name, pages of any size reproduce the full scan",
      async ({ order }) => {
        const lister = resource.lister(t.store());
        const expected = uids(sortedBy(records, order));
        expect(uids(await lister.list(filter, window(order)))).toEqual(expected);
        expect(await lister.count(filter)).toBe(records.length);
        for (const size of [1, 3, 5]) {
          expect(await pageThrough((w) => lister.list(filter, w), order, size), `pages of ${size}`).toEqual(expected);
        }
      },
    );
  });
});
