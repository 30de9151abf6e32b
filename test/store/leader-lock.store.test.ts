/**
 * The lead among replicas of one store (Store.leads): on PostgreSQL one live process at a time
 * holds it, another takes it once the holder closes or its session ends, and an installation in
 * another schema has a lead of its own; on SQLite the one server always leads.
 */
import { afterEach, expect, it } from "vitest";
import { createStore } from "../../src/store/create-store.js";
import type { Store } from "../../src/store/store.js";
import { describeEachEngine, withClient } from "../support/engines.js";

describeEachEngine("the lead among replicas", (t) => {
  const opened: Store[] = [];
  const open = async (options = t.options()) => {
    const store = await createStore(options);
    opened.push(store);
    return store;
  };
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
  });

  it("is held by one store at a time, and passes on when the holder closes", async () => {
    const [a, b] = [await open(), await open()];
    expect(await a.leads()).toBe(true);
    if (t.engine === "sqlite") {
      expect(await b.leads()).toBe(true);
      return;
    }
    expect(await Promise.all([b.leads(), b.leads()])).toEqual([false, false]);
    expect(await a.leads()).toBe(true);
    await a.close();
    expect(await b.leads()).toBe(true);
  });

  if (t.engine === "postgres")
    it("passes on when the holder's session ends without a word (a killed process)", async () => {
      const [a, b] = [await open(), await open()];
      expect(await a.leads()).toBe(true);
      expect(await b.leads()).toBe(false);
      const { databaseUrl, schema } = t.options();
      // The session holding this schema's lead, as PostgreSQL ends it when its client vanishes.
      // The timeout makes the call wait until the session has ended (and its locks are gone):
      // without it the call only signals the session, and b could ask while a still held the lead.
      const ended = await withClient(databaseUrl as string, (c) =>
        c.query(
          `select pg_terminate_backend(pid, 10000) from pg_locks
          where locktype = 'advisory' and granted and database = (select oid from pg_database where datname = current_database())
            and classid = 1095909970 and objid::bigint = (hashtext($1)::bigint & 4294967295)`,
          [schema],
        ),
      );
      expect(ended.rowCount).toBe(1);
      expect(await b.leads()).toBe(true);
      expect(await a.leads()).toBe(false);
    });

  if (t.engine === "postgres")
    it("is a lead per schema: installations side by side in one database each have theirs", async () => {
      const a = await open();
      const other = await open(await t.freshLocation());
      expect(await a.leads()).toBe(true);
      expect(await other.leads()).toBe(true);
    });
});
