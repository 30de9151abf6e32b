/**
 * Checks documents against the OSV schema vendored in schemas/ (see schemas/README.md), and says
 * in one line why one fails: the JSON pointer of the offending value and what it must be.
 */
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import schema from "../../schemas/osv-schema.json" with { type: "json" };
import type { OsvDocument } from "../domain/osv.js";

/** A document's text parsed and checked: the document, or why it is not one. */
export type Checked = { document: OsvDocument } | { problem: string };

/** Parses and validates one OSV document's bytes. */
export type OsvChecker = (bytes: Uint8Array) => Checked;

/** Compiles the schema once; the checker is then cheap per document. */
export function createOsvChecker(): OsvChecker {
  // strictTypes and strictRequired want each if/then branch to repeat its types and properties,
  // which JSON Schema does not ask; the other strict checks (unknown keywords, ...) stay on.
  const ajv = new Ajv2020({ allErrors: false, verbose: true, strict: true, strictTypes: false, strictRequired: false });
  addFormats.default(ajv, ["date-time", "uri"]);
  const validate = ajv.compile<OsvDocument>(schema);
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  return (bytes) => {
    let text: string;
    let value: unknown;
    try {
      text = decoder.decode(bytes);
      value = JSON.parse(text);
    } catch (e) {
      return { problem: e instanceof TypeError ? "not UTF-8 text" : `not JSON: ${(e as Error).message}` };
    }
    if (!validate(value)) return { problem: describe(validate.errors ?? []) };
    // PostgreSQL text cannot hold U+0000; JSON can only carry it escaped, so most documents skip the walk.
    if (text.includes("\\u0000") && holdsNul(value)) return { problem: "a string holds U+0000, which the store cannot keep" };
    const beyond = beyondStoreLimits(value);
    if (beyond !== undefined) return { problem: beyond };
    return { document: value };
  };
}

/** The first error, as `<pointer>: <requirement>`, preferring the schema's own words. */
function describe(errors: readonly ErrorObject[]): string {
  const first = errors[0];
  if (first === undefined) return "does not match the OSV schema";
  const at = first.instancePath === "" ? "document" : first.instancePath;
  const parent = first.parentSchema as { description?: string } | undefined;
  if (parent !== undefined && parent !== schema && typeof parent.description === "string" && parent.description.startsWith("must ")) {
    return `${at}: ${parent.description}`;
  }
  const allowed = (first.params as { allowedValues?: unknown[] }).allowedValues;
  const suffix = Array.isArray(allowed) ? ` (${allowed.join(", ")})` : "";
  return `${at}: ${first.message ?? "is not valid"}${suffix}`;
}

/**
 * What the store can keep of a document that passed the schema, which bounds neither:
 * - An alias, an ecosystem or a package name becomes the key of an index and of a kept count
 *   (`name:<name>`, `pkg:<n>:<ecosystem>:<name>`). PostgreSQL refuses a B-tree entry over 2,704
 *   bytes, and a first bulk import builds those keys only at its end (src/store/advisory-deferred.ts),
 *   where one entry too long would fail every later start of the store. These bounds keep the
 *   longest key (`pkg:` with an ecosystem of 256 bytes and a name of 1,024) near half that; real
 *   names are under 300 bytes (npm allows 214).
 * - Each package a document names is kept with a copy of the advisory's aliases, summary,
 *   severity and withdrawn time (checkedPackages, src/domain/advisories.ts, which `advisories:check`
 *   reads). A long summary over thousands of packages would multiply into gigabytes from a
 *   document of a megabyte, so those copies are bounded together.
 */
export const STORE_LIMITS = { aliasBytes: 1_024, ecosystemBytes: 256, nameBytes: 1_024, copiedChars: 8_000_000 } as const;

/** Why a document exceeds STORE_LIMITS, or undefined when it does not. */
export function beyondStoreLimits(document: OsvDocument): string | undefined {
  for (const [i, alias] of (document.aliases ?? []).entries()) {
    if (bytes(alias) > STORE_LIMITS.aliasBytes) return `/aliases/${i}: must be at most ${STORE_LIMITS.aliasBytes} bytes`;
  }
  const packages = new Set<string>();
  for (const [i, a] of (document.affected ?? []).entries()) {
    if (a.package === undefined) continue;
    const { ecosystem, name } = a.package;
    if (bytes(ecosystem) > STORE_LIMITS.ecosystemBytes) {
      return `/affected/${i}/package/ecosystem: must be at most ${STORE_LIMITS.ecosystemBytes} bytes`;
    }
    if (bytes(name) > STORE_LIMITS.nameBytes) return `/affected/${i}/package/name: must be at most ${STORE_LIMITS.nameBytes} bytes`;
    packages.add(`${ecosystem}\n${name}`);
  }
  const { aliases, summary, severity, withdrawn } = document;
  const copied = JSON.stringify({ aliases, summary, severity, withdrawn }).length * packages.size;
  if (copied > STORE_LIMITS.copiedChars) {
    return (
      `document: its aliases, summary and severity, kept with each of its ${packages.size} packages, come to ${copied} characters, ` +
      `more than ${STORE_LIMITS.copiedChars}`
    );
  }
  return undefined;
}

function holdsNul(value: unknown): boolean {
  if (typeof value === "string") return value.includes("\u0000");
  if (Array.isArray(value)) return value.some(holdsNul);
  if (value !== null && typeof value === "object") return Object.entries(value).some(([k, v]) => k.includes("\u0000") || holdsNul(v));
  return false;
}

/** A text's length in UTF-8 bytes, as the store's keys measure it. */
function bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}
