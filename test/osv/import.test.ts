/**
 * Importing OSV documents on every engine: folders, zip archives and files; re-import that
 * changes nothing; newer versions that replace and older ones that do not; malformed documents
 * reported and skipped; and a document the store refuses costing only itself.
 */
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { PreparedAdvisory } from "../../src/domain/advisories.js";
import { internal, unavailable } from "../../src/domain/errors.js";
import type { AdvisoryStore } from "../../src/store/advisory-store.js";
import { importAdvisories, MAX_BATCH_BYTES, type ImportOptions } from "../../src/osv/import-advisories.js";
import { readSources } from "../../src/osv/read-sources.js";
import { createOsvChecker } from "../../src/osv/validate.js";
import { createStore } from "../../src/store/create-store.js";
import type { Store } from "../../src/store/store.js";
import { describeEachEngine } from "../support/engines.js";
import { key, window } from "../support/lists.js";
import { FEED_IDS, folderEntries, importPaths, OSV, writeZip } from "../support/osv.js";
import { rawRows } from "../support/raw-sql.js";

const MALFORMED = {
  "array-of-documents.json": "document: must be object",
  "git-range-without-repo.json": "/affected/0/ranges/0: must have required property 'repo'",
  "local-time.json": "/modified: must be an RFC 3339 time in UTC with a Z suffix (2024-01-31T12:00:00Z)",
  "missing-modified.json": "document: must have required property 'modified'",
  "score-not-a-vector.json": "/severity/0/score: must be a CVSS v3.0 or v3.1 vector (CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H)",
  "slash-in-id.json": expect.stringMatching(/^\/id: must be an advisory id/),
  "truncated.json": expect.stringMatching(/^not JSON: /),
  "two-events-in-one.json": "/affected/0/ranges/0/events/0: must have exactly one of introduced, fixed, last_affected, limit",
};
const none = { imported: 0, updated: 0, unchanged: 0, skipped: 0, unreadable: 0 };

describeEachEngine("advisory import", (t) => {
  const all = async () => (await t.store().advisories.list({}, window([key("uid")], { limit: 10_000 }))).map((r) => r.uid);

  describe("from folders", () => {
    beforeAll(async () => {
      expect((await importPaths(t.store(), [OSV.feed])).summary).toEqual({ ...none, imported: FEED_IDS.length });
    });

    it("imports every document of a folder, recursively", async () => {
      expect(await all()).toEqual(FEED_IDS);
    });

    it("changes nothing when the same documents come again", async () => {
      const before = await t.store().advisories.list({}, window([key("uid")], { limit: 100 }));
      expect((await importPaths(t.store(), [OSV.feed], 4)).summary).toEqual({ ...none, unchanged: FEED_IDS.length });
      expect(await t.store().advisories.list({}, window([key("uid")], { limit: 100 }))).toEqual(before);
    });

    it(
      "passes over the documents it has imported byte for byte: " + "no check, no write, no count row; the feed sync still notes each",
      async () => {
        const rows = async () => (await rawRows(t, "select count(*) as n from advisory_counts")).map((r) => Number(r.n));
        const before = await rows();
        const checked: number[] = [];
        const written: number[] = [];
        const noted: string[] = [];
        const counting = {
          advisories: {
            ...t.store().advisories,
            putPrepared: (v: readonly PreparedAdvisory[], time: number) => (
              written.push(v.length),
              t.store().advisories.putPrepared(v, time)
            ),
          },
        };
        const checker = createOsvChecker();
        const summary = await importAdvisories(
          counting,
          (await readSources([OSV.feed])).items(),
          { onDocument: (d) => noted.push(d.id) },
          (bytes) => (checked.push(1), checker(bytes)),
        );
        expect(summary).toEqual({ ...none, unchanged: FEED_IDS.length });
        expect({ checked: checked.length, written, rows: await rows() }).toEqual({ checked: 0, written: [], rows: before });
        expect(noted.sort()).toEqual(FEED_IDS);
        // The same document in other bytes is checked, and unchanged by its modified time.
        const one = JSON.parse(await readFile(join(OSV.feed, "ghsa", "GHSA-p6mc-m468-83gw.json"), "utf8")) as object;
        const respaced = [{ kind: "document" as const, source: "respaced.json", bytes: Buffer.from(JSON.stringify(one, null, 3)) }];
        const again = await importAdvisories(
          counting,
          (async function* () {
            yield* respaced;
          })(),
          {},
          (bytes) => (checked.push(1), checker(bytes)),
        );
        expect({ again, checked: checked.length, written }).toEqual({ again: { ...none, unchanged: 1 }, checked: 1, written: [1] });
      },
    );

    it("replaces a document with a newer version only", async () => {
      const go = await t.store().advisories.get("GO-2022-0969");
      const nvd = await t.store().advisories.get("CVE-2021-44228");
      expect((await importPaths(t.store(), [OSV.updates])).summary).toEqual({ ...none, updated: 1, unchanged: 2 });
      expect((await t.store().advisories.get("GHSA-p6mc-m468-83gw"))?.document.summary).toBe("Prototype Pollution in lodash (revised)");
      expect(await t.store().advisories.count({ aliases: ["CVE-2020-28500"] })).toBe(1);
      expect(await t.store().advisories.count({ ecosystem: "npm", packageName: "lodash-es" })).toBe(1);
      expect(await t.store().advisories.get("GO-2022-0969")).toEqual(go);
      expect(await t.store().advisories.get("CVE-2021-44228")).toEqual(nvd);
    });

    it("reports each malformed document with its file and reason, skips it, and imports the rest", async () => {
      const report = await importPaths(t.store(), [OSV.malformed, join(OSV.feed, "go")]);
      expect(report.summary).toEqual({ ...none, unchanged: 1, skipped: Object.keys(MALFORMED).length });
      expect(report.skipped).toEqual(Object.fromEntries(Object.entries(MALFORMED).map(([f, reason]) => [join(OSV.malformed, f), reason])));
      expect(await all()).toEqual(FEED_IDS);
    });

    it("skips a document whose time the schema admits but no clock shows (a leap second)", async () => {
      const leap = join(await mkdtemp(join(tmpdir(), "arbor-osv-leap-")), "LEAP-1.json");
      await writeFile(leap, JSON.stringify({ id: "LEAP-1", modified: "2016-12-31T23:59:60Z" }));
      const report = await importPaths(t.store(), [leap]);
      expect(report.skipped).toEqual({ [leap]: "not an OSV time: 2016-12-31T23:59:60Z" });
    });

    it("reports a path that cannot be read, and goes on with the others", async () => {
      const missing = join(OSV.root, "no-such-folder");
      const report = await importPaths(t.store(), [missing, join(OSV.feed, "rust/RUSTSEC-2023-0044.json")]);
      expect(report.summary).toEqual({ ...none, unchanged: 1, unreadable: 1 });
      expect(report.unreadable).toEqual({ [missing]: "no such file or folder" });
    });
  });

  describe("from zip archives", () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), "arbor-osv-zip-"));
    });

    it("imports the JSON entries of an archive, skipping malformed ones with archive!entry", async () => {
      const zip = join(dir, "all.zip");
      await writeZip(zip, {
        ...folderEntries(join(OSV.feed, "debian"), ""),
        "nested/": "",
        "nested/RUSTSEC-2099-0001.json": JSON.stringify({ id: "RUSTSEC-2099-0001", modified: "2099-01-01T00:00:00Z" }),
        "README.txt": "not a document",
        "bad.json": await readFile(join(OSV.malformed, "local-time.json")),
      });
      const report = await importPaths(t.store(), [zip]);
      expect(report.summary).toEqual({ ...none, imported: 1, unchanged: 2, skipped: 1 });
      expect(report.skipped).toEqual({ [`${zip}!bad.json`]: MALFORMED["local-time.json"] });
      expect(await t.store().advisories.get("RUSTSEC-2099-0001")).toBeDefined();
    });

    it("finds archives and documents in folders, passing over hidden entries and other files; a bad zip is unreadable", async () => {
      const folder = join(dir, "folder");
      await mkdir(join(folder, "sub"), { recursive: true });
      await mkdir(join(folder, ".git"), { recursive: true });
      await writeFile(join(folder, "broken.zip"), "PK not really");
      await writeFile(join(folder, "notes.txt"), "not a document");
      await writeFile(join(folder, ".git", "HIDDEN-1.json"), JSON.stringify({ id: "HIDDEN-1", modified: "2099-01-01T00:00:00Z" }));
      await writeFile(join(folder, "sub", "OSV-2099-2.json"), JSON.stringify({ id: "OSV-2099-2", modified: "2099-01-01T00:00:00Z" }));
      await writeZip(join(folder, "sub", "one.zip"), {
        "x/PYSEC-2099-1.json": JSON.stringify({ id: "PYSEC-2099-1", modified: "2099-01-01T00:00:00Z" }),
      });
      const report = await importPaths(t.store(), [folder]);
      expect(report.unreadable).toEqual({ [join(folder, "broken.zip")]: expect.any(String) });
      expect(report.summary).toEqual({ ...none, imported: 2, unreadable: 1 });
      expect(await t.store().advisories.get("PYSEC-2099-1")).toBeDefined();
      expect(await t.store().advisories.get("HIDDEN-1")).toBeUndefined();
    });
  });

  describe("statistics", () => {
    it("are refreshed at the end of an import that wrote many documents, and not of one that wrote few", async () => {
      const store = await createStore(await t.freshLocation());
      try {
        let refreshed = 0;
        const watched: { advisories: AdvisoryStore } = {
          advisories: { ...store.advisories, refreshStatistics: async () => void refreshed++ },
        };
        const paths = [join(OSV.feed, "go"), join(OSV.feed, "pypi")];
        await importAdvisories(watched, (await readSources(paths)).items(), { statisticsAfter: 3 });
        expect(refreshed).toBe(0);
        await importAdvisories(watched, (await readSources([OSV.feed])).items(), { statisticsAfter: 3 });
        expect(refreshed).toBe(1);
        // Nothing new written: nothing to refresh.
        await importAdvisories(watched, (await readSources([OSV.feed])).items(), { statisticsAfter: 3 });
        expect(refreshed).toBe(1);
      } finally {
        await store.close();
      }
    });

    // PostgreSQL's alone: SQLite's refresh does nothing (registered only there, so SQLite's run
    // reports nothing skipped).
    if (t.engine === "postgres")
      it("are the planner's, analyzed, on PostgreSQL", async () => {
        const analyzed = async () =>
          (
            await rawRows(
              t,
              "select relname from pg_stat_user_tables where schemaname = current_schema() and last_analyze is not null " +
                "and relname in ('advisories', 'advisory_aliases', 'advisory_packages', 'advisory_counts') order by relname",
            )
          ).map((r) => r.relname);
        await t.store().advisories.refreshStatistics();
        expect(await analyzed()).toEqual(["advisories", "advisory_aliases", "advisory_counts", "advisory_packages"]);
      });
  });

  describe("a document the store refuses", () => {
    let fresh: Store;
    beforeAll(async () => {
      fresh = await createStore(await t.freshLocation());
      return () => fresh.close();
    });
    const poisoned = (calls: number[], error = internal(new Error("value too long for type"))): { advisories: AdvisoryStore } => ({
      advisories: {
        ...fresh.advisories,
        putPrepared: async (versions: readonly PreparedAdvisory[], time: number) => {
          calls.push(versions.length);
          if (versions.some((r) => r.uid === "DLA-3530-1")) throw error;
          return fresh.advisories.putPrepared(versions, time);
        },
      },
    });

    it("costs only itself: its batch is written again one document per transaction", async () => {
      const calls: number[] = [];
      const report = await importPaths(poisoned(calls), [join(OSV.feed, "debian"), join(OSV.feed, "ghsa")], 3);
      expect(report.skipped).toEqual({ [join(OSV.feed, "debian/DLA-3530-1.json")]: "the store refused it: value too long for type" });
      expect(report.summary).toEqual({ ...none, imported: 6, skipped: 1 });
      expect(calls).toEqual([3, 1, 1, 1, 3, 1]);
      const ids = (await fresh.advisories.list({}, window([key("uid")], { limit: 100 }))).map((r) => r.uid);
      expect(ids).toHaveLength(6);
      expect(ids).not.toContain("DLA-3530-1");
    });

    it("stops between documents when aborted, keeping the batches written whole", async () => {
      const abort = new AbortController();
      const sources = await readSources(["go", "nvd", "pypi", "rust"].map((d) => join(OSV.feed, d)));
      const stopped = importAdvisories(fresh, sources.items(), {
        batchSize: 2,
        signal: abort.signal,
        onProgress: (n) => n === 3 && abort.abort(),
      });
      await expect(stopped).rejects.toMatchObject({ name: "AbortError" });
      expect(await fresh.advisories.count({ ids: ["CVE-2021-44228", "GO-2022-0969", "PYSEC-2021-108", "RUSTSEC-2023-0044"] })).toBe(2);
    });

    it("cuts a batch at MAX_BATCH_BYTES of documents, whatever its count", async () => {
      expect(MAX_BATCH_BYTES).toBe(64 * 1024 * 1024);
      const paths = ["go", "nvd", "pypi", "rust"].map((d) => join(OSV.feed, d));
      const batches = async (options: ImportOptions) => {
        const store = await createStore(await t.freshLocation());
        try {
          const sizes: number[] = [];
          const watched: { advisories: AdvisoryStore } = {
            advisories: {
              ...store.advisories,
              putPrepared: async (versions, time) => (sizes.push(versions.length), store.advisories.putPrepared(versions, time)),
            },
          };
          await importAdvisories(watched, (await readSources(paths)).items(), options);
          return sizes;
        } finally {
          await store.close();
        }
      };
      const whole = await batches({ batchSize: 500 });
      expect(whole).toHaveLength(1);
      // Any document is over one byte: each is a batch of its own.
      expect(await batches({ batchSize: 500, batchBytes: 1 })).toEqual(Array.from({ length: whole[0] ?? 0 }, () => 1));
    });

    it("writes one batch while it reads and checks the next, looks up the next before, the writes one at a time and in order", async () => {
      const paths = ["go", "nvd", "pypi", "rust"].map((d) => join(OSV.feed, d));
      const store = await createStore(await t.freshLocation());
      try {
        const events: string[] = [];
        let inFlight = 0;
        let nextLookedUp: () => void = () => {};
        const lookedUp = new Promise<void>((resolve) => (nextLookedUp = resolve));
        const watched: { advisories: AdvisoryStore } = {
          advisories: {
            ...store.advisories,
            knownHashes: async (hashes) => {
              events.push(`look up ${hashes.length}`);
              if (events.filter((e) => e.startsWith("look up")).length === 2) nextLookedUp();
              return store.advisories.knownHashes(hashes);
            },
            putPrepared: async (versions, time) => {
              expect(++inFlight).toBe(1);
              events.push(`write ${versions.map((v) => v.uid).join(" ")}`);
              // The first write ends only once the next batch was looked up, or after a second (then the order shows it).
              if (events.filter((e) => e.startsWith("write")).length === 1)
                await Promise.race([lookedUp, new Promise((r) => setTimeout(r, 1000))]);
              const outcomes = await store.advisories.putPrepared(versions, time);
              events.push("written");
              inFlight--;
              return outcomes;
            },
          },
        };
        const sources = await readSources(paths);
        const { imported } = await importAdvisories(watched, sources.items(), { batchSize: 2 });
        expect(imported).toBe(4);
        // The second batch's lookup starts as soon as it is read, before the first batch is written.
        expect(events.map((e) => e.replace(/ [A-Z].*/, ""))).toEqual(["look up 2", "look up 2", "write", "written", "write", "written"]);
      } finally {
        await store.close();
      }
    });

    it("ends the import with a lookup's failure, read while the next batch was read", async () => {
      const store = await createStore(await t.freshLocation());
      try {
        const lookups: number[] = [];
        const failing: { advisories: AdvisoryStore } = {
          advisories: {
            ...store.advisories,
            // The first lookup fails at once: nothing awaits it until the second batch is read.
            knownHashes: (hashes) =>
              lookups.push(hashes.length) === 1
                ? Promise.reject(unavailable("the store cannot be reached"))
                : store.advisories.knownHashes(hashes),
          },
        };
        const sources = await readSources(["go", "nvd", "pypi", "rust"].map((d) => join(OSV.feed, d)));
        await expect(importAdvisories(failing, sources.items(), { batchSize: 1 })).rejects.toMatchObject({ code: 14 });
        expect(lookups).toEqual([1, 1]);
        expect(await store.advisories.count({})).toBe(0);
      } finally {
        await store.close();
      }
    });

    it("ends the import when the store cannot be reached", async () => {
      const failing = importPaths(poisoned([], unavailable("the store cannot be reached")), [join(OSV.feed, "debian")], 1);
      await expect(failing).rejects.toMatchObject({ code: 14 });
    });
  });
});
