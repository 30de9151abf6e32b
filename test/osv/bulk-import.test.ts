/**
 * A large first import builds the advisories' secondary indexes, kept counts and search index at
 * its end (src/store/advisory-deferred.ts), on every engine: the store it leaves is the one a row
 * by row import leaves (same catalog, counts, lists and `query` answers), whether the import ends,
 * is stopped, or is killed before its end (whoever opens the store next builds them); and it
 * defers nothing into a store already holding an advisory.
 */
import { describe, expect, it } from "vitest";
import { advisorySortValue, prepareAdvisory, type AdvisoryVersion, type PreparedAdvisory } from "../../src/domain/advisories.js";
import { Code } from "../../src/domain/errors.js";
import { importAdvisories, type ImportOptions } from "../../src/osv/import-advisories.js";
import type { SourceItem } from "../../src/osv/source-item.js";
import { openAdvisoryWriterThread, type AdvisoryWriterThread } from "../../src/store/advisory-writer-thread.js";
import { createStore, type StoreOptions } from "../../src/store/create-store.js";
import type { Store } from "../../src/store/store.js";
import { CORPUS_FILTERS, corpusDocument, matchesFilter } from "../support/advisory-corpus.js";
import { describeEachEngine, TEST_SECRETS, type EngineContext } from "../support/engines.js";
import { key, pageThrough } from "../support/lists.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

const N = 600;
const T = Date.UTC(2026, 10, 27, 1, 0, 0);
const VERSIONS: AdvisoryVersion[] = Array.from({ length: N }, (_, i) => corpusDocument(i));

async function* items(versions: readonly AdvisoryVersion[]): AsyncIterable<SourceItem> {
  for (const v of versions) yield { kind: "document", source: `${v.uid}.json`, bytes: Buffer.from(JSON.stringify(v.document)) };
}

describeEachEngine("a large first import", (t) => {
  /** A store at a fresh location, with what reads its tables beside it. */
  const fresh = async () => {
    const options: StoreOptions = { ...(await t.freshLocation()), secrets: TEST_SECRETS };
    const at: EngineContext = { ...t, options: () => options };
    return { options, at, store: await createStore(options) };
  };
  /** The store's indexes, triggers and (PostgreSQL) constraints on the advisory tables, as its catalog defines them. */
  const catalog = async (at: EngineContext) =>
    (await definitions(at)).map((r) => ({ ...r, sql: String(r.sql).replaceAll(`${at.options().schema ?? ""}.`, "") }));
  const definitions = async (at: EngineContext) =>
    t.engine === "sqlite"
      ? rawRows(
          at,
          "select type, name, sql from sqlite_master where type in ('index', 'trigger') and tbl_name like 'advisor%' order by name",
        )
      : rawRows(
          at,
          `select indexname as name, indexdef as sql from pg_indexes where schemaname = current_schema() and tablename like 'advisor%'
           union all
           select t.tgname, pg_get_triggerdef(t.oid) from pg_trigger t join pg_class c on c.oid = t.tgrelid
           where c.relnamespace = current_schema()::regnamespace and not t.tgisinternal and c.relname like 'advisor%'
           union all
           select k.conname, c.relname || ': ' || pg_get_constraintdef(k.oid) from pg_constraint k join pg_class c on c.oid = k.conrelid
           where k.connamespace = current_schema()::regnamespace and c.relname like 'advisor%'
           order by name, sql`,
        );
  const deferred = async (at: EngineContext) => (await rawRows(at, "select name from advisory_deferred_schema")).length;
  const counts = async (at: EngineContext) =>
    (await rawRows(at, "select key, sum(delta) as n from advisory_counts group by key having sum(delta) <> 0 order by key")).map(
      (r) => `${String(r.key)}=${Number(r.n)}`,
    );
  /** What every corpus filter lists and counts, checked against the documents themselves. */
  const expectAnswers = async (store: Store, versions: readonly AdvisoryVersion[]) => {
    for (const [, filter] of CORPUS_FILTERS) {
      const expected = versions
        .filter((v) => matchesFilter(v, filter))
        .map((v) => v.uid)
        .sort();
      expect(await store.advisories.count(filter)).toBe(expected.length);
      expect(await pageThrough((w) => store.advisories.list(filter, w), [key("uid")], 97, advisorySortValue)).toEqual(expected);
    }
  };
  const run = (store: Parameters<typeof importAdvisories>[0], versions: readonly AdvisoryVersion[], options: ImportOptions = {}) =>
    importAdvisories(store, items(versions), { clock: { now: () => T }, expected: versions.length, bulkAfter: 100, ...options });

  it("leaves the store a row by row import leaves: catalog, kept counts, lists and query", async () => {
    const bulk = await fresh();
    const rows = await fresh();
    try {
      const reference = await catalog(rows.at);
      const summary = await run(bulk.store, VERSIONS);
      expect(summary).toMatchObject({ imported: N, skipped: 0 });
      await run(rows.store, VERSIONS, { expected: 0 });
      expect(await catalog(bulk.at)).toEqual(reference);
      expect(await deferred(bulk.at)).toBe(0);
      expect(await counts(bulk.at)).toEqual(await counts(rows.at));
      await expectAnswers(bulk.store, VERSIONS);
    } finally {
      await bulk.store.close();
      await rows.store.close();
    }
  });

  {
    it("writes through the thread its bulk writer opens, closes it before building, and leaves the same store", async () => {
      const bulk = await fresh();
      const rows = await fresh();
      try {
        const events: string[] = [];
        let thread: AdvisoryWriterThread | undefined;
        const bulkWriter = () => {
          const opened = openAdvisoryWriterThread(bulk.options);
          thread = opened;
          return {
            batchSize: opened.batchSize,
            putPrepared: (prepared: readonly PreparedAdvisory[], time: number) => {
              events.push("put");
              return opened.putPrepared(prepared, time);
            },
            foldCounts: () => opened.foldCounts(),
            close: async () => {
              events.push("close");
              await opened.close();
            },
          };
        };
        // The importing thread's own connection writes no advisory.
        const watched = {
          advisories: {
            ...bulk.store.advisories,
            putPrepared: () => Promise.reject(new Error("written by the importing thread")),
          },
        };
        // The same bytes twice: the second is unchanged, as the store decides (a bulk import looks up no hash).
        const twice = [...VERSIONS, VERSIONS[7] as AdvisoryVersion];
        const summary = await run(watched, twice, { batchSize: 100, bulkWriter, onBuilding: () => void events.push("build") });
        expect(summary).toMatchObject({ imported: N, unchanged: 1, skipped: 0 });
        expect(events).toEqual([...Array.from({ length: 7 }, () => "put"), "close", "build"]);
        await expect(thread?.putPrepared([prepareAdvisory(corpusDocument(N))], T)).rejects.toMatchObject({ code: Code.UNAVAILABLE });
        await run(rows.store, VERSIONS, { expected: 0 });
        expect(await catalog(bulk.at)).toEqual(await catalog(rows.at));
        expect(await counts(bulk.at)).toEqual(await counts(rows.at));
        await expectAnswers(bulk.store, VERSIONS);
        // Not opened for an import that is no bulk one.
        thread = undefined;
        await run(rows.store, VERSIONS, { bulkWriter });
        expect(thread).toBeUndefined();
      } finally {
        await bulk.store.close();
        await rows.store.close();
      }
    });
  }

  it("writes the documents with the indexes dropped and builds them once, at its end", async () => {
    const bulk = await fresh();
    try {
      const reference = await catalog(bulk.at);
      // Looked at as the first batch is written: deferred by then, and not yet built.
      let seen: { indexes: number; deferred: number } | undefined;
      let building = 0;
      const watched = {
        advisories: {
          ...bulk.store.advisories,
          putPrepared: async (prepared: readonly PreparedAdvisory[], time: number) => {
            seen ??= { indexes: (await catalog(bulk.at)).length, deferred: await deferred(bulk.at) };
            return bulk.store.advisories.putPrepared(prepared, time);
          },
        },
      };
      await importAdvisories(watched, items(VERSIONS), {
        clock: { now: () => T },
        expected: N,
        bulkAfter: 100,
        batchSize: 100,
        onBuilding: () => void building++,
      });
      expect(building).toBe(1);
      // PostgreSQL's include the two foreign keys of the package and alias rows, and its search
      // texts' index and three triggers (migration 0031) where SQLite has six triggers.
      expect(seen?.deferred).toBe(18);
      expect(seen?.indexes).toBe(reference.length - (seen?.deferred ?? 0));
      expect(await catalog(bulk.at)).toEqual(reference);
      if (t.engine === "sqlite") {
        // The rebuild's larger term hash is set back to FTS5's default of 1 MiB, which the
        // server's own writes to the search index then use.
        const config = await rawRows(bulk.at, "select k, v from advisory_search_config where k = 'hashsize'");
        expect(config.map((r) => Number(r.v))).toEqual([1024 * 1024]);
      }
      // Once built, the triggers keep the counts and the search index as rows change.
      await bulk.store.advisories.put([corpusDocument(0, 1), corpusDocument(N, 0)], T);
      const after = [corpusDocument(0, 1), ...VERSIONS.slice(1), corpusDocument(N, 0)];
      await expectAnswers(bulk.store, after);
    } finally {
      await bulk.store.close();
    }
  });

  it("replaces a document it meets again in a newer version, the foreign keys dropped meanwhile", async () => {
    const bulk = await fresh();
    try {
      const reference = await catalog(bulk.at);
      // Document 7 again, newer and naming other packages, in a later batch than its first version.
      const newer = corpusDocument(7, 1);
      const summary = await run(bulk.store, [...VERSIONS, newer], { batchSize: 100 });
      expect(summary).toMatchObject({ imported: N, updated: 1, skipped: 0 });
      expect(await catalog(bulk.at)).toEqual(reference);
      await expectAnswers(
        bulk.store,
        VERSIONS.map((v, i) => (i === 7 ? newer : v)),
      );
      // Its package rows are the newer version's alone.
      const rows = await rawRows(bulk.at, "select name from advisory_packages where advisory_uid = 'OSV-00007' order by name");
      const names = [...new Set(newer.document.affected?.map((a) => a.package?.name ?? "") ?? [])].sort();
      expect(rows.map((r) => r.name)).toEqual(names);
    } finally {
      await bulk.store.close();
    }
  });

  if (t.engine === "postgres")
    it("adds the foreign keys back after deleting the rows whose advisory went meanwhile, as the cascade would have", async () => {
      const bulk = await fresh();
      const reference = await catalog(bulk.at);
      expect(await bulk.store.advisories.deferIndexes()).toBe(true);
      await bulk.store.advisories.put(VERSIONS.slice(0, 200), T);
      // As an older Arbor, which leaves an advisory's rows to ON DELETE CASCADE, deletes it meanwhile.
      await execRaw(bulk.at, "delete from advisories where uid in ('OSV-00003', 'OSV-00150')");
      expect(await rawRows(bulk.at, "select 1 from advisory_packages where advisory_uid = 'OSV-00003'")).not.toEqual([]);
      await bulk.store.close();
      const reopened = await createStore(bulk.options);
      try {
        expect(await catalog(bulk.at)).toEqual(reference);
        expect(await deferred(bulk.at)).toBe(0);
        const orphans = "select count(*) as n from %s t where not exists (select 1 from advisories a where a.uid = t.advisory_uid)";
        for (const table of ["advisory_packages", "advisory_aliases"])
          expect(await rawRows(bulk.at, orphans.replace("%s", table))).toEqual([{ n: "0" }]);
        await expectAnswers(
          reopened,
          VERSIONS.slice(0, 200).filter((v) => v.uid !== "OSV-00003" && v.uid !== "OSV-00150"),
        );
      } finally {
        await reopened.close();
      }
    });

  it("builds them when stopped before its end", async () => {
    const bulk = await fresh();
    try {
      const reference = await catalog(bulk.at);
      const stop = new AbortController();
      await expect(
        run(bulk.store, VERSIONS, {
          batchSize: 50,
          signal: stop.signal,
          onProgress: (done) => {
            if (done === 260) stop.abort(new Error("stopped"));
          },
        }),
      ).rejects.toThrow("stopped");
      expect(await catalog(bulk.at)).toEqual(reference);
      expect(await deferred(bulk.at)).toBe(0);
      // Five batches of 50 written whole; the ten documents read after them never written.
      await expectAnswers(bulk.store, VERSIONS.slice(0, 250));
    } finally {
      await bulk.store.close();
    }
  });

  it("leaves them to whoever opens the store next when killed before its end", async () => {
    const bulk = await fresh();
    const reference = await catalog(bulk.at);
    // What a killed import leaves: the objects dropped and kept, rows written without them.
    expect(await bulk.store.advisories.deferIndexes()).toBe(true);
    expect(await bulk.store.advisories.deferIndexes()).toBe(false);
    await bulk.store.advisories.put(VERSIONS.slice(0, 300), T);
    expect(await deferred(bulk.at)).toBeGreaterThan(0);
    await bulk.store.close();
    const reopened = await createStore(bulk.options);
    try {
      expect(await catalog(bulk.at)).toEqual(reference);
      expect(await deferred(bulk.at)).toBe(0);
      await expectAnswers(reopened, VERSIONS.slice(0, 300));
    } finally {
      await reopened.close();
    }
  });

  describe("defers nothing", () => {
    it("into a store that holds an advisory, or for fewer documents than it takes", async () => {
      const store = (await fresh()).store;
      try {
        let built = 0;
        await run(store, VERSIONS.slice(0, 99), { onBuilding: () => void built++ });
        expect(built).toBe(0);
        await run(store, VERSIONS.slice(99), { onBuilding: () => void built++ });
        expect(built).toBe(0);
        expect(await store.advisories.deferIndexes()).toBe(false);
        await expectAnswers(store, VERSIONS);
      } finally {
        await store.close();
      }
    });
  });
});
