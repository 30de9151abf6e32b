/**
 * The advisory store on every engine: writes that keep only the newest version of a document,
 * whole or not at all; every filter; and keyset pages in every order.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { advisoryRecord, advisorySortValue, type AdvisoryFilter, type AdvisoryRecord } from "../../src/domain/advisories.js";
import type { OsvDocument } from "../../src/domain/osv.js";
import { describeEachEngine } from "../support/engines.js";
import { expectMatches, key, pageThrough, sortedBy, uids, window } from "../support/lists.js";
import { rawRows } from "../support/raw-sql.js";

/** A document of id, modified on day `day` of 2024, affecting packages "ecosystem/name". */
function doc(id: string, day: number, more: Partial<OsvDocument> & { packages?: string[] } = {}): AdvisoryRecord {
  const { packages = [], ...rest } = more;
  const affected = packages.map((p) => {
    const slash = p.indexOf("/");
    const [ecosystem, name] = [p.slice(0, slash), p.slice(slash + 1)];
    return { package: { ecosystem, name }, ranges: [{ type: "ECOSYSTEM" as const, events: [{ introduced: "0" }] }] };
  });
  const modified = new Date(Date.UTC(2024, 0, day)).toISOString().replace(".000Z", "Z");
  return advisoryRecord({ id, modified, ...(affected.length > 0 && { affected }), ...rest });
}

const SET = [
  doc("GHSA-aaaa-0001-xxxx", 3, { aliases: ["CVE-2024-0001"], summary: "Prototype pollution in Lodash", packages: ["npm/lodash"], published: "2023-12-01T00:00:00Z" }),
  doc("GHSA-aaaa-0002-xxxx", 1, { aliases: ["CVE-2024-0002", "PYSEC-2024-2"], summary: "XSS in Jinja", packages: ["PyPI/jinja2"] }),
  doc("GO-2024-0003", 2, { aliases: ["CVE-2024-0003", "GHSA-aaaa-0003-xxxx"], packages: ["Go/stdlib", "Go/golang.org/x/net"] }),
  doc("DSA-0004-1", 5, { summary: "openssl - security update", packages: ["Debian:12/openssl", "Debian:11/openssl"] }),
  doc("DLA-0005-1", 4, { summary: "openssl 100%_sure", packages: ["Debian:10/openssl"], published: "2023-01-01T00:00:00Z" }),
  doc("CVE-2024-0006", 6, { details: "no summary; a git range only", affected: [{ ranges: [{ type: "GIT", repo: "https://x", events: [{ introduced: "0" }] }] }] }),
  doc("RUSTSEC-2024-0007", 2, { aliases: ["CVE-2024-0001"], summary: "openssl buffer over-read", packages: ["crates.io/openssl", "npm/openssl"] }),
];

describeEachEngine("advisory store", (t) => {
  const advisories = () => t.store().advisories;

  describe("writes", () => {
    it("imports new documents, ignores equal or older ones, replaces with newer ones; earlier records of a call count", async () => {
      const v1 = doc("OSV-2024-1", 10, { aliases: ["CVE-OLD"], packages: ["npm/left-pad"] });
      const v2 = doc("OSV-2024-1", 11, { aliases: ["CVE-NEW"], packages: ["npm/right-pad"] });
      const v0 = doc("OSV-2024-1", 9, { summary: "older" });
      expect(await advisories().put([v1])).toEqual(["imported"]);
      expect(await advisories().put([v1, v0])).toEqual(["unchanged", "unchanged"]);
      expect(await advisories().get("OSV-2024-1")).toEqual(v1);
      expect(await advisories().put([v2, v1, doc("OSV-2024-2", 1), doc("OSV-2024-2", 2)])).toEqual(["updated", "unchanged", "imported", "updated"]);
      expect(await advisories().get("OSV-2024-1")).toEqual(v2);
      expect((await advisories().get("OSV-2024-2"))?.modifiedTime).toBe(Date.UTC(2024, 0, 2));
      expect(await advisories().put([])).toEqual([]);
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
      const failing = t.store().transaction(async (tx) => {
        await tx.advisories.put([doc("OSV-2024-3", 1, { aliases: ["CVE-ROLLED-BACK"] })]);
        throw new Error("rolled back");
      });
      await expect(failing).rejects.toThrow("rolled back");
      expect(await advisories().get("OSV-2024-3")).toBeUndefined();
      expect(await rawRows(t, "select * from advisory_aliases where alias = 'CVE-ROLLED-BACK'")).toEqual([]);
    });

    it("keeps the whole document, fields it does not read included", async () => {
      const extra = doc("OSV-2024-4", 1, { database_specific: { cwe_ids: ["CWE-79"] } } as Partial<OsvDocument>);
      await advisories().put([extra]);
      expect((await advisories().get("OSV-2024-4"))?.document).toEqual({ ...extra.document, database_specific: { cwe_ids: ["CWE-79"] } });
    });

    it("writes more rows than one statement binds", async () => {
      const many = Array.from({ length: 2100 }, (_, i) => doc(`BULK-${String(i).padStart(5, "0")}`, 1, { aliases: [`CVE-BULK-${i}`], packages: ["npm/a", "npm/b"] }));
      expect(new Set(await advisories().put(many))).toEqual(new Set(["imported"]));
      expect(await advisories().count({ ecosystem: "npm", packageName: "b", query: "bulk-" })).toBe(2100);
    });
  });

  describe("lists", () => {
    const IN_SET: AdvisoryFilter = { ids: SET.map((r) => r.uid) };
    beforeAll(async () => {
      await advisories().put(SET);
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
