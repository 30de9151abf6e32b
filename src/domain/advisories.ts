/**
 * Advisories (DESIGN 1.10): OSV documents as Arbor keeps them, what may be sorted and filtered,
 * and the rule of re-import (a newer `modified` replaces, an equal or older one is ignored).
 */
import { invalidArgument } from "./errors.js";
import { MAX_FILTER_IDS } from "./hierarchy.js";
import type { Sortable } from "./list.js";
import { osvTimeMs, type OsvAffected, type OsvDocument, type OsvSeverity } from "./osv.js";

/** One version of an advisory, as an OSV document gives it. Times are milliseconds since the epoch. */
export interface AdvisoryVersion {
  /** The OSV id, which is the uid (DESIGN 1.2). */
  uid: string;
  modifiedTime: number;
  /** The published time, or the modified time when the document has none (its sort key). */
  publishedTime: number;
  /** The document as imported. */
  document: OsvDocument;
  /** A hash of the document's bytes as imported, when it came from bytes (an import's). */
  contentHash?: string;
}

/** An advisory as the store keeps it: its newest version, and when Arbor first stored the advisory. */
export interface AdvisoryRecord extends AdvisoryVersion {
  /** When the first version of the advisory was stored; newer versions keep it. */
  createTime: number;
}

/** An affected package, as the package filter matches it. */
export interface AdvisoryPackage {
  ecosystem: string;
  /** The ecosystem without its release suffix (`Debian` for `Debian:12`). */
  ecosystemBase: string;
  name: string;
  /** The advisory as a check of this package reads it, as JSON (a CheckedPackage). */
  checked: string;
}

/**
 * What a check of one package version reads of an advisory (migration 0024): the affected
 * entries naming the package, cut to what their evaluation reads, and the advisory's fields an
 * answer carries. Kept beside the package row, so a check parses a few hundred bytes per
 * package an advisory names instead of the whole document.
 */
export interface CheckedPackage {
  aliases?: string[] | null;
  summary?: string;
  severity?: OsvSeverity[] | null;
  withdrawn?: string;
  affected: OsvAffected[];
}

/**
 * The CheckedPackage of each package the document names, as JSON, by `ecosystem\nname`: the
 * entries grouped in one pass, the advisory's own fields serialized once for all of them.
 */
export function checkedPackages(document: OsvDocument): Map<string, string> {
  const entries = new Map<string, OsvAffected[]>();
  for (const a of document.affected ?? []) {
    if (a.package === undefined) continue;
    const { ecosystem, name } = a.package;
    const k = `${ecosystem}\n${name}`;
    const entry: OsvAffected = {
      package: { ecosystem, name },
      ...(a.severity != null && { severity: a.severity }),
      ...(a.ranges !== undefined && { ranges: a.ranges.map((r) => ({ type: r.type, events: r.events })) }),
      ...(a.versions !== undefined && { versions: a.versions }),
    };
    const list = entries.get(k);
    if (list === undefined) entries.set(k, [entry]);
    else list.push(entry);
  }
  const own: Omit<CheckedPackage, "affected"> = {
    ...(document.aliases != null && document.aliases.length > 0 && { aliases: document.aliases }),
    ...(document.summary !== undefined && { summary: document.summary }),
    ...(document.severity != null && document.severity.length > 0 && { severity: document.severity }),
    ...(document.withdrawn !== undefined && { withdrawn: document.withdrawn }),
  };
  const head = JSON.stringify(own).slice(0, -1) + (Object.keys(own).length > 0 ? "," : "") + '"affected":';
  const out = new Map<string, string>();
  for (const [k, list] of entries) out.set(k, `${head}${JSON.stringify(list)}}`);
  return out;
}

/** What the filters search in an advisory, derived from its document. */
export interface AdvisoryIndex {
  aliases: string[];
  packages: AdvisoryPackage[];
  /** The id, aliases, package names and summary, one per line, lowercased and folded (searchFold), for `query`. */
  search: string;
}

/**
 * A version as the store writes it: the document serialized and its index derived, so that what
 * costs JavaScript time can run in one thread and the writing in another (an import's writer
 * thread, src/store/advisory-write-worker.ts), and a batch crosses between them as strings.
 */
export interface PreparedAdvisory {
  uid: string;
  modifiedTime: number;
  publishedTime: number;
  contentHash?: string;
  /** The document as JSON. */
  documentText: string;
  index: AdvisoryIndex;
}

/** The version as the store writes it. */
export function prepareAdvisory(version: AdvisoryVersion): PreparedAdvisory {
  return {
    uid: version.uid,
    modifiedTime: version.modifiedTime,
    publishedTime: version.publishedTime,
    ...(version.contentHash !== undefined && { contentHash: version.contentHash }),
    documentText: JSON.stringify(version.document),
    index: advisoryIndex(version.document),
  };
}

/**
 * The characters that SQLite's FTS5 trigram tokenizer folds into another, of those lowercasing
 * leaves as they are: Unicode's case folding (`ſ` is an `s`, `µ` the letter `μ`, a final `ς` a
 * `σ`), and two noncharacters. Found by indexing every such code point (2026-11-27).
 */
const FOLDS: Readonly<Record<string, string>> = {
  "\u017f": "s",
  "\u03d0": "\u03b2",
  "\u03f5": "\u03b5",
  "\u03d1": "\u03b8",
  "\u0345": "\u03b9",
  "\u1fbe": "\u03b9",
  "\u03f0": "\u03ba",
  "\u00b5": "\u03bc",
  "\u03d6": "\u03c0",
  "\u03f1": "\u03c1",
  "\u03c2": "\u03c3",
  "\u03d5": "\u03c6",
  "\u1e9b": "\u1e61",
  "\ufffe": "\ufffd",
  "\uffff": "\ufffd",
};
const FOLDED = new RegExp(`[${Object.keys(FOLDS).join("")}]`, "g");

/**
 * A text as `query` compares it: lowercased, then folded as FTS5 folds it (FOLDS). The stored
 * search text and the query both go through it, so that SQLite's phrase, its GLOB and `instr`
 * tests and PostgreSQL's LIKE all compare the same characters. Without the fold, a query of
 * `miſuſe` was counted 6,000 matches by the phrase (which reads `misuse`) while the page's
 * walk, testing the texts, listed none.
 */
export function searchFold(text: string): string {
  return text.toLowerCase().replace(FOLDED, (c) => FOLDS[c] ?? c);
}

/** The shape of an advisory id: it is a uid, so it must sit in a URL path as it is. */
export const ADVISORY_ID = /^[A-Za-z0-9][A-Za-z0-9._:+-]{0,254}$/;

/** The longest `query`. */
export const MAX_QUERY_LENGTH = 256;

/** The version a document that passed the OSV schema is. */
export function advisoryVersion(document: OsvDocument): AdvisoryVersion {
  const modifiedTime = osvTimeMs(document.modified);
  const publishedTime = document.published === undefined ? modifiedTime : osvTimeMs(document.published);
  return { uid: document.id, modifiedTime, publishedTime, document };
}

/** Whether an incoming version replaces a stored one: only a strictly newer `modified` does. */
export function replaces(incoming: { modifiedTime: number }, stored: { modifiedTime: number }): boolean {
  return incoming.modifiedTime > stored.modifiedTime;
}

/** The index of a document: its aliases, its packages (each once), and its search text. */
export function advisoryIndex(document: OsvDocument): AdvisoryIndex {
  const aliases = [...new Set(document.aliases ?? [])];
  const packages = new Map<string, AdvisoryPackage>();
  const checked = checkedPackages(document);
  for (const a of document.affected ?? []) {
    if (a.package === undefined) continue;
    const { ecosystem, name } = a.package;
    const k = `${ecosystem}\n${name}`;
    if (!packages.has(k)) packages.set(k, { ecosystem, ecosystemBase: ecosystemBase(ecosystem), name, checked: checked.get(k) ?? "" });
  }
  const names = [...new Set([...packages.values()].map((p) => p.name))];
  const search = searchFold([document.id, ...aliases, ...names, document.summary ?? ""].join("\n"));
  return { aliases, packages: [...packages.values()], search };
}

/** The ecosystem without its release suffix: `Debian:12` is `Debian`, `npm` is `npm`. */
export function ecosystemBase(ecosystem: string): string {
  const colon = ecosystem.indexOf(":");
  return colon < 0 ? ecosystem : ecosystem.slice(0, colon);
}

/** Sortable fields of advisories; default order by advisory id (DESIGN 1.4). */
export const advisorySortable: Sortable = {
  fields: {
    advisory_id: "uid",
    advisoryId: "uid",
    id: "uid",
    uid: "uid",
    modified_time: "modified_time",
    modifiedTime: "modified_time",
    modified: "modified_time",
    published_time: "published_time",
    publishedTime: "published_time",
    published: "published_time",
  },
  defaultOrder: [{ field: "uid", desc: false }],
};

/** The value of an advisory's sort field. */
export function advisorySortValue(record: AdvisoryVersion, field: string): string | number {
  switch (field) {
    case "uid":
      return record.uid;
    case "modified_time":
      return record.modifiedTime;
    case "published_time":
      return record.publishedTime;
    default:
      throw new RangeError(`advisories are not sortable by ${field}`);
  }
}

/** An advisories query; every present member narrows the result (AND). */
export interface AdvisoryFilter {
  /** One of these ids. */
  ids?: string[];
  /** Listing one of these aliases. */
  aliases?: string[];
  /** Affecting a package of this ecosystem: exact when it has a `:`, else by its base. */
  ecosystem?: string;
  /** Affecting a package of this name (of the ecosystem, when both are given). */
  packageName?: string;
  /** Lowercased substring of the search text. */
  query?: string;
  /** Modified at or after this time. */
  modifiedSince?: number;
}

/**
 * The kept count (migrations 0022, 0025, 0029) that is a filter's total, or undefined when its
 * matches must be counted: '' for no filter, 'base:<ecosystem>' or 'eco:<ecosystem:release>' for
 * an ecosystem alone, 'name:<package name>' for a package name alone, and
 * 'pkg:<n>:<ecosystem>:<package name>' for both, n the ecosystem's length in characters (both may
 * hold `:`, so the length says where the ecosystem ends).
 */
export function advisoryCountKey(filter: AdvisoryFilter): string | undefined {
  const { ecosystem, packageName, ...rest } = filter;
  if (Object.values(rest).some((v) => v !== undefined)) return undefined;
  if (packageName !== undefined) {
    // Characters as the engines' length() counts them: code points, not UTF-16 units.
    return ecosystem === undefined ? `name:${packageName}` : `pkg:${[...ecosystem].length}:${ecosystem}:${packageName}`;
  }
  if (ecosystem === undefined) return "";
  return ecosystem.includes(":") ? `eco:${ecosystem}` : `base:${ecosystem}`;
}

/** The filters of a list request, as it carries them. */
export interface AdvisoryFilterInput {
  advisoryIds: readonly string[];
  aliases: readonly string[];
  ecosystem: string;
  packageName: string;
  query: string;
  modifiedSinceMs: number | undefined;
}

/** Validates a request's filters and normalises them for the store. */
export function advisoryFilter(input: AdvisoryFilterInput): AdvisoryFilter {
  const out: AdvisoryFilter = {};
  if (input.advisoryIds.length > 0) {
    const ids = limited("advisory_ids", input.advisoryIds);
    for (const id of ids) if (!ADVISORY_ID.test(id)) throw invalidArgument("advisory_ids", `"${clip(id)}" is not an advisory id`);
    out.ids = ids;
  }
  if (input.aliases.length > 0) {
    const aliases = limited("aliases", input.aliases);
    if (aliases.some((a) => a === "")) throw invalidArgument("aliases", "must not be empty");
    out.aliases = aliases;
  }
  if (input.ecosystem !== "") out.ecosystem = input.ecosystem;
  if (input.packageName !== "") out.packageName = input.packageName;
  if (input.query !== "") {
    if (input.query.length > MAX_QUERY_LENGTH) throw invalidArgument("query", `must be at most ${MAX_QUERY_LENGTH} characters`);
    out.query = searchFold(input.query);
  }
  if (input.modifiedSinceMs !== undefined) out.modifiedSince = input.modifiedSinceMs;
  return out;
}

function limited(field: string, values: readonly string[]): string[] {
  if (values.length > MAX_FILTER_IDS) throw invalidArgument(field, `at most ${MAX_FILTER_IDS} values may be given`);
  return [...new Set(values)].sort();
}

function clip(s: string): string {
  return s.length > 64 ? `${s.slice(0, 64)}...` : s;
}
