/**
 * `query` folds as SQLite's FTS5 trigram tokenizer folds (searchFold, src/domain/advisories.ts;
 * migration 0030), on every engine: a text holding `ſ` or `µ` and a query spelling them either
 * way find each other, and a page lists exactly what its totalCount counts, whether it gathers
 * its matches or walks the list testing each text. Texts stored before the migration are folded
 * by it.
 */
import { Kysely } from "kysely";
import { afterAll, expect, it } from "vitest";
import { advisoryFilter, advisorySortValue, advisoryVersion, searchFold, type AdvisoryVersion } from "../../src/domain/advisories.js";
import type { OsvDocument } from "../../src/domain/osv.js";
import { createAdvisoryStore } from "../../src/store/advisory-store.js";
import { createStore } from "../../src/store/create-store.js";
import { engineSetup } from "../../src/store/dialect.js";
import type { Database } from "../../src/store/tables.js";
import { describeEachEngine } from "../support/engines.js";
import { key, pageThrough, uids, window } from "../support/lists.js";
import { migrateUpTo } from "../support/older-store.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

const T = Date.UTC(2026, 10, 27, 21);

const doc = (i: number, summary: string): AdvisoryVersion =>
  advisoryVersion({ id: `FOLD-${i}`, modified: "2026-01-01T00:00:00Z", summary } as OsvDocument);

/** Summaries spelling one word four ways, and one that holds none. */
const DOCS = [
  ...Array.from({ length: 6 }, (_, i) => doc(i, "API misuse in the parser")),
  ...Array.from({ length: 4 }, (_, i) => doc(10 + i, "API miſuſe in the parser")),
  ...Array.from({ length: 3 }, (_, i) => doc(20 + i, "a 5 µs timing leak")),
  ...Array.from({ length: 2 }, (_, i) => doc(30 + i, "a 5 μs timing leak")),
  doc(40, "unrelated"),
];

it("folds as FTS5 folds: lowercased, and the 15 characters it folds beyond that", () => {
  expect(searchFold("MIſUSE in 5 µs, ΟΔΟΣ ϐ")).toBe("misuse in 5 μs, οδοσ β");
  const input = { advisoryIds: [], aliases: [], ecosystem: "", packageName: "", modifiedSinceMs: undefined };
  expect(advisoryFilter({ ...input, query: "MIſuſe" }).query).toBe("misuse");
});

describeEachEngine("query folded as FTS5 folds", (t) => {
  let beside: Kysely<Database> | undefined;
  afterAll(async () => beside?.destroy());

  it("finds each spelling by any other, and a page lists what its count counts, gathering or walking", async () => {
    await t.store().advisories.put(DOCS, T);
    beside = new Kysely<Database>({ dialect: engineSetup(t.options()).dialect });
    const walking = createAdvisoryStore(beside, t.engine, { gatherBelow: 1, walkFill: 0 });
    for (const [query, ids] of [
      ["misuse", [0, 1, 2, 3, 4, 5, 10, 11, 12, 13]],
      ["miſuſe", [0, 1, 2, 3, 4, 5, 10, 11, 12, 13]],
      ["MIſUSE", [0, 1, 2, 3, 4, 5, 10, 11, 12, 13]],
      ["µs timing", [20, 21, 22, 30, 31]],
      ["μs", [20, 21, 22, 30, 31]],
    ] as const) {
      const filter = { query: searchFold(query) };
      const want = ids.map((i) => `FOLD-${i}`).sort();
      for (const store of [t.store().advisories, walking]) {
        const totals = new Set<number>();
        const rows = await pageThrough(
          async (w) => {
            const page = await store.page(filter, w);
            totals.add(page.total);
            return page.rows;
          },
          [key("uid")],
          4,
          advisorySortValue,
        );
        expect({ query, rows, totals: [...totals] }).toEqual({ query, rows: want, totals: [want.length] });
      }
    }
  });
});

describeEachEngine("search texts stored before migration 0030", (t) => {
  it("are folded by it, and found by either spelling", async () => {
    const options = await t.freshLocation();
    await migrateUpTo(options, "0029_advisory_package_counts");
    const at = { ...t, options: () => options };
    const text = (s: string) => `'${s.replaceAll("'", "''")}'`;
    for (const v of DOCS) {
      // As an Arbor before the fold wrote them: lowercased only.
      const search = `${v.uid}\n${v.document.summary ?? ""}`.toLowerCase();
      await execRaw(
        at,
        "insert into advisories (uid, modified_time, published_time, create_time, search, document) " +
          `values (${text(v.uid)}, ${v.modifiedTime}, ${v.publishedTime}, 1, ${text(search)}, ${text(JSON.stringify(v.document))})`,
      );
    }
    const unfolded = async () =>
      Number((await rawRows(at, "select count(*) as n from advisories where search like '%\u017f%' or search like '%\u00b5%'"))[0]?.n);
    expect(await unfolded()).toBe(7);
    const reopened = await createStore(options);
    try {
      expect(await unfolded()).toBe(0);
      for (const [query, n] of [
        ["miſuſe", 10],
        ["misuse", 10],
        ["µs", 5],
      ] as const) {
        const filter = { query: searchFold(query) };
        expect({ query, n: await reopened.advisories.count(filter) }).toEqual({ query, n });
        expect(uids(await reopened.advisories.list(filter, window([key("uid")])))).toHaveLength(n);
      }
    } finally {
      await reopened.close();
    }
  });
});
