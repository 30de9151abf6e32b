/**
 * Kept audit counts (migration 0014): an audit events count, read off the counts the triggers
 * keep, must always equal what a count of the events finds, for every filter the API has, every
 * visibility, after inserts one at a time, concurrently and in bulk from outside the store, after
 * retention deletes, after folds, and for events a store held before the migration.
 */
import { beforeAll, expect, it } from "vitest";
import type { AuditEventRecord, AuditFilter } from "../../src/domain/audit.js";
import { createStore } from "../../src/store/create-store.js";
import { describeEachEngine, type EngineContext } from "../support/engines.js";
import { childUid, rootUid } from "../support/groups.js";
import { migrateUpTo } from "../support/older-store.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

const ORG = rootUid(0xa0);
const A = childUid(ORG, 0xa);
const B = childUid(ORG, 0xb);
const A1 = childUid(A, 0x1);
const OTHER = rootUid(0xa1);
const GROUPS = [ORG, A, B, A1, OTHER];
const METHODS = ["x.GroupsService/CreateGroup", "x.GroupsService/DeleteGroup", "x.RolesService/UpdateRole"];
const ACTORS = [childUid(ORG, 0x100), childUid(ORG, 0x101)];
const RESOURCES = [A, B, A1, childUid(B, 0x7)];

let serial = 0;
/** An event in group at time, its other fields spread over the filters' values by n. */
function event(group: string, time: number, n = serial): AuditEventRecord {
  return {
    uid: childUid(group, 0x10000 + serial++),
    createTime: time,
    actor: { uid: ACTORS[n % ACTORS.length] ?? "" },
    method: METHODS[n % METHODS.length] ?? "",
    action: "create",
    resourceType: "x.Group",
    resourceUid: RESOURCES[n % RESOURCES.length] ?? "",
  };
}

/** Every filter the kept counts serve (and a combined one they do not), under every visibility. */
function filters(): AuditFilter[] {
  const exacts: Partial<AuditFilter>[] = [
    {},
    ...METHODS.map((method) => ({ method })),
    ...ACTORS.map((actorUid) => ({ actorUid })),
    ...RESOURCES.map((resourceUid) => ({ resourceUid })),
    { method: METHODS[0], actorUid: ACTORS[1] },
  ];
  const uidps = [{}, ...GROUPS.map((g) => ({ descendantsOf: g })), ...GROUPS.map((g) => ({ childrenOf: g }))];
  const visibilities = [undefined, [ORG], [A], [A1, B], [A, A1], [], [OTHER], [childUid(ORG, 0xf)]];
  return exacts.flatMap((exact) =>
    uidps.flatMap((uidp) => visibilities.map((v) => ({ uidp, ...exact, ...(v !== undefined && { visibleUnder: v }) }))),
  );
}

/** What a count of the events finds: the rows the list would return without a window. */
async function agreeEverywhere(t: EngineContext): Promise<void> {
  const audit = t.store().audit;
  for (const filter of filters()) {
    const rows = await audit.list(filter, { order: [{ field: "uid", desc: false }], offset: 0, limit: 1_000_000 });
    expect(await audit.count(filter), JSON.stringify(filter)).toBe(rows.length);
  }
}

describeEachEngine("audit event counts", (t) => {
  const audit = () => t.store().audit;
  const total = async () => Number((await rawRows(t, "select count(*) as n from audit_events"))[0]?.n);

  beforeAll(async () => {
    for (let i = 0; i < 60; i++) await audit().insert(event(GROUPS[i % GROUPS.length] ?? ORG, 1000 + i));
  });

  it("counts every filter and visibility as a count of the events would", async () => {
    expect(await audit().count({ uidp: {} })).toBe(60);
    await agreeEverywhere(t);
  });

  it("counts concurrent inserts and inserts and deletes made by statements from outside the store", async () => {
    await Promise.all(Array.from({ length: 40 }, (_, i) => audit().insert(event(i % 2 === 0 ? A1 : B, 2000 + i))));
    const bulk = [event(A, 3000), event(A, 3001), event(OTHER, 3002)];
    const values = bulk.map(
      (e) =>
        `('${e.uid}', '${parentUid(e.uid)}', ${e.createTime}, '${e.actor.uid}', '{}', ` +
        `'${e.method}', 'create', 'x.Group', '${e.resourceUid}')`,
    );
    await execRaw(
      t,
      "insert into audit_events (uid, group_uid, create_time, actor_uid, actor, method, action, resource_type, resource_uid) " +
        `values ${values.join(", ")}`,
    );
    await execRaw(t, `delete from audit_events where uid = '${bulk[2]?.uid}'`);
    expect(await audit().count({ uidp: {} })).toBe(102);
    await agreeEverywhere(t);
  });

  it("folds a pair's rows once they pile up, and folds everything on request, and still counts right", async () => {
    for (let i = 0; i < 150; i++) await audit().insert(event(B, 4000 + i, 0));
    const rowsOf = async () =>
      Number((await rawRows(t, `select count(*) as n from audit_event_counts where key = '' and group_uid = '${B}'`))[0]?.n);
    expect(await rowsOf()).toBeGreaterThan(150);
    expect(await audit().count({ uidp: { childrenOf: B } })).toBe(await countRows(t, `group_uid = '${B}'`));
    expect(await rowsOf()).toBe(1);
    await audit().foldCounts();
    const [piled] = await rawRows(
      t,
      "select count(*) as n from (select group_uid, key from audit_event_counts group by group_uid, key having count(*) > 1) p",
    );
    expect(Number(piled?.n)).toBe(0);
    await agreeEverywhere(t);
  });

  it("deletes the oldest events in bounded batches, their counts with them", async () => {
    const before = await total();
    const old = await countRows(t, "create_time < 2010");
    expect(old).toBeGreaterThan(5);
    expect(await audit().deleteBefore(2010, 5)).toBe(5);
    expect(await total()).toBe(before - 5);
    // The five deleted are the oldest.
    expect(await countRows(t, "create_time < 1005")).toBe(0);
    while ((await audit().deleteBefore(2010, 5)) > 0);
    expect(await countRows(t, "create_time < 2010")).toBe(0);
    expect(await total()).toBe(before - old);
    await agreeEverywhere(t);
    await audit().foldCounts();
    await agreeEverywhere(t);
  });
});

describeEachEngine("audit event counts of events made before them", (t) => {
  it("are counted when migration 0014 runs on an existing store", async () => {
    const options = await t.freshLocation();
    await migrateUpTo(options, "0012_identity_deletes_authz_generation");
    const t0 = { ...t, options: () => options };
    const events = Array.from({ length: 30 }, (_, i) => event(GROUPS[i % GROUPS.length] ?? ORG, 5000 + i, i));
    const values = events.map(
      (e) =>
        `('${e.uid}', '${parentUid(e.uid)}', ${e.createTime}, '${e.actor.uid}', '{}', ` +
        `'${e.method}', 'create', 'x.Group', '${e.resourceUid}')`,
    );
    await execRaw(
      t0,
      "insert into audit_events (uid, group_uid, create_time, actor_uid, actor, method, action, resource_type, resource_uid) " +
        `values ${values.join(", ")}`,
    );
    const reopened = await createStore(options);
    try {
      const [row] = await rawRows(t0, "select count(*) as n from audit_event_counts");
      expect(Number(row?.n)).toBeGreaterThan(0);
      for (const filter of filters()) {
        const rows = await reopened.audit.list(filter, { order: [{ field: "uid", desc: false }], offset: 0, limit: 1000 });
        expect(await reopened.audit.count(filter), JSON.stringify(filter)).toBe(rows.length);
      }
      expect(await reopened.audit.count({ uidp: { descendantsOf: ORG } })).toBe(24);
    } finally {
      await reopened.close();
    }
  });
});

function parentUid(uid: string): string {
  return uid.slice(0, uid.lastIndexOf("/"));
}

async function countRows(t: EngineContext, where: string): Promise<number> {
  return Number((await rawRows(t, `select count(*) as n from audit_events where ${where}`))[0]?.n);
}
