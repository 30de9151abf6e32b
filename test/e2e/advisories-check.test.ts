/**
 * CheckAdvisories over REST on every engine, and once over gRPC: the feed fixtures imported, then
 * package versions of each ecosystem they cover checked against them, in each ecosystem's version
 * order (a fix's own version is not affected, a version before the range is not, pre-releases,
 * Go pseudo-versions and dpkg's `~` fall where their orders put them); withdrawn advisories only
 * when asked; an ecosystem with no known order, or a version that does not parse, undecided with
 * a reason; bad batches refused naming the field; advisories.list required.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { AdvisoriesService } from "../../src/gen/arbor/vulnerabilities/v2beta1/advisories_pb.js";
import { builtinRoleUid } from "../../src/domain/roles.js";
import { engines } from "../support/engines.js";
import { importPaths, OSV } from "../support/osv.js";
import { restClient, violatedField, type RestClient } from "../support/rest.js";
import { startTestServer, type TestServer } from "../support/server.js";

const CHECK = "/vulnerabilities/v2beta1/advisories:check";

type Result = {
  package: { ecosystem: string; name: string; version: string };
  advisories?: { advisoryId: string; fixedVersions?: string[]; withdrawnTime?: string }[];
  undecided?: { advisoryId: string }[];
  undecidedReason?: string;
};

for (const engine of engines) {
  describe.skipIf(engine.skipReason !== undefined)(`CheckAdvisories [${engine.name}]`, () => {
    let t: TestServer;
    let viewer: RestClient;
    let viewerToken: string;
    let stranger: RestClient;
    const check = async (packages: string[], more: Record<string, unknown> = {}): Promise<Result[]> => {
      const res = await viewer.post(CHECK, { packages: packages.map(packageOf), ...more });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.results as Result[];
    };
    const affecting = async (p: string) => ((await check([p]))[0]?.advisories ?? []).map((a) => a.advisoryId);

    beforeAll(async () => {
      t = await startTestServer(engine);
      const { org, token } = await t.organization("advisories");
      const admin = restClient(t, token);
      const uid = (
        await admin.post(`/iam/v2beta1/identities/${org.uid}`, {
          name: "viewer",
          claimMatch: { issuer: "https://issuer.example", subject: "viewer" },
        })
      ).body.uid as string;
      await admin.post(`/iam/v2beta1/roleBindings/${org.uid}`, { identityUid: uid, roleUid: builtinRoleUid("viewer") });
      viewerToken = (await t.server.tokens.issue(uid, t.url)).token;
      viewer = restClient(t, viewerToken);
      stranger = restClient(t, await t.strangerToken());
      await importPaths(t.server.store, [OSV.feed]);
    });
    afterAll(() => t?.close());

    it.each([
      // npm (ECOSYSTEM range, SemVer order): introduced 3.7.0, fixed 4.17.19.
      { p: "npm/lodash@4.17.15", want: ["GHSA-p6mc-m468-83gw"] },
      { p: "npm/lodash@4.17.19", want: [] },
      { p: "npm/lodash@3.6.0", want: [] },
      { p: "npm/lodash@4.17.19-beta.1", want: ["GHSA-p6mc-m468-83gw"] },
      // Maven, three ranges: 2.14.1 in the last (2.13.0 to 2.15.0), 2.12.2 the second's fix.
      { p: "Maven/org.apache.logging.log4j:log4j-core@2.14.1", want: ["GHSA-jfh8-c2jp-5v3q"] },
      { p: "Maven/org.apache.logging.log4j:log4j-core@2.12.2", want: [] },
      { p: "Maven/org.apache.logging.log4j:log4j-core@2.0-beta9", want: ["GHSA-jfh8-c2jp-5v3q"] },
      { p: "Maven/org.apache.logging.log4j:log4j-core@2.0-alpha1", want: [] },
      // Go (SEMVER ranges): the stdlib's two ranges, and a pseudo-version before the x/net fix.
      { p: "Go/stdlib@1.19.0", want: ["GO-2022-0969"] },
      { p: "Go/stdlib@1.18.6", want: [] },
      { p: "Go/golang.org/x/net@v0.0.0-20220101000000-abcdefabcdef", want: ["GO-2022-0969"] },
      { p: "Go/golang.org/x/net@v0.1.0", want: [] },
      // PyPI (PEP 440): urllib3 fixed in 1.26.5; 1.26.5rc1 comes before it.
      { p: "PyPI/urllib3@1.26.4", want: ["PYSEC-2021-108"] },
      { p: "PyPI/urllib3@1.26.5rc1", want: ["PYSEC-2021-108"] },
      { p: "PyPI/urllib3@1.26.5", want: [] },
      // crates.io (SEMVER range).
      { p: "crates.io/openssl@0.10.54", want: ["RUSTSEC-2023-0044"] },
      { p: "crates.io/openssl@0.10.55", want: [] },
      // Debian (dpkg order): `~deb12u1` sorts before `~deb12u2`, the fix; releases are apart.
      { p: "Debian:12/openssl@3.0.11-1~deb12u1", want: ["DSA-5585-1"] },
      { p: "Debian:12/openssl@3.0.11-1~deb12u2", want: [] },
      { p: "Debian:11/openssl@1.1.1n-0+deb11u5", want: ["DSA-5585-1"] },
      { p: "Debian:10/openssl@1.1.1n-0+deb10u6", want: [] },
      // Ubuntu (dpkg order).
      { p: "Ubuntu:22.04:LTS/libwebp@1.2.2-2ubuntu0.22.04.1", want: ["UBUNTU-CVE-2023-4863"] },
      { p: "Ubuntu:22.04:LTS/libwebp@1.2.2-2ubuntu0.22.04.2", want: [] },
      // A package no advisory names.
      { p: "npm/left-pad@1.3.0", want: [] },
    ])("$p: $want", async ({ p, want }) => {
      expect(await affecting(p)).toEqual(want);
    });

    it("names the versions that fix what affects a package", async () => {
      const [result] = await check(["Go/stdlib@1.19.0"]);
      expect(result?.advisories?.[0]?.fixedVersions).toEqual(["1.18.6", "1.19.1"]);
    });

    it("answers every package version in the order asked, the same one twice too", async () => {
      const asked = ["PyPI/urllib3@1.26.4", "npm/lodash@4.17.19", "PyPI/urllib3@1.26.4"];
      const results = await check(asked);
      expect(results.map((r) => `${r.package.ecosystem}/${r.package.name}@${r.package.version}`)).toEqual(asked);
      expect(results.map((r) => (r.advisories ?? []).length)).toEqual([1, 0, 1]);
    });

    it("leaves withdrawn advisories out unless asked for them", async () => {
      expect(await affecting("npm/lodash.merge@4.6.1")).toEqual([]);
      const [result] = await check(["npm/lodash.merge@4.6.1"], { includeWithdrawn: true });
      expect(result?.advisories?.map((a) => a.advisoryId)).toEqual(["GHSA-4w2v-q235-vp99"]);
      expect(result?.advisories?.[0]?.withdrawnTime).toMatch(/^\d{4}-/);
    });

    it("says what it cannot decide, and why: an ecosystem with no known order, a version that does not parse", async () => {
      const [suse, bad] = await check(["SUSE:Linux Enterprise Server 15 SP5/openssl-3@3.0.8-150500.5.19.1", "PyPI/urllib3@not a version!"]);
      expect(suse?.advisories ?? []).toEqual([]);
      expect(suse?.undecided?.map((a) => a.advisoryId)).toEqual(["SUSE-SU-2024:0001-1"]);
      expect(suse?.undecidedReason).toMatch(/SUSE/);
      expect(bad?.advisories ?? []).toEqual([]);
      expect(bad?.undecided?.map((a) => a.advisoryId)).toEqual(["PYSEC-2021-108"]);
      expect(bad?.undecidedReason).toContain("not a version!");
    });

    it("refuses an empty batch, one over 1,000, and a package version missing a part, naming the field", async () => {
      const refused = async (body: unknown, field: string) => {
        const res = await viewer.post(CHECK, body);
        expect(res.status, JSON.stringify(res.body)).toBe(400);
        expect(violatedField(res.body)).toBe(field);
      };
      await refused({ packages: [] }, "packages");
      await refused(
        { packages: Array.from({ length: 1_001 }, (_, i) => ({ ecosystem: "npm", name: `p${i}`, version: "1.0.0" })) },
        "packages",
      );
      await refused({ packages: [{ ecosystem: "npm", name: "lodash", version: "" }] }, "packages[0].version");
      await refused({ packages: [packageOf("npm/lodash@1.0.0"), { ecosystem: "", name: "x", version: "1" }] }, "packages[1].ecosystem");
    });

    it("answers a batch of 1,000", async () => {
      const results = await check(
        Array.from({ length: 1_000 }, (_, i) => (i % 2 === 0 ? `npm/lodash@4.17.${i % 19}` : `PyPI/urllib3@1.26.${i % 7}`)),
      );
      expect(results).toHaveLength(1_000);
      expect(results.filter((r) => (r.advisories ?? []).length > 0).length).toBeGreaterThan(500);
    });

    it("needs advisories.list on some group", async () => {
      const res = await stranger.post(CHECK, { packages: [packageOf("npm/lodash@4.17.15")] });
      expect(res.status).toBe(403);
      expect(res.body.message).toContain("advisories.list");
    });

    it("answers the same over gRPC", async () => {
      const client = createClient(AdvisoriesService, createGrpcTransport({ baseUrl: t.url }));
      const response = await client.checkAdvisories(
        { packages: [packageOf("npm/lodash@4.17.15")] },
        { headers: { authorization: `Bearer ${viewerToken}` } },
      );
      expect(response.results[0]?.advisories.map((a) => a.advisoryId)).toEqual(["GHSA-p6mc-m468-83gw"]);
    });
  });
}

function packageOf(p: string) {
  const slash = p.indexOf("/");
  const at = p.lastIndexOf("@");
  return { ecosystem: p.slice(0, slash), name: p.slice(slash + 1, at), version: p.slice(at + 1) };
}
