/**
 * A generated corpus of advisories for the store's correctness tables (test/store/advisory-scale):
 * skewed ecosystems with and without releases, several packages of one ecosystem in a document,
 * shared aliases, summaries holding LIKE's and GLOB's wildcards, and a reference that answers
 * every filter straight from the documents, as the substring rule and the package rule say.
 */
import { advisoryIndex, advisoryVersion, type AdvisoryFilter, type AdvisoryVersion } from "../../src/domain/advisories.js";
import type { OsvDocument } from "../../src/domain/osv.js";

const ECOSYSTEMS = ["npm", "npm", "npm", "PyPI", "PyPI", "Go", "Debian:11", "Debian:12", "Ubuntu:22.04:LTS", "crates.io", "Alpine:v3.18"];
const WORDS = [
  "injection",
  "xss",
  "overflow",
  "in",
  "100%_sure",
  "a*b?[c]",
  "déjà vu",
  "traversal",
  "Prototype Pollution",
  'say "NEAR" or',
];

/** The i-th document, `version` moving it to other packages, aliases and words. */
export function corpusDocument(i: number, version = 0): AdvisoryVersion {
  const v = i + version * 7;
  const packages = 1 + (v % 4);
  const affected = Array.from({ length: packages }, (_, p) => {
    // Packages 0 and 1 often share an ecosystem: one advisory, two npm packages, counts once.
    const ecosystem = ECOSYSTEMS[(v + (p === 1 ? 0 : p) * 3) % ECOSYSTEMS.length] ?? "npm";
    return {
      package: { ecosystem, name: `pkg-${(v * 13 + p) % 97}` },
      ranges: [{ type: "ECOSYSTEM" as const, events: [{ introduced: "0" }] }],
    };
  });
  const document: OsvDocument = {
    id: `OSV-${String(i).padStart(5, "0")}`,
    modified: new Date(Date.UTC(2024, 0, 1) + (v % 400) * 86_400_000 + version * 1000).toISOString(),
    ...(v % 5 !== 0 && { published: new Date(Date.UTC(2023, 0, 1) + (v % 300) * 86_400_000).toISOString() }),
    aliases: [`CVE-2024-${v % 1500}`, ...(v % 3 === 0 ? [`GHSA-${v % 40}`] : [])],
    summary: `${WORDS[v % WORDS.length]} and ${WORDS[(v * 5) % WORDS.length]} #${v}`,
    affected,
  } as OsvDocument;
  if (v % 11 === 0) (document as { withdrawn?: string }).withdrawn = document.modified;
  return advisoryVersion(document);
}

/** Whether a document matches a filter, read straight from it. */
export function matchesFilter(version: AdvisoryVersion, filter: AdvisoryFilter): boolean {
  const index = advisoryIndex(version.document);
  if (filter.ids !== undefined && !filter.ids.includes(version.uid)) return false;
  if (filter.aliases !== undefined && !index.aliases.some((a) => filter.aliases?.includes(a))) return false;
  if (filter.ecosystem !== undefined || filter.packageName !== undefined) {
    const hit = index.packages.some(
      (p) =>
        (filter.ecosystem === undefined || (filter.ecosystem.includes(":") ? p.ecosystem : p.ecosystemBase) === filter.ecosystem) &&
        (filter.packageName === undefined || p.name === filter.packageName),
    );
    if (!hit) return false;
  }
  if (filter.query !== undefined && !index.search.includes(filter.query)) return false;
  if (filter.modifiedSince !== undefined && version.modifiedTime < filter.modifiedSince) return false;
  return true;
}

/** Every filter the tables run: each alone, and combinations. */
export const CORPUS_FILTERS: [string, AdvisoryFilter][] = [
  ["none", {}],
  ["ecosystem npm", { ecosystem: "npm" }],
  ["ecosystem Debian (every release)", { ecosystem: "Debian" }],
  ["ecosystem Debian:12", { ecosystem: "Debian:12" }],
  ["ecosystem Ubuntu:22.04:LTS", { ecosystem: "Ubuntu:22.04:LTS" }],
  ["ecosystem unknown", { ecosystem: "Hackage" }],
  ["package name", { packageName: "pkg-5" }],
  ["ecosystem and package name", { ecosystem: "npm", packageName: "pkg-5" }],
  ["ecosystem with release and package name", { ecosystem: "Debian:12", packageName: "pkg-40" }],
  ["aliases", { aliases: ["CVE-2024-7", "GHSA-3", "CVE-2024-1499"] }],
  ["ids", { ids: ["OSV-00001", "OSV-00500", "OSV-02999", "OSV-99999"] }],
  ["query, frequent", { query: "injection" }],
  ["query, rare", { query: "#1234" }],
  ["query, short (no trigram)", { query: "in" }],
  ["query, one character", { query: "x" }],
  ["query, LIKE's wildcards literal", { query: "100%_" }],
  ["query, % is no wildcard", { query: "100%sure" }],
  ["query, GLOB's wildcards literal", { query: "a*b?[c]" }],
  ["query, * is no wildcard", { query: "a*c" }],
  ["query, non-ASCII", { query: "déjà" }],
  ["query, FTS5's syntax literal", { query: 'y "near" or and' }],
  ["query, a double quote", { query: '"' }],
  ["query, punctuation alone (no trigram), held by every advisory", { query: "-" }],
  ["query, punctuation alone (no trigram), held by none", { query: "%_~" }],
  ["ecosystem and a query with no trigram", { ecosystem: "npm", query: "in" }],
  ["query, spaces", { query: "n and i" }],
  ["query over ids and aliases", { query: "cve-2024-12" }],
  ["query over package names", { query: "pkg-9" }],
  ["modified since", { modifiedSince: Date.UTC(2024, 6, 1) }],
  ["ecosystem and query", { ecosystem: "npm", query: "xss" }],
  ["package name and modified since", { packageName: "pkg-5", modifiedSince: Date.UTC(2024, 3, 1) }],
  ["aliases and ecosystem", { aliases: ["CVE-2024-7", "CVE-2024-8", "GHSA-3"], ecosystem: "PyPI" }],
  ["ids and query", { ids: ["OSV-00001", "OSV-00002", "OSV-00009"], query: "in" }],
  ["everything", { ecosystem: "npm", packageName: "pkg-5", query: "#", modifiedSince: 0 }],
];
