/**
 * Advisories at scale (migration 0022) on every engine: every filter and combination, paged
 * through in every order and counted, against a reference read straight from the documents; the
 * kept counts through new documents, newer versions that move a document to other ecosystems,
 * deletes and concurrent imports; and the counts and search index the migration gives advisories
 * stored before it.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advisorySortValue,
  advisoryVersion,
  type AdvisoryFilter,
  type AdvisoryRecord,
  type AdvisoryVersion,
} from "../../src/domain/advisories.js";
import type { OsvDocument } from "../../src/domain/osv.js";
import type { OrderKey } from "../../src/domain/list.js";
import type { RowWindow } from "../../src/store/row-window.js";
import { advisoryIndex } from "../../src/domain/advisories.js";
import { Kysely, sql, type CompiledQuery } from "kysely";
import { createAdvisoryStore, type AdvisoryStore } from "../../src/store/advisory-store.js";
import { createStore } from "../../src/store/create-store.js";
import type { Database } from "../../src/store/tables.js";
import { engineSetup, searchCondition, searchCount } from "../../src/store/dialect.js";
import { pgParts, searchWindow, trigramsOf } from "../../src/store/trigram-window.js";
import { countThread, type CountThread } from "../../src/store/search-count-thread.js";
import { completeAdvisoryCounts, deferAdvisorySchema } from "../../src/store/advisory-deferred.js";
import { CORPUS_FILTERS, corpusDocument, matchesFilter } from "../support/advisory-corpus.js";
import { describeEachEngine, engines, TEST_SECRETS, withClient, type EngineContext } from "../support/engines.js";
import { key, pageThrough, sortedBy, uids, window } from "../support/lists.js";
import { migrateUpTo } from "../support/older-store.js";
import { recordingDb, type RecordingDb } from "../support/recording-db.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

const T = Date.UTC(2026, 2, 27, 13, 55, 0, 423);
const N = 3_000;

const ORDERS: OrderKey[][] = [
  [key("uid")],
  [key("uid", true)],
  [key("modified_time", true), key("uid", true)],
  [key("published_time"), key("uid")],
];

/** Every ecosystem key the corpus can count under, and some package names', with the filter that reads each. */
const COUNTED: AdvisoryFilter[] = [
  {},
  ...["npm", "PyPI", "Go", "Debian", "Debian:11", "Debian:12", "Ubuntu", "Ubuntu:22.04:LTS", "crates.io", "Alpine", "Alpine:v3.18"].map(
    (ecosystem) => ({ ecosystem }),
  ),
  // Package names, counted once per advisory whatever the ecosystems it names them in (0025).
  ...["pkg-0", "pkg-5", "pkg-40", "pkg-96", "no-such-package"].map((packageName) => ({ packageName })),
  // A package of an ecosystem, with and without its release, counted once per advisory (0029).
  ...[
    ["npm", "pkg-5"],
    ["npm", "pkg-6"],
    ["Debian", "pkg-40"],
    ["Debian:12", "pkg-40"],
    ["Debian:11", "pkg-0"],
    ["Ubuntu", "pkg-0"],
    ["Ubuntu:22.04:LTS", "pkg-0"],
    ["Go", "no-such-package"],
  ].map(([ecosystem, packageName]) => ({ ecosystem, packageName })),
];

/** Reads pages of filter through store.page(), keeping every totalCount they carried. */
function pageReader(
  store: AdvisoryStore,
  filter: AdvisoryFilter,
): { read: (w: RowWindow) => Promise<AdvisoryRecord[]>; totals: Set<number> } {
  const totals = new Set<number>();
  const read = async (w: RowWindow) => {
    const { rows, total } = await store.page(filter, w);
    totals.add(total);
    return rows;
  };
  return { read, totals };
}

async function expectCounts(t: EngineContext, stored: ReadonlyMap<string, AdvisoryVersion>): Promise<void> {
  for (const filter of COUNTED) {
    const want = [...stored.values()].filter((v) => matchesFilter(v, filter)).length;
    expect({ filter, n: await t.store().advisories.count(filter) }).toEqual({ filter, n: want });
  }
}

describeEachEngine("advisories at scale", (t) => {
  const advisories = () => t.store().advisories;
  const stored = new Map<string, AdvisoryVersion>();
  const put = async (versions: AdvisoryVersion[], time = T) => {
    await advisories().put(versions, time);
    for (const v of versions) if ((stored.get(v.uid)?.modifiedTime ?? -1) < v.modifiedTime) stored.set(v.uid, v);
  };

  beforeAll(async () => {
    const all = Array.from({ length: N }, (_, i) => corpusDocument(i));
    for (let i = 0; i < all.length; i += 500) await put(all.slice(i, i + 500));
  });

  describe("lists and counts, against the documents", () => {
    let beside: Kysely<Database> | undefined;
    afterAll(async () => {
      await beside?.destroy();
    });
    it.each(CORPUS_FILTERS)("%s: every page in every order, and the total", async (_name, filter) => {
      const matching = [...stored.values()].filter((v) => matchesFilter(v, filter));
      expect(await advisories().count(filter)).toBe(matching.length);
      for (const order of ORDERS) {
        const want = uids(sortedBy(matching, order, advisorySortValue));
        expect(await pageThrough((w) => advisories().list(filter, w), order, 50, advisorySortValue)).toEqual(want);
      }
      // skip: the first rows of the order passed over, with and without a cursor.
      const order = ORDERS[0] ?? [];
      const want = uids(sortedBy(matching, order, advisorySortValue));
      expect(uids(await advisories().list(filter, window(order, { offset: 7, limit: 20 })))).toEqual(want.slice(7, 27));
      if (want.length > 10) {
        expect(uids(await advisories().list(filter, window(order, { after: [want[2] ?? ""], offset: 3, limit: 5 })))).toEqual(
          want.slice(6, 11),
        );
      }
    });

    it.each(CORPUS_FILTERS.filter(([, f]) => f.query !== undefined))(
      "%s: the same when a page walks rather than gathers",
      async (_name, filter) => {
        beside ??= new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
        // A walk of the default budget, and one of 3 rows, which comes up short and gathers instead.
        const matching = [...stored.values()].filter((v) => matchesFilter(v, filter));
        for (const walkRows of [undefined, 3]) {
          const walking = createAdvisoryStore(beside, t.engine, { gatherBelow: 1, walkRows, walkFill: 0 });
          for (const order of ORDERS) {
            const want = uids(sortedBy(matching, order, advisorySortValue));
            expect(await pageThrough((w) => walking.list(filter, w), order, 50, advisorySortValue)).toEqual(want);
          }
        }
      },
    );

    it.each(CORPUS_FILTERS)("%s: a page with its count, read together, is the list's page and the count", async (_name, filter) => {
      beside ??= new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
      const matching = [...stored.values()].filter((v) => matchesFilter(v, filter));
      // Gathering (the probe finds every match below 5,000), walking (a threshold of 1, and on
      // PostgreSQL whatever the planner guesses of their density), and a walk whose budget of 3
      // rows runs out, which gathers instead.
      const stores = [
        advisories(),
        createAdvisoryStore(beside, t.engine, { gatherBelow: 1, walkFill: 0 }),
        createAdvisoryStore(beside, t.engine, { gatherBelow: 1, walkRows: 3, walkFill: 0 }),
      ];
      for (const store of stores) {
        for (const order of ORDERS) {
          const want = uids(sortedBy(matching, order, advisorySortValue));
          const { read, totals } = pageReader(store, filter);
          expect(await pageThrough(read, order, 50, advisorySortValue)).toEqual(want);
          expect(uids(await read(window(order, { offset: 7, limit: 20 })))).toEqual(want.slice(7, 27));
          expect([...totals]).toEqual([matching.length]);
        }
      }
    });

    // PostgreSQL's alone (SQLite's trigram table is the FTS5 one above): registered only there, so
    // SQLite's run reports nothing skipped.
    if (t.engine === "postgres")
      it("query by the pg_trgm index the migrations made, on the narrow table of the texts (0031)", async () => {
        expect(
          await rawRows(t, "select tablename, indexname from pg_indexes where schemaname = current_schema() and indexname like '%trgm%'"),
        ).toEqual([{ tablename: "advisory_texts", indexname: "advisory_texts_search_trgm_idx" }]);
      });

    // PostgreSQL's alone, as above. The planner is told to avoid scans, so that a statement pg_trgm's
    // index could serve at all is planned with it: LIKE does, for any text, by reading the index
    // whole where the text has no trigram.
    if (t.engine === "postgres")
      it("read the pg_trgm index only for a text with a trigram in it, never whole", async () => {
        beside ??= new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
        const db = beside;
        const { databaseUrl, schema } = t.options();
        const plan = (statement: CompiledQuery) =>
          withClient(databaseUrl ?? "", async (client) => {
            await client.query(`set search_path to "${schema ?? "public"}"`);
            await client.query("set enable_seqscan = off");
            const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain ${statement.sql}`, [...statement.parameters]);
            return rows.map((r) => r["QUERY PLAN"]).join("\n");
          });
        for (const text of ["-", "%_~", "in", "x", "déjà", "a*c", "n - i"]) {
          expect(await plan(searchCount("postgres", text).compile(db)), text).not.toContain("_search_trgm_idx");
          const rows = sql`select advisories.uid from advisories where ${searchCondition("postgres", text)}`.compile(db);
          expect(await plan(rows), text).not.toContain("_search_trgm_idx");
        }
        for (const text of ["injection", "#1234", "cve-2024-12", "100%_"]) {
          expect(await plan(searchCount("postgres", text).compile(db)), text).toContain("advisory_texts_search_trgm_idx");
        }
      });

    it("the search text indexed is the one the substring rule reads", async () => {
      const some = [...stored.values()].slice(0, 20);
      for (const v of some) {
        const text = advisoryIndex(v.document).search;
        const part = text.slice(3, 12);
        expect(uids(await advisories().list({ query: part, ids: [v.uid] }, window([key("uid")])))).toEqual([v.uid]);
      }
    });
  });

  // PostgreSQL's alone (SQLite's choice follows its trigram counts, below): registered only there,
  // so SQLite's run reports nothing skipped.
  if (t.engine === "postgres")
    describe("a query that looks up a part of its text on PostgreSQL (pgSearchPart)", () => {
      let beside: Kysely<Database> | undefined;
      let logged: RecordingDb | undefined;
      const recorded = () => (logged ??= recordingDb(t.options()));
      afterAll(async () => {
        await beside?.destroy();
        await logged?.db.destroy();
      });

      // The corpus's texts of two parts or more (`100%sure` matches none), and more that match:
      // with LIKE's wildcards, beside an ecosystem, since a time.
      const texts: [string, AdvisoryFilter][] = [
        ...CORPUS_FILTERS.filter(([, f]) => pgParts(f.query ?? "").length >= 2),
        ["two words, LIKE's wildcards literal", { query: "100%_sure" }],
        ["an ecosystem and two words", { ecosystem: "npm", query: "cve-2024-12" }],
        ["two words since a time", { query: "prototype pollution", modifiedSince: Date.UTC(2024, 3, 1) }],
      ];

      // Each part looked up in turn, then the whole text, whatever the planner's guesses: they
      // choose the read, never the answer.
      it.each(texts)("%s: the same matches whichever part is looked up, and whichever way a page reads", async (_name, filter) => {
        beside ??= new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
        const db = beside;
        const text = filter.query ?? "";
        const matching = [...stored.values()].filter((v) => matchesFilter(v, filter));
        const order = [key("uid")];
        const want = uids(sortedBy(matching, order, advisorySortValue));
        for (const part of [...pgParts(text), undefined]) {
          const asked: ReadonlyMap<string, number>[] = [];
          const choosePart = (_text: string, estimates: ReadonlyMap<string, number>) => (asked.push(estimates), part);
          const stores = [
            createAdvisoryStore(db, t.engine, { choosePart }),
            createAdvisoryStore(db, t.engine, { choosePart, gatherBelow: 1, walkFill: 0 }),
            createAdvisoryStore(db, t.engine, { choosePart, gatherBelow: 1, walkRows: 3, walkFill: 0 }),
          ];
          expect({ part, n: await stores[0]?.count(filter) }).toEqual({ part, n: matching.length });
          for (const store of stores) {
            expect(await pageThrough((w) => store.list(filter, w), order, 50, advisorySortValue)).toEqual(want);
            const { read, totals } = pageReader(store, filter);
            expect(await pageThrough(read, order, 50, advisorySortValue)).toEqual(want);
            expect([...totals]).toEqual([matching.length]);
          }
          // The planner was asked about every part, each guess a number of rows.
          expect(asked.length).toBeGreaterThan(0);
          for (const estimates of asked) {
            expect([...estimates.keys()].sort()).toEqual(pgParts(text).sort());
            for (const n of estimates.values()) expect(n).toBeGreaterThanOrEqual(0);
          }
        }
      });

      // What the store sends: one EXPLAIN of every part, then the chosen part in the index's LIKE
      // and the whole text in strpos, for a count, a list and a page with its count alike.
      it.each(texts)("%s: asks the planner once, and reads by the part chosen", async (_name, filter) => {
        const { db, seen } = recorded();
        const text = filter.query ?? "";
        const parts = pgParts(text);
        const order = [key("uid")];
        for (const part of [...parts, undefined]) {
          const store = createAdvisoryStore(db, t.engine, { choosePart: () => part });
          const reads: [string, () => Promise<unknown>][] = [
            ["count", () => store.count(filter)],
            ["list", () => store.list(filter, window(order))],
            ["page", () => store.page(filter, window(order))],
          ];
          for (const [what, run] of reads) {
            seen.length = 0;
            await run();
            const explains = seen.filter((q) => q.sql.startsWith("explain"));
            const asking = explains.filter((q) => parts.every((p) => q.parameters.includes(`%${p}%`)));
            expect(asking, `${what}, ${String(part)}`).toHaveLength(1);
            expect(asking[0]?.sql, what).toContain("union all");
            const reading = seen.filter((q) => !q.sql.startsWith("explain"));
            const byPart = reading.filter((q) => q.sql.includes("strpos(t.search") && q.parameters.includes(`%${part}%`));
            const whole = reading.filter((q) => q.parameters.includes(`%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`));
            if (part === undefined) {
              expect({ what, byPart: byPart.length }).toEqual({ what, byPart: 0 });
              expect(whole.length, what).toBeGreaterThan(0);
            } else {
              expect(byPart.length, `${what}, ${part}`).toBeGreaterThan(0);
              expect({ what, part, whole: whole.length }).toEqual({ what, part, whole: 0 });
            }
          }
        }
      });

      it("takes each part's guess from the one EXPLAIN as the planner gives it for that part alone", async () => {
        beside ??= new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
        const { databaseUrl, schema } = t.options();
        const text = "prototype pollution and #12";
        const asked: ReadonlyMap<string, number>[] = [];
        const store = createAdvisoryStore(beside, t.engine, { choosePart: (_t, estimates) => (asked.push(estimates), undefined) });
        await store.count({ query: text });
        const alone = await withClient(databaseUrl ?? "", async (client) => {
          await client.query(`set search_path to "${schema ?? "public"}"`);
          const out = new Map<string, number>();
          for (const part of pgParts(text)) {
            const { rows } = await client.query<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(
              "explain (format json) select 1 from advisories where advisories.search like $1",
              [`%${part}%`],
            );
            out.set(part, rows[0]?.["QUERY PLAN"][0].Plan["Plan Rows"] ?? -1);
          }
          return out;
        });
        expect(asked).toEqual([alone]);
        expect(alone.size).toBe(3);
      });

      it("asks the planner nothing where ids or aliases bound the matches", async () => {
        const { db, seen } = recorded();
        const store = createAdvisoryStore(db, t.engine, { choosePart: () => "2024" });
        for (const filter of [
          { query: "cve-2024-12", ids: ["OSV-00012", "OSV-00013"] },
          { query: "cve-2024-12", aliases: ["CVE-2024-12"] },
        ]) {
          seen.length = 0;
          const matching = [...stored.values()].filter((v) => matchesFilter(v, filter));
          expect(await store.count(filter)).toBe(matching.length);
          expect(seen.filter((q) => q.sql.startsWith("explain"))).toEqual([]);
        }
      });

      it("looks the part up in the pg_trgm index, and tests the whole text on each candidate", async () => {
        beside ??= new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
        const { databaseUrl, schema } = t.options();
        const statement = searchCount("postgres", "pkg-9 #1234", "1234").compile(beside);
        const plan = await withClient(databaseUrl ?? "", async (client) => {
          await client.query(`set search_path to "${schema ?? "public"}"`);
          await client.query("set enable_seqscan = off");
          const { rows } = await client.query<{ "QUERY PLAN": string }>(`explain ${statement.sql}`, [...statement.parameters]);
          return rows.map((r) => r["QUERY PLAN"]).join("\n");
        });
        expect(plan).toContain("advisory_texts_search_trgm_idx");
        expect(plan).toContain("'%1234%'");
        expect(plan).toContain("strpos");
        expect(plan).not.toContain("pkg-9 #1234%");
      });
    });

  // SQLite's alone (PostgreSQL plans its pg_trgm reads from its own statistics): registered only
  // there, so PostgreSQL's run reports nothing skipped.
  if (t.engine === "sqlite")
    describe("a query that looks up a part of its text (trigram-window.ts)", () => {
      let beside: Kysely<Database> | undefined;
      let counts: CountThread | undefined;
      afterAll(async () => {
        await beside?.destroy();
        await counts?.close();
        await execRaw(t, "delete from advisory_trigram_docs");
      });

      it("refreshStatistics counts each trigram's advisories, as the search texts hold them", async () => {
        await advisories().refreshStatistics();
        const want = new Map<string, number>();
        for (const v of stored.values()) {
          for (const trigram of new Set(trigramsOf(advisoryIndex(v.document).search))) want.set(trigram, (want.get(trigram) ?? 0) + 1);
        }
        const rows = await rawRows(t, "select term, docs from advisory_trigram_docs");
        expect(new Map(rows.map((r) => [String(r.term), Number(r.docs)]))).toEqual(want);
      });

      // Each trigram of the text in turn counted as the rarest, so that each part is looked up,
      // however wrong the counts: they choose the read, never the answer.
      it.each(CORPUS_FILTERS.filter(([, f]) => new Set(trigramsOf(f.query ?? "")).size >= 2))(
        "%s: the same matches whichever part the counts choose, and whichever way a page reads",
        async (_name, filter) => {
          beside ??= new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
          counts ??= countThread({ file: join(t.options().dataDir, "arbor.db"), busyTimeoutMs: 5_000 });
          const aside = counts;
          const walking = createAdvisoryStore(beside, t.engine, { gatherBelow: 1 });
          // Counting in the thread while the page walks; and with a thread that fails, counting here.
          const walkingAside = createAdvisoryStore(beside, t.engine, { gatherBelow: 1, countAside: (q) => aside.count(q) });
          const failingAside = createAdvisoryStore(beside, t.engine, {
            gatherBelow: 1,
            countAside: () => Promise.reject(new Error("the thread is gone")),
          });
          const text = filter.query ?? "";
          const matching = [...stored.values()].filter((v) => matchesFilter(v, filter));
          const order = [key("uid")];
          const want = uids(sortedBy(matching, order, advisorySortValue));
          const trigrams = [...new Set(trigramsOf(text))];
          // Each trigram the rarest in turn; then all as common as can be, so that the whole
          // phrase is read and a page counts first (the counts allow many), then walks (the
          // threshold of 1) or, its count below 5,000 after all, gathers.
          for (const rare of [...trigrams, undefined]) {
            const docs = new Map(trigrams.map((tri) => [tri, rare === undefined ? 1_000_000 : tri === rare ? 0 : 1_000]));
            const part = searchWindow(text, docs);
            expect(rare === undefined ? part === undefined : part !== undefined && text.includes(part)).toBe(true);
            const literal = (s: string) => `'${s.replaceAll("'", "''")}'`;
            await execRaw(t, "delete from advisory_trigram_docs");
            await execRaw(
              t,
              "insert into advisory_trigram_docs (term, docs) values " +
                [...docs].map(([term, n]) => `(${literal(term)}, ${n})`).join(", "),
            );
            expect({ part, n: await advisories().count(filter) }).toEqual({ part, n: matching.length });
            expect(await pageThrough((w) => advisories().list(filter, w), order, 50, advisorySortValue)).toEqual(want);
            for (const store of [advisories(), walking, walkingAside, failingAside]) {
              const { read, totals } = pageReader(store, filter);
              expect(await pageThrough(read, order, 50, advisorySortValue)).toEqual(want);
              expect([...totals]).toEqual([matching.length]);
            }
          }
        },
      );
    });

  describe("kept counts", () => {
    it("count each advisory once per ecosystem, however many of its packages are there", async () => {
      await expectCounts(t, stored);
      const rows = await rawRows(t, "select key, sum(delta) as n from advisory_counts group by key");
      const byKey = new Map(rows.map((r) => [String(r.key), Number(r.n)]));
      expect(byKey.get("")).toBe(stored.size);
      expect(byKey.get("base:npm")).toBe([...stored.values()].filter((v) => matchesFilter(v, { ecosystem: "npm" })).length);
      expect(byKey.has("eco:npm")).toBe(false);
      expect(byKey.get("name:pkg-5")).toBe([...stored.values()].filter((v) => matchesFilter(v, { packageName: "pkg-5" })).length);
    });

    it("follow newer versions that move documents between ecosystems and packages, and withdraw them", async () => {
      const moved = Array.from({ length: 700 }, (_, i) => corpusDocument(i * 4, 1));
      await put(moved, T + 1);
      await expectCounts(t, stored);
      // An older version changes nothing.
      await put(
        Array.from({ length: 50 }, (_, i) => corpusDocument(i * 4)),
        T + 2,
      );
      await expectCounts(t, stored);
    });

    it("count an advisory once under a package name it names in several ecosystems", async () => {
      const doc = (modified: string, ecosystems: string[]) =>
        advisoryVersion({
          id: "OSV-TWICE",
          modified,
          affected: ecosystems.map((ecosystem) => ({ package: { ecosystem, name: "twice-named" } })),
        } as OsvDocument);
      const named = () => advisories().count({ packageName: "twice-named" });
      await put([doc("2024-01-01T00:00:00Z", ["Debian:11", "Debian:12", "npm"])]);
      expect(await named()).toBe(1);
      expect(await advisories().count({ ecosystem: "Debian", packageName: "twice-named" })).toBe(1);
      await put([doc("2024-01-02T00:00:00Z", ["Debian:12"])]);
      expect(await named()).toBe(1);
      await execRaw(t, "delete from advisory_packages where advisory_uid = 'OSV-TWICE'");
      expect(await named()).toBe(0);
      await execRaw(t, "delete from advisories where uid = 'OSV-TWICE'");
      stored.delete("OSV-TWICE");
      await expectCounts(t, stored);
    });

    it("keep a package of an ecosystem apart from any other that spells the same text, ':' and all", async () => {
      // Ecosystems and names may both hold ':'; the key says where the ecosystem ends by its
      // length in characters (code points: the engines' length(), not UTF-16 units).
      const packages: [string, string][] = [
        ["Ubuntu:22.04:LTS", "x"],
        ["Ubuntu:22.04", "LTS:x"],
        ["Ubuntu", "22.04:LTS:x"],
        ["Ubuntu:\u{1D4B3}", "y"],
        ["Ubuntu", "\u{1D4B3}:y"],
      ];
      const docs = packages.map(([ecosystem, name], i) =>
        advisoryVersion({
          id: `OSV-SPLIT-${i}`,
          modified: "2024-01-01T00:00:00Z",
          affected: [{ package: { ecosystem, name } }],
        } as OsvDocument),
      );
      await put(docs);
      const filters: AdvisoryFilter[] = [
        ...packages.map(([ecosystem, packageName]) => ({ ecosystem, packageName })),
        { ecosystem: "Ubuntu", packageName: "x" },
        { ecosystem: "Ubuntu", packageName: "LTS:x" },
        { ecosystem: "Ubuntu", packageName: "y" },
      ];
      for (const filter of filters) {
        const want = [...stored.values()].filter((v) => matchesFilter(v, filter)).length;
        expect({ filter, n: await advisories().count(filter) }).toEqual({ filter, n: want });
      }
      expect(await advisories().count({ ecosystem: "Ubuntu:22.04", packageName: "LTS:x" })).toBe(1);
      await execRaw(t, "delete from advisories where uid like 'OSV-SPLIT-%'");
      for (const v of docs) stored.delete(v.uid);
      await expectCounts(t, stored);
    });

    it("follow deletes, whoever makes them", async () => {
      await execRaw(t, "delete from advisories where uid in ('OSV-00003', 'OSV-00005', 'OSV-00006', 'OSV-02998')");
      for (const uid of ["OSV-00003", "OSV-00005", "OSV-00006", "OSV-02998"]) stored.delete(uid);
      await expectCounts(t, stored);
      await execRaw(t, "delete from advisory_packages where advisory_uid = 'OSV-00007'");
      const v = stored.get("OSV-00007");
      if (v === undefined) throw new Error("the corpus holds OSV-00007");
      stored.set("OSV-00007", { ...v, document: { ...v.document, affected: [] } });
      await expectCounts(t, stored);
    });

    it("follow concurrent imports", async () => {
      const batches = Array.from({ length: 6 }, (_, b) => Array.from({ length: 100 }, (_, i) => corpusDocument(N + b * 100 + i, b % 2)));
      await Promise.all(batches.map((batch) => advisories().put(batch, T + 3)));
      for (const v of batches.flat()) stored.set(v.uid, v);
      // The same documents again, at once, with newer versions of half of them.
      const again = batches.map((batch, b) => batch.map((v, i) => (i % 2 === 0 ? corpusDocument(N + b * 100 + i, 2) : v)));
      await Promise.all(again.map((batch) => advisories().put(batch, T + 4)));
      for (const v of again.flat()) if ((stored.get(v.uid)?.modifiedTime ?? -1) < v.modifiedTime) stored.set(v.uid, v);
      await expectCounts(t, stored);
    });

    it("fold into one row per key and still say the same", async () => {
      await advisories().foldCounts();
      const rows = await rawRows(t, "select key, count(*) as n from advisory_counts group by key having count(*) > 1");
      expect(rows).toEqual([]);
      await expectCounts(t, stored);
    });
  });
});

describeEachEngine("advisories stored before migration 0022", (t) => {
  it("are counted and searchable once it has run", async () => {
    const options = await t.freshLocation();
    await migrateUpTo(options, "0020_device_logins");
    const t0 = { ...t, options: () => options };
    const old = Array.from({ length: 40 }, (_, i) => corpusDocument(i));
    for (const v of old) {
      const index = advisoryIndex(v.document);
      const text = (s: string) => `'${s.replaceAll("'", "''")}'`;
      await execRaw(
        t0,
        "insert into advisories (uid, modified_time, published_time, create_time, search, document) " +
          `values (${text(v.uid)}, ${v.modifiedTime}, ${v.publishedTime}, 1, ${text(index.search)}, ${text(JSON.stringify(v.document))})`,
      );
      for (const a of index.aliases)
        await execRaw(t0, `insert into advisory_aliases (advisory_uid, alias) values (${text(v.uid)}, ${text(a)})`);
      for (const p of index.packages) {
        await execRaw(
          t0,
          "insert into advisory_packages (advisory_uid, ecosystem, ecosystem_base, name) " +
            `values (${text(v.uid)}, ${text(p.ecosystem)}, ${text(p.ecosystemBase)}, ${text(p.name)})`,
        );
      }
    }
    const reopened = await createStore(options);
    try {
      for (const filter of [...COUNTED, ...CORPUS_FILTERS.map(([, f]) => f)]) {
        const want = old
          .filter((v) => matchesFilter(v, filter))
          .map((v) => v.uid)
          .sort();
        expect({ filter, n: await reopened.advisories.count(filter) }).toEqual({ filter, n: want.length });
        expect({ filter, uids: uids(await reopened.advisories.list(filter, window([key("uid")]))) }).toEqual({ filter, uids: want });
      }
    } finally {
      await reopened.close();
    }
  });
});

describeEachEngine("migration 0029 over a bulk import that never reached its end", (t) => {
  it("gives the count triggers the build restores the packages' keys", async () => {
    const options = await t.freshLocation();
    await migrateUpTo(options, "0028_advisory_trigram_docs");
    const setup = engineSetup({ ...options, queryTimeoutMs: 0 });
    const older = new Kysely<Database>({ dialect: setup.dialect });
    try {
      // As an import of this Arbor killed after it deferred the schema: triggers and indexes gone.
      expect(await deferAdvisorySchema(older, setup.engine)).toBe(true);
    } finally {
      await older.destroy();
    }
    const reopened = await createStore(options);
    try {
      expect(await rawRows({ ...t, options: () => options }, "select name from advisory_deferred_schema")).toEqual([]);
      const docs = Array.from({ length: 60 }, (_, i) => corpusDocument(i));
      await reopened.advisories.put(docs, T);
      for (const filter of COUNTED) {
        const want = docs.filter((v) => matchesFilter(v, filter)).length;
        expect({ filter, n: await reopened.advisories.count(filter) }).toEqual({ filter, n: want });
      }
    } finally {
      await reopened.close();
    }
  });
});

describeEachEngine("kept counts an older Arbor made anew without the packages' keys", (t) => {
  const docs = Array.from({ length: 60 }, (_, i) => corpusDocument(i));
  /** A store of docs whose counts are as the recount of an Arbor from before 0029 leaves them. */
  const olderRecount = async () => {
    const options = await t.freshLocation();
    const store = await createStore(options);
    try {
      await store.advisories.put(docs, T);
    } finally {
      await store.close();
    }
    const at = { ...t, options: () => options };
    await execRaw(at, "delete from advisory_counts");
    await execRaw(at, "insert into advisory_counts (key, delta) select '', count(*) from advisories");
    await execRaw(
      at,
      "insert into advisory_counts (key, delta) select 'base:' || ecosystem_base, count(distinct advisory_uid) " +
        "from advisory_packages group by ecosystem_base",
    );
    await execRaw(
      at,
      "insert into advisory_counts (key, delta) select 'eco:' || ecosystem, count(distinct advisory_uid) " +
        "from advisory_packages where ecosystem like '%:%' group by ecosystem",
    );
    await execRaw(
      at,
      "insert into advisory_counts (key, delta) select 'name:' || name, count(distinct advisory_uid) from advisory_packages group by name",
    );
    return { options, at };
  };
  const expectCounted = async (store: Awaited<ReturnType<typeof createStore>>) => {
    for (const filter of COUNTED) {
      const want = docs.filter((v) => matchesFilter(v, filter)).length;
      expect({ filter, n: await store.advisories.count(filter) }).toEqual({ filter, n: want });
    }
  };

  it("are counted again by the next Arbor to open the store", async () => {
    const { options, at } = await olderRecount();
    expect(await rawRows(at, "select key from advisory_counts where key like 'pkg:%' or key like 'kinds:%'")).toEqual([]);
    const reopened = await createStore(options);
    try {
      await expectCounted(reopened);
      const marks = await rawRows(at, "select key, delta from advisory_counts where key like 'kinds:%'");
      expect(marks.map((r) => `${String(r.key)}=${Number(r.delta)}`)).toEqual(["kinds:0029=1"]);
    } finally {
      await reopened.close();
    }
  });

  it("are counted once however many open the store at once (SQLite: one after another)", async () => {
    const { options, at } = await olderRecount();
    const setup = engineSetup({ ...options, queryTimeoutMs: 0 });
    const openers = [0, 1, 2].map(() => new Kysely<Database>({ dialect: engineSetup({ ...options, queryTimeoutMs: 0 }).dialect }));
    try {
      // better-sqlite3 waits for SQLite's write lock in the calling thread, so connections of
      // one process cannot wait on each other; processes take the lock one after another.
      const done =
        setup.engine === "postgres"
          ? await Promise.all(openers.map((db) => completeAdvisoryCounts(db, setup.engine)))
          : [await completeAdvisoryCounts(openers[0]!, "sqlite"), await completeAdvisoryCounts(openers[1]!, "sqlite")];
      expect(done.filter(Boolean)).toHaveLength(1);
    } finally {
      await Promise.all(openers.map((db) => db.destroy()));
    }
    const reopened = await createStore(options);
    try {
      await expectCounted(reopened);
      expect(await rawRows(at, "select key from advisory_counts where key like 'kinds:%'")).toEqual([{ key: "kinds:0029" }]);
    } finally {
      await reopened.close();
    }
  });

  it("are left alone where they carry the mark: opening does not count again", async () => {
    const options = await t.freshLocation();
    const at = { ...t, options: () => options };
    const store = await createStore(options);
    try {
      await store.advisories.put(docs, T);
    } finally {
      await store.close();
    }
    // Two deltas that cancel out: a recount would leave one row for the key, or none.
    await execRaw(at, "insert into advisory_counts (key, delta) values ('name:pkg-5', 1)");
    await execRaw(at, "insert into advisory_counts (key, delta) values ('name:pkg-5', -1)");
    const rows = async () => Number((await rawRows(at, "select count(*) as n from advisory_counts where key = 'name:pkg-5'"))[0]?.n);
    const before = await rows();
    expect(before).toBeGreaterThanOrEqual(2);
    const reopened = await createStore(options);
    try {
      expect(await rows()).toBe(before);
      await expectCounted(reopened);
    } finally {
      await reopened.close();
    }
  });
});

describeEachEngine("advisories stored before migration 0028", (t) => {
  if (t.engine === "postgres")
    it("PostgreSQL keeps no trigram counts: its planner has its own statistics", async () => {
      await t.store().advisories.refreshStatistics();
      expect(
        await rawRows(t, "select tablename from pg_tables where schemaname = current_schema() and tablename like 'advisory_trigram%'"),
      ).toEqual([]);
    });
  else
    it("have their trigrams counted once it has run, and a query that looks up a part answers the same", async () => {
      const options = await t.freshLocation();
      await migrateUpTo(options, "0027_advisory_document_lz4");
      const t0 = { ...t, options: () => options };
      const old = Array.from({ length: 60 }, (_, i) => corpusDocument(i));
      const text = (s: string) => `'${s.replaceAll("'", "''")}'`;
      for (const v of old) {
        await execRaw(
          t0,
          "insert into advisories (uid, modified_time, published_time, create_time, search, document) " +
            `values (${text(v.uid)}, ${v.modifiedTime}, ${v.publishedTime}, 1, ` +
            `${text(advisoryIndex(v.document).search)}, ${text(JSON.stringify(v.document))})`,
        );
      }
      const reopened = await createStore(options);
      try {
        const want = new Map<string, number>();
        for (const v of old) {
          for (const trigram of new Set(trigramsOf(advisoryIndex(v.document).search))) want.set(trigram, (want.get(trigram) ?? 0) + 1);
        }
        const rows = await rawRows(t0, "select term, docs from advisory_trigram_docs");
        expect(new Map(rows.map((r) => [String(r.term), Number(r.docs)]))).toEqual(want);
        // Of `query` alone: these advisories were stored without their package and alias rows.
        for (const [, filter] of CORPUS_FILTERS.filter(([, f]) => f.query !== undefined && Object.keys(f).length === 1)) {
          const uidsWanted = old
            .filter((v) => matchesFilter(v, filter))
            .map((v) => v.uid)
            .sort();
          expect({ filter, n: await reopened.advisories.count(filter) }).toEqual({ filter, n: uidsWanted.length });
          expect({ filter, uids: uids(await reopened.advisories.list(filter, window([key("uid")]))) }).toEqual({
            filter,
            uids: uidsWanted,
          });
        }
      } finally {
        await reopened.close();
      }
    });
});

describeEachEngine("advisory documents across migration 0027", (t) => {
  it("PostgreSQL compresses the documents written after it with lz4 where it can; every document reads back whole", async () => {
    const options = await t.freshLocation();
    await migrateUpTo(options, "0026_advisory_deferred_schema");
    const t0 = { ...t, options: () => options };
    // Long enough (about 9 KB) that PostgreSQL compresses it.
    const long = (v: AdvisoryVersion): AdvisoryVersion => ({
      ...v,
      document: { ...v.document, details: Array.from({ length: 600 }, (_, i) => `word${i % 50}`).join(" ") },
    });
    const before = long(corpusDocument(1));
    const text = (s: string) => `'${s.replaceAll("'", "''")}'`;
    await execRaw(
      t0,
      "insert into advisories (uid, modified_time, published_time, create_time, search, document) " +
        `values (${text(before.uid)}, ${before.modifiedTime}, ${before.publishedTime}, 1, 'x', ${text(JSON.stringify(before.document))})`,
    );
    const store = await createStore(options);
    try {
      const after = long(corpusDocument(2));
      await store.advisories.put([after], T);
      expect((await store.advisories.get(before.uid))?.document).toEqual(before.document);
      expect((await store.advisories.get(after.uid))?.document).toEqual(after.document);
      if (t.engine !== "postgres") return;
      const [server] = await rawRows(t0, "select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'");
      const methods = await rawRows(t0, "select uid, pg_column_compression(document) as method from advisories order by uid");
      expect(methods).toEqual([
        { uid: before.uid, method: "pglz" },
        { uid: after.uid, method: server?.lz4 === true ? "lz4" : "pglz" },
      ]);
    } finally {
      await store.close();
    }
  });
});

const postgres = engines.find((e) => e.name === "postgres");
const POSTGRES_URL = process.env.ARBOR_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

describe.skipIf(postgres?.skipReason !== undefined)("advisories on PostgreSQL without pg_trgm", () => {
  it("migrate without the trigram index when the role may not create the extension, and query by scanning", async () => {
    const suffix = randomBytes(5).toString("hex");
    const [database, role] = [`arbor_notrgm_${suffix}`, `arbor_notrgm_${suffix}`];
    await withClient(POSTGRES_URL, async (c) => {
      await c.query(`create role ${role} login`);
      await c.query(`create database ${database}`);
    });
    const url = new URL(POSTGRES_URL);
    const admin = new URL(POSTGRES_URL);
    admin.pathname = `/${database}`;
    url.pathname = `/${database}`;
    url.username = role;
    const dataDir = await mkdtemp(join(tmpdir(), "arbor-notrgm-"));
    try {
      // The role owns its schema and nothing else: it may not create an extension in the database.
      await withClient(admin.toString(), (c) => c.query(`create schema arbor authorization ${role}`));
      const store = await createStore({ databaseUrl: url.toString(), schema: "arbor", dataDir, secrets: TEST_SECRETS });
      try {
        const docs = Array.from({ length: 300 }, (_, i) => corpusDocument(i));
        await store.advisories.put(docs, T);
        for (const [, filter] of CORPUS_FILTERS) {
          const want = docs
            .filter((v) => matchesFilter(v, filter))
            .map((v) => v.uid)
            .sort();
          expect({ filter, n: await store.advisories.count(filter) }).toEqual({ filter, n: want.length });
          expect({ filter, uids: uids(await store.advisories.list(filter, window([key("uid")]))) }).toEqual({ filter, uids: want });
        }
      } finally {
        await store.close();
      }
      const indexes = await withClient(admin.toString(), (c) =>
        c.query("select indexname from pg_indexes where schemaname = 'arbor' and indexname like '%trgm%'"),
      );
      expect(indexes.rows).toEqual([]);
      const extensions = await withClient(admin.toString(), (c) => c.query("select extname from pg_extension where extname = 'pg_trgm'"));
      expect(extensions.rows).toEqual([]);
    } finally {
      await withClient(POSTGRES_URL, async (c) => {
        await c.query(`drop database if exists ${database} with (force)`);
        await c.query(`drop role if exists ${role}`);
      });
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
