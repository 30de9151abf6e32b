/**
 * The OSV checker: every fixture of the feed passes, and each malformed fixture fails with the
 * pointer and requirement that name its one defect.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createOsvChecker } from "../../src/osv/validate.js";

const FIXTURES = join(import.meta.dirname, "../fixtures/osv");
const check = createOsvChecker();
const bytes = (path: string) => readFileSync(join(FIXTURES, path));
const json = (value: unknown) => Buffer.from(JSON.stringify(value));

function files(dir: string): string[] {
  return readdirSync(join(FIXTURES, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".json"))
    .map((f) => join(dir, f));
}

describe("the OSV checker", () => {
  it.each(files("feed"))("accepts %s, shaped like a real feed's document", (path) => {
    const checked = check(bytes(path));
    expect(checked).not.toHaveProperty("problem");
    // Files are named after their id, with `:` (not portable in file names) as `-`.
    const id = (checked as { document: { id: string } }).document.id;
    expect(`${id.replaceAll(":", "-")}.json`).toBe(path.split("/").at(-1));
  });

  it.each([
    ["missing-modified.json", "document: must have required property 'modified'"],
    ["truncated.json", /^not JSON: /],
    ["two-events-in-one.json", "/affected/0/ranges/0/events/0: must have exactly one of introduced, fixed, last_affected, limit"],
    ["score-not-a-vector.json", "/severity/0/score: must be a CVSS v3.0 or v3.1 vector (CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H)"],
    ["local-time.json", "/modified: must be an RFC 3339 time in UTC with a Z suffix (2024-01-31T12:00:00Z)"],
    ["slash-in-id.json", /^\/id: must be an advisory id: /],
    ["git-range-without-repo.json", "/affected/0/ranges/0: must have required property 'repo'"],
    ["array-of-documents.json", "document: must be object"],
  ])("refuses malformed/%s: %s", (name, reason) => {
    const checked = check(bytes(`malformed/${name}`));
    expect(checked).toHaveProperty("problem");
    const problem = (checked as { problem: string }).problem;
    if (typeof reason === "string") expect(problem).toBe(reason);
    else expect(problem).toMatch(reason);
  });

  it.each([
    [
      "an unknown severity type",
      { severity: [{ type: "CVSS_V5", score: "x" }] },
      "/severity/0/type: must be equal to one of the allowed values (CVSS_V2, CVSS_V3, CVSS_V4, Ubuntu)",
    ],
    [
      "an Ubuntu priority out of its list",
      { severity: [{ type: "Ubuntu", score: "severe" }] },
      "/severity/0/score: must be negligible, low, medium, high or critical",
    ],
    [
      "a CVSS v4 score given as v3",
      { severity: [{ type: "CVSS_V4", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" }] },
      /^\/severity\/0\/score: must be a CVSS v4.0 vector/,
    ],
    [
      "a range without introduced",
      { affected: [{ ranges: [{ type: "SEMVER", events: [{ fixed: "1.0.0" }] }] }] },
      "/affected/0/ranges/0/events: must hold at least one event, one of them introduced",
    ],
    [
      "fixed with last_affected",
      { affected: [{ ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed: "2" }, { last_affected: "1" }] }] }] },
      "/affected/0/ranges/0: must not have both fixed and last_affected events",
    ],
    [
      "a reference type out of the list",
      { references: [{ type: "BLOG", url: "https://example.com" }] },
      /^\/references\/0\/type: must be equal to one of the allowed values \(ADVISORY, /,
    ],
    ["a reference URL that is no URI", { references: [{ type: "WEB", url: "not a url" }] }, '/references/0/url: must match format "uri"'],
    [
      "an empty package name",
      { affected: [{ package: { ecosystem: "npm", name: "" } }] },
      "/affected/0/package/name: must NOT have fewer than 1 characters",
    ],
    ["a NUL in a string", { summary: "a\u0000b" }, "a string holds U+0000, which the store cannot keep"],
    // Beyond what the store keeps (STORE_LIMITS): keys PostgreSQL could not index, copies that multiply.
    ["an alias over 1,024 bytes", { aliases: ["CVE-2024-1", `X-${"é".repeat(512)}`] }, "/aliases/1: must be at most 1024 bytes"],
    [
      "an ecosystem over 256 bytes",
      { affected: [{ package: { ecosystem: `Debian:${"9".repeat(250)}`, name: "linux" } }] },
      "/affected/0/package/ecosystem: must be at most 256 bytes",
    ],
    [
      "a package name over 1,024 bytes",
      { affected: [{ package: { ecosystem: "npm", name: "a" } }, { package: { ecosystem: "npm", name: "b".repeat(1_025) } }] },
      "/affected/1/package/name: must be at most 1024 bytes",
    ],
    [
      "a long summary over thousands of packages",
      {
        summary: "s".repeat(100_000),
        affected: Array.from({ length: 2_000 }, (_, i) => ({ package: { ecosystem: "npm", name: `p${i}` } })),
      },
      /^document: its aliases, summary and severity, kept with each of its 2000 packages, come to 2000\d{5} characters, more than 8000000$/,
    ],
  ])("refuses %s", (_name, extra, reason) => {
    const checked = check(json({ id: "OSV-2024-1", modified: "2024-01-01T00:00:00Z", ...extra }));
    const problem = (checked as { problem?: string }).problem;
    if (typeof reason === "string") expect(problem).toBe(reason);
    else expect(problem).toMatch(reason);
  });

  it.each([
    ["null arrays, as older feeds wrote them", { aliases: null, severity: null, affected: null, references: null }],
    ["fields the specification does not define", { x_vendor: { anything: [1, 2] } }],
    ["ids with colons and dots", { id: "SUSE-SU-2024:0001-1" }],
    ["a byte order mark", {}],
    [
      "names, ecosystems and aliases at their bounds",
      {
        aliases: ["a".repeat(1_024)],
        affected: [{ package: { ecosystem: "e".repeat(256), name: "€".repeat(341) } }],
      },
    ],
    [
      "a thousand packages under a summary of a thousand characters",
      {
        summary: "s".repeat(1_000),
        aliases: ["CVE-2024-1", "GHSA-xxxx-xxxx-xxxx"],
        affected: Array.from({ length: 1_000 }, (_, i) => ({ package: { ecosystem: "Debian:12", name: `p${i}` } })),
      },
    ],
  ])("accepts %s", (name, extra) => {
    const text = JSON.stringify({ id: "OSV-2024-1", modified: "2024-01-01T00:00:00.5Z", ...extra });
    const checked = check(Buffer.from(name.includes("byte order") ? `\ufeff${text}` : text));
    expect(checked).not.toHaveProperty("problem");
  });

  it("refuses bytes that are not UTF-8", () => {
    expect(check(Buffer.from([0x7b, 0xff, 0x7d]))).toEqual({ problem: "not UTF-8 text" });
  });
});
