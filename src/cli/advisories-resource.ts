/**
 * Advisories as `arbor advisories list` and `get` see them (AdvisoriesService): global, read-only,
 * named by their advisory id (which is also their uid).
 */
import { AdvisoriesService } from "../gen/arbor/vulnerabilities/v2beta1/advisories_pb.js";
import { fieldColumn, timeColumn } from "./output/cells.js";
import { timestamp } from "./resource/parsers.js";
import { resourceSpec } from "./resource/spec.js";

/** Advisories as commands see them. */
export const ADVISORIES = resourceSpec({
  noun: "advisories",
  singular: "advisory",
  service: AdvisoriesService,
  listRpc: "listAdvisories",
  items: "advisories",
  named: false,
  scope: "subtree",
  hierarchical: false,
  description: "vulnerability advisories (OSV documents)",
  rpcs: { get: "getAdvisory" },
  body: "advisory",
  columns: [
    fieldColumn("ID", "advisoryId"),
    fieldColumn("ALIASES", "aliases", 1),
    timeColumn("MODIFIED", "modifiedTime"),
    fieldColumn("SUMMARY", "summary"),
  ],
  filters: [
    { flags: "--id <ids>", path: "advisoryIds", help: "only these advisory ids", shape: "list" },
    { flags: "--alias <ids>", path: "aliases", help: "only advisories with one of these aliases (CVE ids, ...)", shape: "list" },
    { flags: "--ecosystem <name>", path: "ecosystem", help: "only advisories affecting a package of this ecosystem (npm, PyPI, ...)" },
    { flags: "--package <name>", path: "packageName", help: "only advisories affecting this package" },
    {
      flags: "--query <text>",
      path: "query",
      help: "only advisories whose id, an alias, a package name or the summary contains this text (any case)",
    },
    {
      flags: "--modified-since <time>",
      path: "modifiedSince",
      help: "only advisories modified at or after this time (RFC 3339)",
      parse: timestamp("--modified-since"),
    },
  ],
  defaultScoped: false,
  createsNamed: false,
  examples: {
    list: [
      "arbor advisories list --ecosystem npm --package lodash",
      "arbor advisories list --alias CVE-2021-23337 -o json",
      "arbor advisories list --modified-since 2026-01-01T00:00:00Z --all -o id",
    ],
    get: ["arbor advisories get GHSA-jf85-cpcp-j695", "arbor advisories get GHSA-jf85-cpcp-j695 -o json | jq .affected"],
  },
});
