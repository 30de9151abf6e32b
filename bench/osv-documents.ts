/**
 * Generated OSV documents for the advisory benchmark, shaped like all of OSV: ecosystems as
 * skewed as OSV's (the Linux distributions and npm/PyPI hold most advisories, a long tail holds a
 * few each), distribution ecosystems named with their releases (`Debian:12`,
 * `Ubuntu:22.04:LTS`), 1 to 30 affected packages (mostly one to three; a distribution advisory
 * may list many binary packages or releases), package popularity skewed (a few packages such as
 * `linux` or `chromium` carry thousands of advisories), CVE and GHSA aliases, summaries over a
 * vocabulary whose words are common or rare as in real summaries, details of 500 to 3,000
 * characters, and 2 % withdrawn. Deterministic (a PRNG seeded by the document's number), so runs
 * compare.
 */
import { writeZipFile } from "./zip-writer.js";

/** Ecosystems with their share of OSV's advisories (weights) and their releases, if any. */
const ECOSYSTEMS: { name: string; weight: number; releases?: string[]; prefix: string }[] = [
  { name: "Debian", weight: 18, releases: ["10", "11", "12", "13"], prefix: "DEBIAN-CVE" },
  { name: "Ubuntu", weight: 15, releases: ["20.04:LTS", "22.04:LTS", "24.04:LTS", "Pro:18.04:LTS"], prefix: "UBUNTU-CVE" },
  { name: "npm", weight: 12, prefix: "GHSA" },
  { name: "SUSE", weight: 7, releases: ["Linux Enterprise Server 15 SP5", "Linux Enterprise Desktop 15 SP6"], prefix: "SUSE-SU" },
  { name: "openSUSE", weight: 5, releases: ["Leap 15.5", "Tumbleweed"], prefix: "openSUSE-SU" },
  { name: "PyPI", weight: 8, prefix: "PYSEC" },
  { name: "Alpine", weight: 7, releases: ["v3.18", "v3.19", "v3.20"], prefix: "ALPINE-CVE" },
  { name: "Red Hat", weight: 6, releases: ["enterprise_linux:9::appstream", "enterprise_linux:8::baseos"], prefix: "RHSA" },
  { name: "Maven", weight: 4, prefix: "GHSA" },
  { name: "Go", weight: 3, prefix: "GO" },
  { name: "Linux", weight: 3, prefix: "CVE" },
  { name: "Packagist", weight: 2, prefix: "GHSA" },
  { name: "RubyGems", weight: 1.5, prefix: "GHSA" },
  { name: "crates.io", weight: 1.5, prefix: "RUSTSEC" },
  { name: "NuGet", weight: 1, prefix: "GHSA" },
  { name: "OSS-Fuzz", weight: 1, prefix: "OSV" },
  { name: "Wolfi", weight: 1, prefix: "CGA" },
  { name: "Chainguard", weight: 1, prefix: "CGA" },
  { name: "Hex", weight: 0.5, prefix: "GHSA" },
  { name: "Pub", weight: 0.3, prefix: "GHSA" },
  { name: "Hackage", weight: 0.2, prefix: "HSEC" },
];
const TOTAL_WEIGHT = ECOSYSTEMS.reduce((n, e) => n + e.weight, 0);

/** Packages per ecosystem; the first few are the popular ones. */
const PACKAGES = 3_000;
const POPULAR = ["linux", "chromium", "firefox", "openssl", "tensorflow", "imagemagick", "php", "mysql", "qemu", "curl"];

/** Summary words, common ones first: the k-th is drawn with weight 1/(k+1). */
const WORDS = [
  "vulnerability",
  "in",
  "allows",
  "remote",
  "attackers",
  "denial",
  "of",
  "service",
  "via",
  "crafted",
  "injection",
  "cross-site",
  "scripting",
  "overflow",
  "buffer",
  "memory",
  "prototype",
  "pollution",
  "traversal",
  "path",
  "request",
  "forgery",
  "deserialization",
  "arbitrary",
  "code",
  "execution",
  "privilege",
  "escalation",
  "bypass",
  "authentication",
  "leak",
  "use-after-free",
  "null",
  "pointer",
  "dereference",
  "integer",
  "race",
  "condition",
  "smuggling",
  "redirect",
  "timing",
  "side-channel",
  "regex",
  "ReDoS",
  "sandbox",
  "escape",
  "signature",
  "verification",
  "certificate",
  "validation",
  "symlink",
  "xml",
  "external",
  "entity",
];

/** A small PRNG (mulberry32): the same sequence for the same seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An index below n, index k drawn with weight about 1/(k+1) (Zipf). */
function zipf(r: () => number, n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(r() * Math.log(n + 1)) - 1));
}

function pick<T>(r: () => number, items: readonly T[]): T {
  return items[Math.floor(r() * items.length)] as T;
}

function ecosystemOf(r: () => number): (typeof ECOSYSTEMS)[number] {
  let x = r() * TOTAL_WEIGHT;
  for (const e of ECOSYSTEMS) if ((x -= e.weight) < 0) return e;
  return ECOSYSTEMS[0] as (typeof ECOSYSTEMS)[number];
}

function packageName(r: () => number): string {
  const k = zipf(r, PACKAGES);
  return k < POPULAR.length ? (POPULAR[k] as string) : `package-${k}`;
}

function words(r: () => number, n: number): string {
  return Array.from({ length: n }, () => WORDS[zipf(r, WORDS.length)]).join(" ");
}

/** The i-th document. */
export function osvDocument(i: number): object {
  const r = random(i * 2654435761 + 1);
  const home = ecosystemOf(r);
  const n = String(i).padStart(7, "0");
  const id = home.prefix === "GHSA" ? `GHSA-${n.slice(0, 4)}-${n.slice(3)}-x${n.slice(4)}` : `${home.prefix}-${2014 + (i % 11)}-${n}`;
  // Mostly one to three packages; a tail to 30, as a distribution advisory over many binaries.
  const count = 1 + Math.floor(29 * r() ** 6);
  const name = packageName(r);
  const affected = Array.from({ length: count }, (_, p) => {
    const release = home.releases === undefined ? undefined : home.releases[p % home.releases.length];
    const ecosystem = release === undefined ? home.name : `${home.name}:${release}`;
    // Each release repeats the package; beyond the releases, more packages (binaries, dependants).
    const pkg =
      p < (home.releases?.length ?? 1)
        ? name
        : p % 2 === 0
          ? `${name}-${pick(r, ["dev", "doc", "libs", "tools", "common"])}`
          : packageName(r);
    return {
      package: { ecosystem, name: pkg },
      ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: `${1 + (i % 9)}.${p}.${i % 13}` }] }],
      ...(r() < 0.3 && { versions: Array.from({ length: 1 + Math.floor(r() * 8) }, (_, v) => `${1 + (i % 9)}.${p}.${v}`) }),
    };
  });
  const modifiedDay = Math.floor(r() * 3650);
  const modified = new Date(Date.UTC(2015, 0, 1) + modifiedDay * 86_400_000 + (i % 86_400) * 1000).toISOString().replace(".000Z", "Z");
  const published = new Date(Date.UTC(2014, 0, 1) + Math.floor(r() * modifiedDay + 365) * 86_400_000).toISOString().replace(".000Z", "Z");
  const aliases = r() < 0.85 ? [`CVE-${2014 + (i % 11)}-${10_000 + (i % 90_000)}`] : [];
  if (home.prefix !== "GHSA" && r() < 0.25) aliases.push(`GHSA-${n.slice(2, 6)}-${n.slice(1, 5)}-y${n.slice(4)}`);
  return {
    schema_version: "1.6.0",
    id,
    modified,
    published,
    ...(r() < 0.02 && { withdrawn: modified }),
    ...(aliases.length > 0 && { aliases }),
    summary: `${words(r, 3 + Math.floor(r() * 8))} in ${name}`,
    details: words(r, 80 + Math.floor(r() * 420)),
    severity: [{ type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" }],
    affected,
    references: [
      { type: "ADVISORY", url: `https://nvd.nist.gov/vuln/detail/${aliases[0] ?? id}` },
      { type: "FIX", url: `https://github.com/example/${name}/commit/${n}abcdef` },
      { type: "PACKAGE", url: `https://github.com/example/${name}` },
    ],
    database_specific: { cwe_ids: ["CWE-79"], severity: "HIGH" },
  };
}

/** Writes count documents to a zip archive at path, one deflated JSON file each, as OSV's all.zip holds them. */
export async function writeOsvArchive(path: string, count: number): Promise<void> {
  await writeZipFile(
    path,
    (function* () {
      for (let i = 0; i < count; i++) {
        const doc = osvDocument(i) as { id: string };
        yield { name: `${doc.id}.json`, data: Buffer.from(JSON.stringify(doc, null, 2)) };
      }
    })(),
  );
}
