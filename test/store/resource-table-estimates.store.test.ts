/**
 * ResourceTable.estimates (PostgreSQL): several filters' guesses come from one EXPLAIN of their
 * UNION ALL, read off the Append's children; where the plan has another shape (the planner drops
 * a branch it proves empty, and an Append left with one child goes too), each filter is planned
 * apart. Either way each guess is the planner's guess for that filter alone.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import { afterAll, expect, it } from "vitest";
import { resourceTable } from "../../src/store/resource-table.js";
import { describeEachEngine } from "../support/engines.js";
import { recordingDb, type RecordingDb } from "../support/recording-db.js";

/** A filter of the test's own: advisories modified since a time, or none at all. */
type Filter = { since: number } | "none";

describeEachEngine("a table's planner guesses", (t) => {
  let recorded: RecordingDb | undefined;
  afterAll(async () => recorded?.db.destroy());

  const table = () => {
    recorded ??= recordingDb(t.options());
    return resourceTable<"advisories", Filter, string>(recorded.db, t.engine, {
      table: "advisories",
      toRecord: (row) => row.uid,
      matching: (f): Expression<SqlBool>[] => (f === "none" ? [sql<SqlBool>`false`] : [sql<SqlBool>`modified_time >= ${f.since}`]),
      sortColumns: { uid: "uid" },
    });
  };
  const seen = () => recorded?.seen ?? [];
  const explains = () => seen().filter((q) => q.sql.startsWith("explain")).length;

  if (t.engine !== "postgres") {
    // SQLite's planner gives no row counts: its stores choose by counts of their own (trigram-window.ts).
    it("are PostgreSQL's alone", async () => {
      await expect(table().estimates([{ since: 0 }])).rejects.toThrow("estimate is PostgreSQL's");
      expect(explains()).toBe(0);
    });
    return;
  }

  it("reads several guesses off one EXPLAIN, each the filter's own", async () => {
    const advisories = table();
    const filters: Filter[] = [{ since: 0 }, { since: Date.UTC(2030, 0, 1) }];
    const alone = [(await advisories.estimates([filters[0] as Filter]))[0], (await advisories.estimates([filters[1] as Filter]))[0]];
    seen().length = 0;
    expect(await advisories.estimates(filters)).toEqual(alone);
    expect(explains()).toBe(1);
  });

  it("plans each filter apart when the planner drops a branch, and still gives every guess", async () => {
    const advisories = table();
    const [some] = await advisories.estimates([{ since: 0 }]);
    seen().length = 0;
    const guesses = await advisories.estimates([{ since: 0 }, "none"]);
    // The UNION ALL, whose plan is the first branch's scan alone, then each filter apart.
    expect(explains()).toBe(3);
    expect(guesses).toEqual([some, 0]);
  });
});
