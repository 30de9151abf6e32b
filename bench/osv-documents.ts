/**
 * Generated OSV documents for the import benchmark, shaped like a real feed's mix: GitHub-style
 * advisories with CVE aliases over npm, PyPI, Maven and Go packages, Go and PyPI database
 * records, a few affected packages each, ranges, severities and references. Deterministic, so
 * runs compare.
 */
import { writeFile } from "node:fs/promises";
import { zipOf } from "./zip-writer.js";

const ECOSYSTEMS = ["npm", "PyPI", "Maven", "Go", "crates.io", "Debian:12"] as const;
const WORDS = [
  "prototype",
  "pollution",
  "injection",
  "overflow",
  "traversal",
  "denial",
  "service",
  "request",
  "smuggling",
  "deserialization",
];

/** The i-th document. */
export function osvDocument(i: number): object {
  const n = String(i).padStart(6, "0");
  const kind = i % 10;
  const id = kind < 7 ? `GHSA-${n.slice(0, 4)}-${n.slice(2)}-b${n.slice(3)}` : kind < 9 ? `GO-2024-${n}` : `PYSEC-2024-${i}`;
  const packages = 1 + (i % 3);
  const day = String(1 + (i % 28)).padStart(2, "0");
  return {
    schema_version: "1.6.0",
    id,
    modified: `2024-0${1 + (i % 9)}-${day}T12:${String(i % 60).padStart(2, "0")}:00Z`,
    published: `2023-0${1 + (i % 9)}-${day}T08:00:00Z`,
    aliases: [`CVE-2024-${n}`, ...(kind >= 7 ? [`GHSA-zz${n.slice(0, 2)}-${n.slice(2)}-9999`] : [])],
    summary: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} in package-${i % 5000}`,
    details: `A generated advisory number ${i}. `.repeat(8),
    severity: [{ type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" }],
    affected: Array.from({ length: packages }, (_, p) => {
      const ecosystem = ECOSYSTEMS[(i + p) % ECOSYSTEMS.length] as string;
      return {
        package: { ecosystem, name: `package-${(i + p * 31) % 5000}` },
        ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: `${1 + (i % 9)}.${p}.${i % 13}` }] }],
        database_specific: { source: `https://example.com/advisories/${id}.json` },
      };
    }),
    references: [
      { type: "ADVISORY", url: `https://nvd.nist.gov/vuln/detail/CVE-2024-${n}` },
      { type: "FIX", url: `https://github.com/example/package-${i % 5000}/commit/${n}abcdef` },
      { type: "PACKAGE", url: `https://github.com/example/package-${i % 5000}` },
    ],
    database_specific: { cwe_ids: ["CWE-79"], severity: "HIGH", github_reviewed: true },
  };
}

/** Writes count documents to a zip archive at path, one deflated JSON file each, as OSV's all.zip holds them. */
export async function writeOsvArchive(path: string, count: number): Promise<void> {
  const entries = Array.from({ length: count }, (_, i) => {
    const doc = osvDocument(i) as { id: string };
    return { name: `${doc.id}.json`, data: Buffer.from(JSON.stringify(doc, null, 2)) };
  });
  await writeFile(path, zipOf(entries));
}
