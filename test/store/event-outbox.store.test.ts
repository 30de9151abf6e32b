/**
 * The outbox and subscriptions' delivery state on every engine: events read after a cursor in
 * order and within a reach, never past a transaction still open that could take an earlier
 * place (PostgreSQL), a cursor moved only from where it was read, and pruning.
 */
import { expect, it } from "vitest";
import type { SubscriptionRecord } from "../../src/domain/event-subscriptions.js";
import type { OutboxEvent } from "../../src/domain/events.js";
import { createStore } from "../../src/store/create-store.js";
import { describeEachEngine, type EngineContext } from "../support/engines.js";
import { group } from "../support/groups.js";
import { migrateUpTo } from "../support/older-store.js";
import { diffSnapshots, snapshotStore } from "../support/fuzz/snapshot.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

const ZERO = { xid: 0, position: 0 };
let n = 0;

function event(id: string, groupUid: string, time = 1_000): OutboxEvent {
  return {
    id,
    type: "dev.arbor.api.iam.group.created.v1",
    subject: groupUid,
    groupUid,
    time,
    readCaps: ["groups.list"],
    data: { actor: { subject: "x" }, body: { id } },
  };
}

describeEachEngine("event outbox", (t) => {
  /** A new organization's uid, its events apart from other tests'. */
  const org = async () => {
    const uid = (++n).toString(16).padStart(40, "a");
    await t.store().groups.insert(group(uid, `org-${n}`));
    return uid;
  };
  const settled = () => settledAt(t);
  const ids = async (reach: { groupUid: string; includeDescendants: boolean }, cursor = ZERO) =>
    (await t.store().outbox.after(cursor, reach, 100)).map((e) => e.id);

  it("reads events after a cursor, in order, within the reach", async () => {
    const o = await org();
    const child = `${o}/0123456789abcdef`;
    for (const [id, g] of [
      ["1", o],
      ["2", child],
      ["3", o],
    ] as const)
      await t.store().outbox.insert(event(id, g));
    await settled();
    expect(await ids({ groupUid: o, includeDescendants: true })).toEqual(["1", "2", "3"]);
    expect(await ids({ groupUid: o, includeDescendants: false })).toEqual(["1", "3"]);
    expect(await ids({ groupUid: child, includeDescendants: true })).toEqual(["2"]);
    const [first] = await t.store().outbox.after(ZERO, { groupUid: o, includeDescendants: true }, 1);
    expect(await ids({ groupUid: o, includeDescendants: true }, first?.at)).toEqual(["2", "3"]);
    expect(await t.store().outbox.pending(first?.at ?? ZERO, { groupUid: o, includeDescendants: false })).toBe(1);
  });

  it("reads nothing past a transaction still open, then both in order once it commits", async () => {
    if (t.engine !== "postgres") return; // SQLite has one writer: no later write commits first.
    const o = await org();
    const reach = { groupUid: o, includeDescendants: true };
    let release = () => {};
    const held = new Promise<void>((r) => (release = r));
    let written = () => {};
    const wrote = new Promise<void>((r) => (written = r));
    const open = t.store().atomically(async (tx) => {
      await tx.outbox.insert(event("early", o));
      written();
      await held;
    });
    await wrote;
    await t.store().outbox.insert(event("late", o));
    // "late" is committed, but "early" may yet commit before it in delivery order.
    expect(await ids(reach)).toEqual([]);
    release();
    await open;
    // Both are read once every transaction begun before them has ended, anywhere on the server
    // (other test files' included): read until two are there, then check their order.
    let read = await ids(reach);
    for (let i = 0; read.length < 2 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      read = await ids(reach);
    }
    expect(read).toEqual(["early", "late"]);
  });

  it("moves a subscription's cursor only from where it was read", async () => {
    const o = await org();
    await t.store().outbox.insert(event("before", o));
    const made = await t.store().subscriptions.insert(subscription(o));
    await t.store().outbox.insert(event("after", o));
    await settled();
    const [next] = await t.store().outbox.after(made.cursor, { groupUid: o, includeDescendants: true }, 10);
    expect(next?.id).toBe("after");
    const state = { cursor: next?.at ?? ZERO, attempts: 0, nextAttemptTime: 0, lastDeliveryTime: 5, lastError: "" };
    expect(await t.store().subscriptions.record(made.uid, made.cursor, state)).toBe(true);
    expect(await t.store().subscriptions.record(made.uid, made.cursor, state)).toBe(false);
    expect(await t.store().subscriptions.get(made.uid)).toMatchObject({ cursor: next?.at, lastDeliveryTime: 5 });
  });

  it("prunes what every subscription is done with once retained long enough, and anything too old", async () => {
    const o = await org();
    const made = await t.store().subscriptions.insert(subscription(o));
    await t.store().outbox.insert(event("old-pending", o, 10));
    await t.store().outbox.insert(event("pending", o, 20));
    const reach = { groupUid: o, includeDescendants: true };
    await t.store().outbox.prune(30, 15);
    await settled();
    // Older than the maximum age: gone even though the subscription never got it.
    expect(await ids(reach, made.cursor)).toEqual(["pending"]);
    const [pending] = await t.store().outbox.after(made.cursor, reach, 1);
    await t
      .store()
      .subscriptions.record(made.uid, made.cursor, { cursor: pending?.at ?? ZERO, attempts: 0, nextAttemptTime: 0, lastError: "" });
    await t.store().subscriptions.delete(made.uid);
    await t.store().outbox.prune(30, 0);
    expect(await ids(reach)).not.toContain("pending");
  });
  it("gives no position twice, even once pruning empties the outbox", async () => {
    const options = await t.freshLocation();
    const store = await createStore(options);
    try {
      const o = (++n).toString(16).padStart(40, "a");
      await store.outbox.insert(event("first", o));
      await store.outbox.insert(event("second", o));
      const last = await store.outbox.end();
      await store.outbox.prune(2_000, 2_000);
      expect(await store.outbox.end()).toEqual(ZERO);
      await store.outbox.insert(event("third", o));
      // On PostgreSQL an event reads once every transaction begun before it ended, anywhere on
      // the server (other test files' included): read until it is there.
      const reach = { groupUid: o, includeDescendants: false };
      let [third] = await store.outbox.after(ZERO, reach, 10);
      for (let i = 0; third === undefined && i < 100; i++) {
        await new Promise((r) => setTimeout(r, 50));
        [third] = await store.outbox.after(ZERO, reach, 10);
      }
      expect(third?.id).toBe("third");
      expect(third?.at.position).toBeGreaterThan(last.position);
    } finally {
      await store.close();
    }
  });

  it("writes nothing when there is nothing to prune", async () => {
    const options = await t.freshLocation();
    const store = await createStore(options);
    try {
      const o = (++n).toString(16).padStart(40, "a");
      await store.outbox.insert(event("kept", o, 5_000));
      const before = await snapshotStore(options);
      expect(await store.outbox.prune(1_000, 1_000)).toBe(0);
      // A periodic prune on an idle server: its store unchanged, the floor with it.
      expect(diffSnapshots(before, await snapshotStore(options))).toEqual([]);
    } finally {
      await store.close();
    }
  });

  // What a create pays for its event on SQLite: the row and its time index, no sqlite_sequence
  // write (AUTOINCREMENT) and no (xid, position) index, xid being always 0 there (migration 0023).
  if (t.engine === "sqlite")
    it("writes only the row and its time index on SQLite", async () => {
      await t.store().outbox.insert(event("cheap", await org()));
      expect(await rawRows(t, "select name from sqlite_sequence where name = 'event_outbox'")).toEqual([]);
      const indexes = await rawRows(t, "select name from sqlite_master where type = 'index' and tbl_name = 'event_outbox' order by 1");
      expect(indexes.map((r) => r.name)).toEqual(["event_outbox_time_idx"]);
    });
});

/**
 * On PostgreSQL an event is read once every transaction begun before it has ended, anywhere on
 * the server (other test files' included): waits until the outbox's events are all so.
 */
async function settledAt(at: EngineContext): Promise<void> {
  if (at.engine !== "postgres") return;
  const query = "select coalesce((select max(xid) from event_outbox), 0) < pg_snapshot_xmin(pg_current_snapshot())::text::bigint as ok";
  for (let i = 0; i < 100 && (await rawRows(at, query))[0]?.ok !== true; i++) await new Promise((r) => setTimeout(r, 50));
}

describeEachEngine("event outbox written before migration 0023", (t) => {
  it("keeps its events, their places and the last position given, and delivers them", async () => {
    const options = await t.freshLocation();
    await migrateUpTo(options, "0022_advisory_scale");
    const older = { ...t, options: () => options };
    const o = "b".repeat(40);
    for (const id of ["one", "two", "three"]) {
      await execRaw(
        older,
        "insert into event_outbox (id, type, subject, group_uid, time, read_caps, data) " +
          `values ('${id}', 'dev.arbor.api.iam.group.created.v1', '${o}', '${o}', 1000, 'groups.list', ` +
          `'{"actor":{"subject":"x"},"body":{"id":"${id}"}}')`,
      );
    }
    // Pruned as an older Arbor pruned: the newest event gone, its position given already.
    await execRaw(older, "delete from event_outbox where id = 'three'");
    const [given] = await rawRows(older, "select max(position) as p from event_outbox");
    const store = await createStore(options);
    try {
      const reach = { groupUid: o, includeDescendants: true };
      await settledAt(older);
      const kept = await store.outbox.after(ZERO, reach, 10);
      expect(kept.map((e) => [e.id, e.data])).toEqual([
        ["one", { actor: { subject: "x" }, body: { id: "one" } }],
        ["two", { actor: { subject: "x" }, body: { id: "two" } }],
      ]);
      expect(await store.outbox.after(kept[0]?.at ?? ZERO, reach, 10)).toMatchObject([{ id: "two" }]);
      await store.outbox.insert(event("four", o));
      await settledAt(older);
      const [four] = await store.outbox.after(kept[1]?.at ?? ZERO, reach, 10);
      expect(four?.id).toBe("four");
      // Past "three"'s position, which a cursor may have stored.
      expect(four?.at.position).toBeGreaterThan(Number(given?.p) + 1);
      if (t.engine === "sqlite") {
        expect(await rawRows(older, "select name from sqlite_sequence where name = 'event_outbox'")).toEqual([]);
      }
    } finally {
      await store.close();
    }
  });
});

function subscription(parentUid: string): SubscriptionRecord {
  return {
    uid: `${parentUid}/${(++n).toString(16).padStart(16, "0")}`,
    parentUid,
    sink: "https://sink.example.com",
    types: [],
    includeDescendants: true,
    creatorUid: "c".repeat(40),
    createTime: 1,
    updateTime: 1,
    cursor: ZERO,
    attempts: 0,
    nextAttemptTime: 0,
    lastError: "",
  };
}
