/**
 * CheckAdvisories over the store's package rows (migration 0024) on every engine: the check
 * reads each package row's compact JSON, never the documents; an advisory with two affected
 * entries for one package, a withdrawn one, a newer version with other ranges and packages, and
 * a deleted one answer as the documents say; and advisories stored before the migration are
 * checked alike once it has run.
 */
import { create } from "@bufbuild/protobuf";
import { expect, it } from "vitest";
import { advisoryIndex, advisoryVersion, type AdvisoryVersion } from "../../src/domain/advisories.js";
import type { OsvDocument } from "../../src/domain/osv.js";
import {
  CheckAdvisoriesRequestSchema,
  PackageVersionSchema,
  type CheckAdvisoriesResponse,
} from "../../src/gen/arbor/vulnerabilities/v2beta1/advisories_pb.js";
import { checkAdvisories, MAX_CHECKED_PAIRS } from "../../src/services/vulnerabilities/advisory-check.js";
import { Code } from "../../src/domain/errors.js";
import type { AdvisoryStore } from "../../src/store/advisory-store.js";
import { createStore } from "../../src/store/create-store.js";
import { corpusDocument } from "../support/advisory-corpus.js";
import { describeEachEngine } from "../support/engines.js";
import { migrateUpTo } from "../support/older-store.js";
import { execRaw, rawRows } from "../support/raw-sql.js";

const T = Date.UTC(2026, 10, 26, 12);

const doc = (d: Partial<OsvDocument> & { id: string }): AdvisoryVersion =>
  advisoryVersion({ modified: "2026-01-01T00:00:00Z", ...d } as OsvDocument);

/** Two entries for npm/twice (1.0.0 to 1.1.0 and 2.0.0 to 2.1.0, each with a severity), and one for npm/other. */
const TWICE = doc({
  id: "TEST-TWICE",
  aliases: ["CVE-2026-1"],
  summary: "two ranges",
  severity: [{ type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" }],
  affected: [
    {
      package: { ecosystem: "npm", name: "twice" },
      ranges: [{ type: "SEMVER", events: [{ introduced: "1.0.0" }, { fixed: "1.1.0" }] }],
      severity: [{ type: "CVSS_V4", score: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N" }],
    },
    { package: { ecosystem: "npm", name: "other" }, ranges: [{ type: "SEMVER", events: [{ introduced: "0" }] }] },
    {
      package: { ecosystem: "npm", name: "twice" },
      ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "2.0.0" }, { fixed: "2.1.0" }] }],
      versions: ["0.9.0"],
    },
  ],
});

const WITHDRAWN = doc({
  id: "TEST-WITHDRAWN",
  withdrawn: "2026-01-02T00:00:00Z",
  affected: [{ package: { ecosystem: "npm", name: "twice" }, ranges: [{ type: "SEMVER", events: [{ introduced: "0" }] }] }],
});

async function check(store: AdvisoryStore, packages: string[], includeWithdrawn = false): Promise<CheckAdvisoriesResponse> {
  return checkAdvisories(
    store,
    create(CheckAdvisoriesRequestSchema, {
      includeWithdrawn,
      packages: packages.map((p) => {
        const [, ecosystem = "", name = "", version = ""] = /^(.+?)\/(.+)@(.+)$/.exec(p) ?? [];
        return create(PackageVersionSchema, { ecosystem, name, version });
      }),
    }),
  );
}

/** Per package version: the affecting advisories' ids (with fixed versions), then the undecided ones'. */
async function verdicts(store: AdvisoryStore, packages: string[], includeWithdrawn = false) {
  return (await check(store, packages, includeWithdrawn)).results.map((r) => ({
    p: `${r.package?.ecosystem}/${r.package?.name}@${r.package?.version}`,
    affecting: r.advisories.map((a) => `${a.advisoryId} fixed ${a.fixedVersions.join(",")}`),
    undecided: r.undecided.map((a) => a.advisoryId),
  }));
}

describeEachEngine("advisories check over package rows", (t) => {
  const advisories = () => t.store().advisories;

  it("evaluates every entry for the package, and carries the advisory's fields", async () => {
    await advisories().put([TWICE, WITHDRAWN], T);
    expect(
      await verdicts(advisories(), ["npm/twice@1.0.5", "npm/twice@2.0.1", "npm/twice@1.5.0", "npm/twice@0.9.0", "npm/other@3.0.0"]),
    ).toEqual([
      { p: "npm/twice@1.0.5", affecting: ["TEST-TWICE fixed 1.1.0,2.1.0"], undecided: [] },
      { p: "npm/twice@2.0.1", affecting: ["TEST-TWICE fixed 1.1.0,2.1.0"], undecided: [] },
      { p: "npm/twice@1.5.0", affecting: [], undecided: [] },
      { p: "npm/twice@0.9.0", affecting: ["TEST-TWICE fixed 1.1.0,2.1.0"], undecided: [] },
      { p: "npm/other@3.0.0", affecting: ["TEST-TWICE fixed "], undecided: [] },
    ]);
    const [twice] = (await check(advisories(), ["npm/twice@1.0.5"])).results;
    const a = twice?.advisories[0];
    expect({ aliases: a?.aliases, summary: a?.summary, severities: a?.severities.length, withdrawn: a?.withdrawnTime }).toEqual({
      aliases: ["CVE-2026-1"],
      summary: "two ranges",
      severities: 2,
      withdrawn: undefined,
    });
  });

  it("answers withdrawn advisories only when asked, with their withdrawal time", async () => {
    expect((await verdicts(advisories(), ["npm/twice@1.5.0"]))[0]?.affecting).toEqual([]);
    const [r] = (await check(advisories(), ["npm/twice@1.5.0"], true)).results;
    expect(r?.advisories.map((a) => [a.advisoryId, a.withdrawnTime !== undefined])).toEqual([["TEST-WITHDRAWN", true]]);
  });

  it("reads the package rows, not the documents", async () => {
    // A document emptied behind the store's back: the check answers from the rows all the same.
    await execRaw(t, `update advisories set document = '{"id":"TEST-TWICE","modified":"2026-01-01T00:00:00Z"}' where uid = 'TEST-TWICE'`);
    expect((await verdicts(advisories(), ["npm/twice@1.0.5"]))[0]?.affecting).toEqual(["TEST-TWICE fixed 1.1.0,2.1.0"]);
  });

  it("follows a newer version's ranges and packages, and forgets a deleted advisory", async () => {
    const newer = doc({
      id: "TEST-TWICE",
      modified: "2026-02-01T00:00:00Z",
      summary: "one range now",
      affected: [
        {
          package: { ecosystem: "npm", name: "twice" },
          ranges: [{ type: "SEMVER", events: [{ introduced: "1.5.0" }, { fixed: "1.6.0" }] }],
        },
      ],
    });
    expect(await advisories().put([newer], T + 1)).toEqual(["updated"]);
    expect(await verdicts(advisories(), ["npm/twice@1.0.5", "npm/twice@1.5.0", "npm/other@3.0.0"])).toEqual([
      { p: "npm/twice@1.0.5", affecting: [], undecided: [] },
      { p: "npm/twice@1.5.0", affecting: ["TEST-TWICE fixed 1.6.0"], undecided: [] },
      { p: "npm/other@3.0.0", affecting: [], undecided: [] },
    ]);
    expect((await check(advisories(), ["npm/twice@1.5.0"])).results[0]?.advisories[0]?.summary).toBe("one range now");
    await execRaw(t, "delete from advisories where uid = 'TEST-TWICE'");
    expect(await verdicts(advisories(), ["npm/twice@1.5.0"])).toEqual([{ p: "npm/twice@1.5.0", affecting: [], undecided: [] }]);
  });
});

describeEachEngine("advisories check of a batch whose answer would be too large", (t) => {
  it("refuses more than MAX_CHECKED_PAIRS (version, advisory) pairs before evaluating any, and answers up to them", async () => {
    const many = Array.from({ length: 101 }, (_, i) =>
      doc({
        id: `TEST-MANY-${i}`,
        affected: [{ package: { ecosystem: "npm", name: "popular" }, ranges: [{ type: "SEMVER", events: [{ introduced: "0" }] }] }],
      }),
    );
    await t.store().advisories.put(many, T);
    const versions = (n: number) => Array.from({ length: n }, (_, i) => `npm/popular@1.0.${i}`);
    expect(MAX_CHECKED_PAIRS).toBe(100_000);
    // 1,000 versions of a package with 101 advisories: 101,000 pairs.
    await expect(check(t.store().advisories, versions(1_000))).rejects.toMatchObject({
      code: Code.INVALID_ARGUMENT,
      message: expect.stringContaining("the 1000 package versions have 101000 advisories to evaluate between them"),
    });
    // 990 of them: 99,990 pairs, every one affected.
    const answer = await check(t.store().advisories, versions(990));
    expect(answer.results.map((r) => r.advisories.length)).toEqual(Array.from({ length: 990 }, () => 101));
  });
});

describeEachEngine("advisories stored before migration 0024", (t) => {
  it("are checked as advisories stored after it", async () => {
    const stored = [TWICE, WITHDRAWN, ...Array.from({ length: 1_200 }, (_, i) => corpusDocument(i))];
    const older = await t.freshLocation();
    await migrateUpTo(older, "0022_advisory_scale");
    const t0 = { ...t, options: () => older };
    const text = (s: string) => `'${s.replaceAll("'", "''")}'`;
    // Multi-row inserts, as an older Arbor wrote them (more advisories than one batch of the backfill).
    const rows: string[] = [];
    const packageRows: string[] = [];
    for (const v of stored) {
      const index = advisoryIndex(v.document);
      rows.push(`(${text(v.uid)}, ${v.modifiedTime}, ${v.publishedTime}, 1, ${text(index.search)}, ${text(JSON.stringify(v.document))})`);
      for (const p of index.packages) packageRows.push(`(${text(v.uid)}, ${text(p.ecosystem)}, ${text(p.ecosystemBase)}, ${text(p.name)})`);
    }
    await execRaw(
      t0,
      `insert into advisories (uid, modified_time, published_time, create_time, search, document) values ${rows.join(", ")}`,
    );
    await execRaw(t0, `insert into advisory_packages (advisory_uid, ecosystem, ecosystem_base, name) values ${packageRows.join(", ")}`);

    const upgraded = await createStore(older);
    const fresh = await createStore(await t.freshLocation());
    try {
      await fresh.advisories.put(stored, 1);
      const [{ n } = { n: -1 }] = await rawRows(t0, "select count(*) as n from advisory_packages where checked is null");
      expect(Number(n)).toBe(0);
      const packages = [
        "npm/twice@1.0.5",
        "npm/twice@2.0.1",
        "npm/other@1.0.0",
        ...Array.from({ length: 97 }, (_, i) => `npm/pkg-${i}@1.0.0`),
        ...Array.from({ length: 97 }, (_, i) => `Debian:12/pkg-${i}@1.0-1`),
        ...Array.from({ length: 97 }, (_, i) => `PyPI/pkg-${i}@1.0`),
      ];
      for (const withdrawn of [false, true]) {
        const got = await check(upgraded.advisories, packages, withdrawn);
        expect(got.results.some((r) => r.advisories.length > 0)).toBe(true);
        expect(got).toEqual(await check(fresh.advisories, packages, withdrawn));
      }
    } finally {
      await upgraded.close();
      await fresh.close();
    }
  });
});
