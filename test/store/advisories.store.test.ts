/**
 * The advisory store on every engine: writes that keep only the newest version of a document,
 * whole or not at all, dated when first stored; every filter; keyset pages in every order; and
 * the date migration 0016 gives advisories stored before it.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { advisorySortValue, advisoryVersion, type AdvisoryFilter, type AdvisoryVersion } from "../../src/domain/advisories.js";
import type { OsvDocument } from "../../src/domain/osv.js";
import { createStore } from "../../src/store/create-store.js";
import { describeEachEngine } from "../support/engines.js";
import { expectMatches, key, pageThrough, sortedBy, uids, window } from "../support/lists.js";
import { migrateUpTo } from "../support/older-store.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

/** A document of id, modified on day `day` of 2024, affecting packages "ecosystem/name". */
function doc(id: string, day: number, more: Partial<OsvDocument> & { packages?: string[] } = {}): AdvisoryVersion {
  const { packages = [], ...rest } = more;
  const affected = packages.map((p) => {
    const slash = p.indexOf("/");
    const [ecosystem, name] = [p.slice(0, slash), p.slice(slash + 1)];
    return { package: { ecosystem, name }, ranges: [{ type: "ECOSYSTEM" as const, events: [{ introduced: "0" }] }] };
  });
  const modified = new Date(Date.UTC(2024, 0, day)).toISOString().replace(".000Z", "Z");
  return advisoryVersion({ id, modified, ...(affected.length > 0 && { affected }), ...rest });
}

/** When the tests store advisories. */
const T = Date.UTC(2026, 2, 27, 13, 55, 0, 423);

const SET = [
  doc("GHSA-aaaa-0001-xxxx", 3, {
    aliases: ["CVE-2024-0001"],
    summary: "Prototype pollution in Lodash",
    packages: ["npm/lodash"],
    published: "2023-12-01T00:00:00Z",
  }),
  doc("GHSA-aaaa-0002-xxxx", 1, { aliases: ["CVE-2024-0002", "PYSEC-2024-2"], summary: "XSS in Jinja", packages: ["PyPI/jinja2"] }),
  doc("GO-2024-0003", 2, { aliases: ["CVE-2024-0003", "GHSA-aaaa-0003-xxxx"], packages: ["Go/stdlib", "Go/golang.org/x/net"] }),
  doc("DSA-0004-1", 5, { summary: "openssl - security update", packages: ["Debian:12/openssl", "Debian:11/openssl"] }),
  doc("DLA-0005-1", 4, { summary: "openssl 100%_sure", packages: ["Debian:10/openssl"], published: "2023-01-01T00:00:00Z" }),
  doc("CVE-2024-0006", 6, {
    details: "no summary; a git range only",
    affected: [{ ranges: [{ type: "GIT", repo: "https://x", events: [{ introduced: "0" }] }] }],
  }),
  doc("RUSTSEC-2024-0007", 2, {
    aliases: ["CVE-2024-0001"],
    summary: "openssl buffer over-read",
    packages: ["crates.io/openssl", "npm/openssl"],
  }),
];

describeEachEngine("advisory store", (t) => {
  const advisories = () => t.store().advisories;

  describe("writes", () => {
    it("imports new documents, ignores equal or older ones, replaces with newer ones; earlier records of a call count", async () => {
      const v1 = doc("OSV-2024-1", 10, { aliases: ["CVE-OLD"], packages: ["npm/left-pad"] });
      const v2 = doc("OSV-2024-1", 11, { aliases: ["CVE-NEW"], packages: ["npm/right-pad"] });
      const v0 = doc("OSV-2024-1", 9, { summary: "older" });
      expect(await advisories().put([v1], T)).toEqual(["imported"]);
      expect(await advisories().put([v1, v0], T + 1)).toEqual(["unchanged", "unchanged"]);
      expect(await advisories().get("OSV-2024-1")).toEqual({ ...v1, createTime: T });
      expect(await advisories().put([v2, v1, doc("OSV-2024-2", 1), doc("OSV-2024-2", 2)], T + 2)).toEqual([
        "updated",
        "unchanged",
        "imported",
        "updated",
      ]);
      expect(await advisories().get("OSV-2024-1")).toEqual({ ...v2, createTime: T });
      expect(await advisories().get("OSV-2024-2")).toMatchObject({ modifiedTime: Date.UTC(2024, 0, 2), createTime: T + 2 });
      expect(await advisories().put([], T + 3)).toEqual([]);
    });

    it("dates an advisory when it is first stored, and keeps that date through every newer version", async () => {
      const at = (day: number) => Date.UTC(2026, 5, day);
      expect(await advisories().put([doc("OSV-2024-5", 1)], at(1))).toEqual(["imported"]);
      expect(await advisories().put([doc("OSV-2024-5", 1)], at(2))).toEqual(["unchanged"]);
      expect(await advisories().put([doc("OSV-2024-5", 3), doc("OSV-2024-6", 1)], at(3))).toEqual(["updated", "imported"]);
      expect(await advisories().put([doc("OSV-2024-5", 4)], at(4))).toEqual(["updated"]);
      const rows = await advisories().list({ ids: ["OSV-2024-5", "OSV-2024-6"] }, window([key("uid")]));
      expect(rows.map((r) => [r.uid, r.modifiedTime, r.createTime])).toEqual([
        ["OSV-2024-5", Date.UTC(2024, 0, 4), at(1)],
        ["OSV-2024-6", Date.UTC(2024, 0, 1), at(3)],
      ]);
    });

    it("replaces the index rows with the document: the old alias and package no longer match", async () => {
      await expectMatches(advisories(), { aliases: ["CVE-OLD"] }, []);
      await expectMatches(advisories(), { aliases: ["CVE-NEW"] }, ["OSV-2024-1"]);
      await expectMatches(advisories(), { packageName: "left-pad" }, []);
      await expectMatches(advisories(), { packageName: "right-pad" }, ["OSV-2024-1"]);
      const rows = await rawRows(t, "select alias from advisory_aliases where advisory_uid = 'OSV-2024-1'");
      expect(rows.map((r) => r.alias)).toEqual(["CVE-NEW"]);
    });

    it("writes nothing of a call whose transaction rolls back", async () => {
      const failing = t.store().atomically(async (tx) => {
        await tx.advisories.put([doc("OSV-2024-3", 1, { aliases: ["CVE-ROLLED-BACK"] })], T);
        throw new Error("rolled back");
      });
      await expect(failing).rejects.toThrow("rolled back");
      expect(await advisories().get("OSV-2024-3")).toBeUndefined();
      expect(await rawRows(t, "select * from advisory_aliases where alias = 'CVE-ROLLED-BACK'")).toEqual([]);
    });

    it("keeps the whole document, fields it does not read included", async () => {
      const extra = doc("OSV-2024-4", 1, { database_specific: { cwe_ids: ["CWE-79"] } } as Partial<OsvDocument>);
      await advisories().put([extra], T);
      expect((await advisories().get("OSV-2024-4"))?.document).toEqual({ ...extra.document, database_specific: { cwe_ids: ["CWE-79"] } });
    });

    it("writes more rows than one statement binds", async () => {
      const many = Array.from({ length: 2100 }, (_, i) =>
        doc(`BULK-${String(i).padStart(5, "0")}`, 1, { aliases: [`CVE-BULK-${i}`], packages: ["npm/a", "npm/b"] }),
      );
      expect(new Set(await advisories().put(many, T))).toEqual(new Set(["imported"]));
      expect(await advisories().count({ ecosystem: "npm", packageName: "b", query: "bulk-" })).toBe(2100);
    });
  });

  describe("lists", () => {
    const IN_SET: AdvisoryFilter = { ids: SET.map((r) => r.uid) };
    beforeAll(async () => {
      await advisories().put(SET, T);
    });

    it.each<[string, AdvisoryFilter, string[]]>([
      ["ids", { ids: ["GO-2024-0003", "DSA-0004-1", "NOPE-1"] }, ["DSA-0004-1", "GO-2024-0003"]],
      ["an alias", { aliases: ["CVE-2024-0001"] }, ["GHSA-aaaa-0001-xxxx", "RUSTSEC-2024-0007"]],
      ["aliases, any of them", { aliases: ["PYSEC-2024-2", "GHSA-aaaa-0003-xxxx"] }, ["GHSA-aaaa-0002-xxxx", "GO-2024-0003"]],
      ["an alias is not an id", { aliases: ["GO-2024-0003"] }, []],
      ["an ecosystem", { ecosystem: "npm" }, ["GHSA-aaaa-0001-xxxx", "RUSTSEC-2024-0007"]],
      ["an ecosystem is case-sensitive", { ecosystem: "NPM" }, []],
      ["an ecosystem without release: every release", { ecosystem: "Debian" }, ["DLA-0005-1", "DSA-0004-1"]],
      ["an ecosystem with release: that release", { ecosystem: "Debian:11" }, ["DSA-0004-1"]],
      ["a package name in any ecosystem", { packageName: "openssl" }, ["DLA-0005-1", "DSA-0004-1", "RUSTSEC-2024-0007"]],
      ["a package name with slashes", { packageName: "golang.org/x/net" }, ["GO-2024-0003"]],
      ["ecosystem and name: one package", { ecosystem: "crates.io", packageName: "openssl" }, ["RUSTSEC-2024-0007"]],
      ["ecosystem and name of different packages", { ecosystem: "npm", packageName: "jinja2" }, []],
      ["query over the summary, any case", { query: "openssl" }, ["DLA-0005-1", "DSA-0004-1", "RUSTSEC-2024-0007"]],
      ["query over the id", { query: "go-2024" }, ["GO-2024-0003"]],
      ["query over aliases", { query: "pysec-2024" }, ["GHSA-aaaa-0002-xxxx"]],
      ["query over package names", { query: "x/net" }, ["GO-2024-0003"]],
      ["query takes % and _ literally", { query: "100%_" }, ["DLA-0005-1"]],
      ["query % is no wildcard", { query: "open%update" }, []],
      ["query not over details", { query: "git range" }, []],
      ["modified since, inclusive", { modifiedSince: Date.UTC(2024, 0, 4) }, ["CVE-2024-0006", "DLA-0005-1", "DSA-0004-1"]],
      ["filters combine with AND", { ecosystem: "Debian", query: "lts", modifiedSince: 0 }, []],
      ["filters combine with AND, matching", { packageName: "openssl", modifiedSince: Date.UTC(2024, 0, 3) }, ["DLA-0005-1", "DSA-0004-1"]],
    ])("filters by %s", async (_name, filter, want) => {
      await expectMatches(advisories(), { ...IN_SET, ...filter, ...(filter.ids && { ids: filter.ids }) }, want);
    });

    it.each([
      [[key("uid")]],
      [[key("uid", true)]],
      [[key("modified_time"), key("uid")]],
      [[key("modified_time", true), key("uid", true)]],
      [[key("published_time"), key("uid")]],
      [[key("published_time", true), key("uid")]],
    ])("pages in the order %j, each page after the last key", async (order) => {
      const want = uids(sortedBy(SET, order, advisorySortValue));
      for (const size of [1, 3, 7]) {
        expect(await pageThrough((w) => advisories().list(IN_SET, w), order, size, advisorySortValue)).toEqual(want);
      }
    });

    it("sorts a document without a published time by its modified time", async () => {
      const rows = await advisories().list(IN_SET, window([key("published_time"), key("uid")], { limit: 3 }));
      expect(uids(rows)).toEqual(["DLA-0005-1", "GHSA-aaaa-0001-xxxx", "GHSA-aaaa-0002-xxxx"]);
      expect(rows[2]?.publishedTime).toBe(Date.UTC(2024, 0, 1));
    });
  });
});

describeEachEngine("advisories stored before migration 0016", (t) => {
  it("are dated when the migration runs, and keep that date through a newer version", async () => {
    const options = await t.freshLocation();
    await migrateUpTo(options, "0015_group_count_versions");
    const old = doc("OSV-2023-1", 1, { summary: "stored by an older Arbor" });
    const t0 = { ...t, options: () => options };
    await execRaw(
      t0,
      "insert into advisories (uid, modified_time, published_time, search, document) " +
        `values ('${old.uid}', ${old.modifiedTime}, ${old.publishedTime}, '', '${JSON.stringify(old.document)}')`,
    );
    const before = Date.now();
    const reopened = await createStore(options);
    const after = Date.now();
    try {
      const migrated = await reopened.advisories.get(old.uid);
      expect(migrated).toEqual({ ...old, createTime: expect.any(Number) });
      expect(migrated?.createTime).toBeGreaterThanOrEqual(before);
      expect(migrated?.createTime).toBeLessThanOrEqual(after);
      expect(await reopened.advisories.put([doc("OSV-2023-1", 2), doc("OSV-2023-2", 1)], T)).toEqual(["updated", "imported"]);
      expect((await reopened.advisories.get("OSV-2023-1"))?.createTime).toBe(migrated?.createTime);
      expect((await reopened.advisories.get("OSV-2023-2"))?.createTime).toBe(T);
    } finally {
      await reopened.close();
    }
  });
});
