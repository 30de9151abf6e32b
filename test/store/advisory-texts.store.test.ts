/**
 * The search texts beside the advisories: `advisory_texts` holds each advisory's uid and search
 * text, kept in step with `advisories` by triggers whoever writes (the store, an older Arbor, a
 * hand-run statement), and restored with its index and triggers after a bulk import deferred
 * them. SQLite has had it since 0022, under its FTS5 index; PostgreSQL since 0031, which makes it
 * from the advisories already stored and moves the pg_trgm index onto it.
 */
import { expect, it } from "vitest";
import { advisoryIndex, advisoryVersion, type AdvisoryVersion } from "../../src/domain/advisories.js";
import type { OsvDocument } from "../../src/domain/osv.js";
import { createStore } from "../../src/store/create-store.js";
import { corpusDocument } from "../support/advisory-corpus.js";
import { describeEachEngine, type EngineContext } from "../support/engines.js";
import { key, uids, window } from "../support/lists.js";
import { migrateUpTo } from "../support/older-store.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

const T = Date.UTC(2026, 10, 29, 14);

const doc = (id: string, modified: string, summary: string): AdvisoryVersion => advisoryVersion({ id, modified, summary } as OsvDocument);

/** Whether advisory_texts holds exactly each advisory's uid and search text. */
async function inStep(t: EngineContext): Promise<void> {
  const texts = await rawRows(t, "select uid, search from advisory_texts order by uid");
  const advisories = await rawRows(t, "select uid, search from advisories order by uid");
  expect(texts).toEqual(advisories);
}

const quote = (s: string) => `'${s.replaceAll("'", "''")}'`;

describeEachEngine("search texts", (t) => {
  it("follow every insert, replacement, update and delete of an advisory, whoever makes it", async () => {
    const store = t.store().advisories;
    await store.put([doc("TXT-1", "2026-01-01T00:00:00Z", "heap overflow"), doc("TXT-2", "2026-01-01T00:00:00Z", "use after free")], T);
    await inStep(t);
    // A newer version replaces the advisory (the store deletes and inserts it).
    await store.put([doc("TXT-1", "2026-02-01T00:00:00Z", "stack exhaustion")], T);
    await inStep(t);
    expect(await store.count({ query: "exhaustion" })).toBe(1);
    expect(await store.count({ query: "heap overflow" })).toBe(0);
    // By hand, as an operator or an older Arbor: an update of the text, one of another column, a delete.
    await execRaw(t, "update advisories set search = 'txt-2\nrewritten by hand' where uid = 'TXT-2'");
    await execRaw(t, "update advisories set modified_time = modified_time + 1");
    await inStep(t);
    expect(uids(await store.list({ query: "by hand" }, window([key("uid")])))).toEqual(["TXT-2"]);
    await execRaw(t, "delete from advisories where uid = 'TXT-1'");
    await inStep(t);
    expect(await store.count({ query: "txt" })).toBe(1);
  });

  it("are made from the advisories stored before migration 0031, with PostgreSQL's trigram index moved onto them", async () => {
    const options = await t.freshLocation();
    await migrateUpTo(options, "0030_advisory_search_fold");
    const at = { ...t, options: () => options };
    const docs = Array.from({ length: 40 }, (_, i) => corpusDocument(i));
    for (const v of docs) {
      // As an Arbor before 0031 wrote them: the advisory row alone.
      const values = [
        quote(v.uid),
        v.modifiedTime,
        v.publishedTime,
        1,
        quote(advisoryIndex(v.document).search),
        quote(JSON.stringify(v.document)),
      ];
      await execRaw(
        at,
        `insert into advisories (uid, modified_time, published_time, create_time, search, document) values (${values.join(", ")})`,
      );
    }
    if (t.engine === "postgres") {
      // As a bulk import killed before its end left it: the old index dropped, its definition kept.
      const [old] = await rawRows(
        at,
        "select indexdef from pg_indexes where schemaname = current_schema() and indexname = 'advisories_search_trgm_idx'",
      );
      expect(old).toBeDefined();
      await execRaw(at, "drop index advisories_search_trgm_idx");
      await execRaw(
        at,
        "insert into advisory_deferred_schema (name, kind, definition) " +
          `values ('advisories_search_trgm_idx', 'index', ${quote(String(old?.indexdef))})`,
      );
    }
    const store = await createStore(options);
    try {
      await inStep(at);
      if (t.engine === "postgres") {
        const trigram = "select tablename, indexname from pg_indexes where schemaname = current_schema() and indexname like '%trgm%'";
        expect(await rawRows(at, trigram)).toEqual([{ tablename: "advisory_texts", indexname: "advisory_texts_search_trgm_idx" }]);
      }
      expect(await rawRows(at, "select name from advisory_deferred_schema")).toEqual([]);
      const holding = docs.filter((v) => advisoryIndex(v.document).search.includes("cve-")).map((v) => v.uid);
      expect(holding.length).toBeGreaterThan(0);
      expect(await store.advisories.count({ query: "cve-" })).toBe(holding.length);
      await store.advisories.put([doc("TXT-9", "2026-01-01T00:00:00Z", "after the migration")], T);
      await inStep(at);
    } finally {
      await store.close();
    }
  });

  it("are copied whole after a bulk import deferred them, then indexed, with their triggers back", async () => {
    const options = await t.freshLocation();
    const at = { ...t, options: () => options };
    const store = await createStore(options);
    try {
      expect(await store.advisories.deferIndexes()).toBe(true);
      const deferred = await rawRows(at, "select name from advisory_deferred_schema where kind in ('search', 'texts') order by name");
      expect(deferred.map((r) => r.name)).toEqual(
        t.engine === "postgres"
          ? [
              "advisories_search_text_delete",
              "advisories_search_text_insert",
              "advisories_search_text_update",
              "advisory_texts_search_trgm_idx",
            ]
          : [
              "advisories_text_delete",
              "advisories_text_insert",
              "advisories_text_update",
              "advisory_texts_search_delete",
              "advisory_texts_search_insert",
              "advisory_texts_search_update",
            ],
      );
      await store.advisories.put(
        Array.from({ length: 30 }, (_, i) => corpusDocument(i)),
        T,
      );
      // Written with the triggers dropped: nothing copied yet.
      expect(Number((await rawRows(at, "select count(*) as n from advisory_texts"))[0]?.n)).toBe(0);
      await store.advisories.buildDeferred();
      await inStep(at);
      expect(await rawRows(at, "select name from advisory_deferred_schema")).toEqual([]);
      if (t.engine === "postgres") {
        const trigram = "select indexname from pg_indexes where schemaname = current_schema() and indexname like '%trgm%'";
        expect(await rawRows(at, trigram)).toEqual([{ indexname: "advisory_texts_search_trgm_idx" }]);
      }
      await store.advisories.put([doc("TXT-7", "2026-01-01T00:00:00Z", "written after the build")], T);
      await inStep(at);
      expect(await store.advisories.count({ query: "after the build" })).toBe(1);
    } finally {
      await store.close();
    }
  });
});
