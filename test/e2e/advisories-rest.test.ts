/**
 * Advisories over REST on every engine: a folder of OSV documents imported, then listed with each
 * filter (the right items, counts and pages), fetched one by one, and guarded by advisories.list.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { FEED_IDS, importPaths, OSV } from "../support/osv.js";
import { detailOf, restClient, violatedField, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const LIST = "/vulnerabilities/v2beta1/advisories";
/** When the feed is imported, and when a newer version of one of its advisories is. */
const IMPORTED = "2026-03-27T13:55:00.423Z";
const UPDATED = "2026-04-01T08:00:00.000Z";
const at = (time: string) => ({ now: () => Date.parse(time) });

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`advisories over REST [${engine.name}]`, () => {
    let t: TestServer;
    let viewer: RestClient;
    let pullOnly: RestClient;
    let stranger: RestClient;
    const ids = async (query: string, client: RestClient = viewer) => {
      const res = await client.get(`${LIST}?${query}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return { ids: (res.body.advisories as { uid: string }[]).map((a) => a.uid), total: Number(res.body.totalCount), body: res.body };
    };

    beforeAll(async () => {
      t = await startTestServer(engine);
      const { org, token } = await t.organization("advisories");
      const admin = restClient(t, token);
      const team = (await admin.post(`/iam/v2beta1/groups/${org.uid}`, { name: "team" })).body.uid as string;
      const member = async (name: string, role: string) => {
        const claimMatch = { issuer: "https://issuer.example", subject: name };
        const uid = (await admin.post(`/iam/v2beta1/identities/${team}`, { name, claimMatch })).body.uid as string;
        await admin.post(`/iam/v2beta1/roleBindings/${team}`, { identityUid: uid, roleUid: builtinRoleUid(role) });
        return restClient(t, (await t.server.tokens.issue(uid, t.url)).token);
      };
      viewer = await member("viewer", "viewer");
      pullOnly = await member("puller", "registry.pull");
      stranger = restClient(t, await t.strangerToken());
      const report = await importPaths(t.server.store, [OSV.feed], undefined, at(IMPORTED));
      expect(report.summary).toMatchObject({ imported: FEED_IDS.length, skipped: 0 });
    });
    afterAll(() => t?.close());

    it("lists every advisory in advisory id order, with the list envelope", async () => {
      const { ids: got, total, body } = await ids("");
      expect(got).toEqual(FEED_IDS);
      expect(total).toBe(FEED_IDS.length);
      expect(body.skipped).toBe(0);
      expect(body).not.toHaveProperty("nextPageToken");
    });

    it("shows an advisory with every field the issue names, in the house JSON", async () => {
      const res = await viewer.get(`${LIST}/GHSA-p6mc-m468-83gw`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        uid: "GHSA-p6mc-m468-83gw",
        advisoryId: "GHSA-p6mc-m468-83gw",
        aliases: ["CVE-2020-8203"],
        related: [],
        summary: "Prototype Pollution in lodash",
        details: expect.stringMatching(/^Versions of lodash prior to 4\.17\.19/),
        severities: [{ type: "TYPE_CVSS_V3", score: "CVSS:3.1/AV:N/AC:H/PR:N/UI:N/S:U/C:N/I:H/A:H" }],
        affected: [
          {
            ecosystem: "npm",
            name: "lodash",
            purl: "pkg:npm/lodash",
            ranges: [{ type: "TYPE_ECOSYSTEM", repo: "", events: [{ introduced: "3.7.0" }, { fixed: "4.17.19" }] }],
            versions: [],
            severities: [],
          },
        ],
        references: [
          { type: "TYPE_ADVISORY", url: "https://nvd.nist.gov/vuln/detail/CVE-2020-8203" },
          { type: "TYPE_WEB", url: "https://github.com/lodash/lodash/issues/4744" },
          { type: "TYPE_FIX", url: "https://github.com/lodash/lodash/commit/c84fe82760fb2d3e03a63379b297a1cc1a2fce12" },
          { type: "TYPE_PACKAGE", url: "https://github.com/lodash/lodash" },
        ],
        publishedTime: "2020-07-15T19:15:48.000Z",
        modifiedTime: "2024-02-01T09:12:33.000Z",
        schemaVersion: "1.4.0",
        createTime: IMPORTED,
      });
      const listed = (await ids("advisory_ids=GHSA-p6mc-m468-83gw")).body.advisories[0];
      expect(listed).toEqual(res.body);
    });

    it.each([
      [
        "CVE-2021-44228",
        {
          severities: [
            { type: "TYPE_CVSS_V3", score: expect.any(String) },
            { type: "TYPE_CVSS_V2", score: "AV:N/AC:M/Au:N/C:C/I:C/A:C" },
          ],
          related: ["GHSA-jfh8-c2jp-5v3q"],
          summary: "",
        },
      ],
      ["GHSA-4w2v-q235-vp99", { withdrawnTime: "2023-01-09T17:56:35.000Z" }],
      ["GHSA-8qvm-5x2c-j2w7", { modifiedTime: "2024-05-20T18:30:00.123Z" }],
      [
        "UBUNTU-CVE-2023-4863",
        {
          severities: [
            { type: "TYPE_UBUNTU", score: "high" },
            { type: "TYPE_CVSS_V3", score: expect.any(String) },
          ],
        },
      ],
      ["GHSA-h5c8-rqwp-cp95", { severities: [expect.anything(), { type: "TYPE_CVSS_V4", score: expect.stringMatching(/^CVSS:4\.0\//) }] }],
      [
        "SUSE-SU-2024:0001-1",
        { affected: [expect.objectContaining({ ecosystem: "SUSE:Linux Enterprise Server 15 SP5", name: "openssl-3" })] },
      ],
      [
        "PYSEC-2021-108",
        { summary: "", affected: [expect.objectContaining({ versions: ["1.26.0", "1.26.1", "1.26.2", "1.26.3", "1.26.4"] })] },
      ],
    ])("gets %s as its OSV document says", async (id, want) => {
      const res = await viewer.get(`${LIST}/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ uid: id, ...want });
    });

    it("shows a GIT range with its repo and limit, and no package", async () => {
      const res = await viewer.get(`${LIST}/CVE-2021-44228`);
      expect(res.body.affected).toEqual([
        {
          ecosystem: "",
          name: "",
          purl: "",
          ranges: [
            {
              type: "TYPE_GIT",
              repo: "https://github.com/apache/logging-log4j2",
              events: [
                { introduced: "0" },
                { fixed: "c77b3cb39312b83b053d23a2158b99ac7de44dd3" },
                { limit: "44569090f1cf1e92c711fb96dfd18cd7dccc72ea" },
              ],
            },
          ],
          versions: ["log4j-2.0-beta9", "rel/2.14.1"],
          severities: [],
        },
      ]);
      const lastAffected = (await viewer.get(`${LIST}/GHSA-4w2v-q235-vp99`)).body.affected[0].ranges[0].events;
      expect(lastAffected).toEqual([{ introduced: "0" }, { lastAffected: "4.6.2" }]);
    });

    it.each([
      ["advisory_ids (repeated)", "advisory_ids=GO-2022-0969&advisory_ids=DLA-3530-1&advisoryIds=NOPE-1", ["DLA-3530-1", "GO-2022-0969"]],
      ["aliases: a CVE", "aliases=CVE-2021-44228", ["GHSA-jfh8-c2jp-5v3q"]],
      ["aliases: a GHSA id, any of several", "aliases=GHSA-69cg-p879-7622&aliases=GHSA-q2q7-5pp4-w6pg", ["GO-2022-0969", "PYSEC-2021-108"]],
      ["ecosystem npm", "ecosystem=npm", ["GHSA-4w2v-q235-vp99", "GHSA-8qvm-5x2c-j2w7", "GHSA-p6mc-m468-83gw"]],
      ["ecosystem PyPI", "ecosystem=PyPI", ["GHSA-8qvm-5x2c-j2w7", "GHSA-h5c8-rqwp-cp95", "PYSEC-2021-108"]],
      ["ecosystem Debian (every release)", "ecosystem=Debian", ["DLA-3530-1", "DSA-5585-1"]],
      ["ecosystem Debian:11 (one release)", "ecosystem=Debian:11", ["DSA-5585-1"]],
      ["ecosystem Ubuntu", "ecosystem=Ubuntu", ["UBUNTU-CVE-2023-4863"]],
      ["package_name", "package_name=openssl", ["DLA-3530-1", "DSA-5585-1", "RUSTSEC-2023-0044"]],
      ["package name with ecosystem", "ecosystem=crates.io&packageName=openssl", ["RUSTSEC-2023-0044"]],
      ["a Go module path", "package_name=golang.org%2Fx%2Fnet", ["GO-2022-0969"]],
      ["query over the summary, any case", "query=LOG4J", ["GHSA-jfh8-c2jp-5v3q"]],
      ["query over ids and aliases", "query=cve-2021-44228", ["CVE-2021-44228", "GHSA-jfh8-c2jp-5v3q"]],
      ["query over package names", "query=protobuf", ["GHSA-8qvm-5x2c-j2w7"]],
      ["modified_since", "modified_since=2024-05-20T16:03:47Z", ["CVE-2021-44228", "GHSA-8qvm-5x2c-j2w7", "GO-2022-0969"]],
      [
        "everything at once",
        "ecosystem=PyPI&query=protobuf&modifiedSince=2024-01-01T00:00:00.000Z&aliases=CVE-2022-3171",
        ["GHSA-8qvm-5x2c-j2w7"],
      ],
      ["nothing matching", "ecosystem=Hex", []],
    ])("filters by %s", async (_name, query, want) => {
      const got = await ids(query);
      expect(got.ids).toEqual(want);
      expect(got.total).toBe(want.length);
    });

    it("pages by cursor with totalCount on every page, in each order", async () => {
      for (const [order, sorted] of [
        ["", FEED_IDS],
        ["order_by=advisory_id%20desc", [...FEED_IDS].reverse()],
        ["order_by=modified%20desc", null],
        ["order_by=published_time,id", null],
      ] as const) {
        const seen: string[] = [];
        let token = "";
        for (let page = 0; page < 10; page++) {
          const got = await ids(`page_size=5&${order}${token && `&page_token=${encodeURIComponent(token)}`}`);
          expect(got.total).toBe(FEED_IDS.length);
          seen.push(...got.ids);
          token = got.body.nextPageToken ?? "";
          if (token === "") break;
        }
        expect(seen).toHaveLength(FEED_IDS.length);
        expect(new Set(seen).size).toBe(FEED_IDS.length);
        if (sorted !== null) expect(seen).toEqual(sorted);
      }
      const newest = await ids("order_by=modified%20desc&page_size=2");
      expect(newest.ids).toEqual(["CVE-2021-44228", "GHSA-8qvm-5x2c-j2w7"]);
      const oldest = await ids("order_by=published&page_size=1");
      expect(oldest.ids).toEqual(["GHSA-p6mc-m468-83gw"]);
    });

    it("skips, and echoes the skip", async () => {
      const got = await ids("skip=10&page_size=2");
      expect(got.ids).toEqual(FEED_IDS.slice(10, 12));
      expect(got.body.skipped).toBe(10);
      expect(got.total).toBe(FEED_IDS.length);
    });

    it.each([
      ["order_by=severity", "order_by"],
      ["page_size=-1", "page_size"],
      ["skip=-1", "skip"],
      ["advisory_ids=has%20space", "advisory_ids"],
      ["aliases=", "aliases"],
      [`query=${"x".repeat(257)}`, "query"],
      ["modified_since=yesterday", "modified_since"],
      ["ecosystems=npm", "ecosystems"],
      ["page_token=forged", "page_token"],
    ])("refuses %s naming %s", async (query, field) => {
      const res = await viewer.get(`${LIST}?${query}`);
      expect(res.status).toBe(400);
      expect(violatedField(res.body)).toBe(field);
      expect(detailOf(res.body, "google.rpc.ErrorInfo")).toMatchObject({ reason: "INVALID_ARGUMENT", domain: "vulnerabilities.localhost" });
    });

    it("refuses a page token sent with other filters", async () => {
      const first = await ids("ecosystem=npm&page_size=1");
      const res = await viewer.get(`${LIST}?ecosystem=PyPI&page_size=1&page_token=${encodeURIComponent(first.body.nextPageToken)}`);
      expect(violatedField(res.body)).toBe("page_token");
    });

    it("answers NOT_FOUND for a missing advisory and INVALID_ARGUMENT for a malformed id", async () => {
      const missing = await viewer.get(`${LIST}/GHSA-0000-0000-0000`);
      expect(missing.status).toBe(404);
      expect(missing.body).toMatchObject({ code: 5, message: "Not found: advisory GHSA-0000-0000-0000" });
      expect(detailOf(missing.body, "google.rpc.ResourceInfo")).toMatchObject({
        resourceType: "advisory",
        resourceName: "GHSA-0000-0000-0000",
      });
      expect(detailOf(missing.body, "google.rpc.ErrorInfo")).toMatchObject({ reason: "NOT_FOUND", domain: "vulnerabilities.localhost" });
      const bad = await viewer.get(`${LIST}/GHSA/x`);
      expect(bad.status).toBe(400);
      expect(violatedField(bad.body)).toBe("uid");
    });

    it("needs advisories.list at some group: viewer yes; registry.pull, no binding: 7; no token: 16", async () => {
      expect((await viewer.get(`${LIST}?page_size=1`)).status).toBe(200);
      for (const client of [pullOnly, stranger]) {
        for (const path of [LIST, `${LIST}/GO-2022-0969`, `${LIST}/GHSA-0000-0000-0000`]) {
          const res = await client.get(path);
          expect(res.status).toBe(403);
          expect(res.body).toMatchObject({ code: 7, message: "Permission denied: the caller lacks advisories.list on any group" });
          expect(detailOf(res.body, "google.rpc.ErrorInfo")?.domain).toBe("vulnerabilities.localhost");
        }
      }
      const anonymous = await t.fetch(`${LIST}/GO-2022-0969`);
      expect(anonymous.status).toBe(401);
      expect(((await anonymous.json()) as { code: number }).code).toBe(16);
    });

    it("changes nothing when the folder is imported again", async () => {
      const before = await ids("page_size=200");
      const report = await importPaths(t.server.store, [OSV.feed, join(OSV.updates, "GO-2022-0969.json")]);
      expect(report.summary).toMatchObject({ imported: 0, updated: 0, unchanged: FEED_IDS.length + 1 });
      expect((await ids("page_size=200")).body).toEqual(before.body);
    });

    it("dates every advisory when Arbor first stored it, and keeps that through a newer version", async () => {
      const { body } = await ids("page_size=200");
      expect(new Set(body.advisories.map((a: { createTime: string }) => a.createTime))).toEqual(new Set([IMPORTED]));
      const report = await importPaths(t.server.store, [join(OSV.updates, "GHSA-p6mc-m468-83gw.json")], undefined, at(UPDATED));
      expect(report.summary).toMatchObject({ updated: 1 });
      const res = await viewer.get(`${LIST}/GHSA-p6mc-m468-83gw`);
      expect(res.body.modifiedTime).not.toBe("2024-02-01T09:12:33.000Z");
      expect(res.body.createTime).toBe(IMPORTED);
    });
  });
}
